# cython: language_level=3
"""Compiled twin of _json_py: the same conversion with C-level type and ASCII checks.

_json_py.py is the readable source of behaviour; this file mirrors it branch for
branch and hands every rare or failing case to it, so messages stay identical.
"""

from ._json_py import _key, _slow

__all__ = ["to_json"]

cdef extern from *:
    """
    #if CYTHON_COMPILING_IN_LIMITED_API
    #define BAND_FAST_ASCII 0
    #define band_is_ascii(s) 0
    #else
    #define BAND_FAST_ASCII 1
    #define band_is_ascii(s) PyUnicode_IS_ASCII(s)
    #endif
    """
    const bint BAND_FAST_ASCII
    bint band_is_ascii(object s)

cdef object _I64_MIN = -(2**63)
cdef object _U64_MAX = 2**64 - 1


cdef inline bint _ascii(str text) except -1:
    """Whether an exact str is pure ASCII (then it is valid UTF-8 as is)."""
    if BAND_FAST_ASCII:
        return band_is_ascii(text)
    return text.isascii()


cdef dict _sorted(dict out, list keys):
    """Return ``out`` re-keyed in code-point order."""
    cdef dict result = {}
    keys.sort()
    for key in keys:
        result[key] = out[key]
    return result


cdef dict _object(dict obj):
    """Convert an exact dict into a fresh dict with sorted keys."""
    cdef dict out = {}
    cdef list keys = []
    cdef object previous = None
    cdef bint ordered = True
    for key, value in obj.items():
        if type(key) is not str or not _ascii(key):
            key = _key(key)
        if type(value) is not str or not _ascii(value):
            value = to_json(value)
        out[key] = value
        keys.append(key)
        if ordered and previous is not None and not (previous < key):
            ordered = False
        previous = key
    if ordered and len(out) == len(keys):
        return out  # already in code-point order: no second dict
    return _sorted(out, keys)


cdef list _array(list values):
    """Convert an exact list into a fresh list."""
    cdef list out = []
    for value in values:
        if type(value) is not str or not _ascii(value):
            value = to_json(value)
        out.append(value)
    return out


cpdef object to_json(object value):
    """Convert a Python value into a fresh JSON-shaped value (TypeError when impossible)."""
    cdef type tp = type(value)
    if tp is str:
        if _ascii(value):
            return value
        return _key(value)
    if tp is dict:
        return _object(<dict>value)
    if tp is list:
        return _array(<list>value)
    if value is None or tp is bool:
        return value
    if tp is int:
        if _I64_MIN <= value <= _U64_MAX:
            return value
        raise TypeError("JSON number out of range")
    if tp is float:
        if value - value == 0.0:
            return value
        return None
    return _slow(value)
