# cython: annotation_typing=False
"""Python -> JSON value conversion (spec §2.3): fresh objects, sorted keys.

The pure implementation and, compiled with _json_c.pxd, the compiled twin _json_c.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

from ._enums import not_instance_message

__all__ = ["to_json"]

_I64_MIN = -(2**63)
_U64_MAX = 2**64 - 1


def _ascii(text: str) -> bool:
    """Whether an exact str is pure ASCII (then it is valid UTF-8 as is)."""
    # typed str in _json_c.pxd: the compiled twin calls str.isascii's C function directly
    return text.isascii()


def _check_str(value: str) -> str:
    """Return ``value`` as an exact str, rejecting lone surrogates."""
    if type(value) is not str:
        value = "" + value
    if not _ascii(value):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise TypeError(f"UnicodeEncodeError: {exc}") from None
    return value


def _key(key: Any) -> str:
    """Convert an object key, which must be a str."""
    if not isinstance(key, str):
        raise TypeError(f"unexpected type: {not_instance_message(key, 'str')}")
    return _check_str(key)


def _sorted(out: dict[str, Any], keys: list[str]) -> dict[str, Any]:
    """Return ``out`` re-keyed in code-point order (``keys``: its keys as inserted)."""
    keys.sort()
    return {key: out[key] for key in keys}


def _object(obj: dict[Any, Any]) -> dict[str, Any]:
    """Convert an exact dict into a fresh dict with sorted keys."""
    out: dict[str, Any] = {}
    keys: list[str] = []
    previous: str | None = None
    ordered = True
    for key, value in obj.items():
        if type(key) is not str or not _ascii(key):
            key = _key(key)
        # plain ASCII strings are the common leaf: skip the call
        if type(value) is not str or not _ascii(value):
            value = to_json(value)
        out[key] = value
        keys.append(key)
        if ordered and previous is not None and not (previous < key):
            ordered = False
        previous = key
    if ordered and len(out) == len(keys):
        return out  # already in code-point order (as the platform sends it): no second dict
    return _sorted(out, keys)


def _items(items: Any) -> dict[str, Any]:
    """Convert (key, value) pairs into a fresh dict with sorted keys (the last duplicate wins)."""
    out: dict[str, Any] = {}
    keys: list[str] = []
    for key, value in items:
        key = _key(key)
        if key not in out:
            keys.append(key)
        out[key] = to_json(value)
    return _sorted(out, keys)


def _array(values: Any) -> list[Any]:
    """Convert an iterable into a fresh list."""
    out = []
    for value in values:
        if type(value) is not str or not _ascii(value):
            value = to_json(value)
        out.append(value)
    return out


def to_json(value: Any) -> Any:
    """Convert a Python value into a fresh JSON-shaped value (TypeError when impossible)."""
    tp = type(value)
    if tp is str:
        if _ascii(value):
            return value
        return _check_str(value)
    if tp is dict:
        return _object(value)
    if tp is list:
        return _array(value)
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


def _slow(value: Any) -> Any:
    """Convert the less common input types."""
    if isinstance(value, bool):
        return bool(value)
    if isinstance(value, int):
        number = int(value)
        if _I64_MIN <= number <= _U64_MAX:
            return number
        raise TypeError("JSON number out of range")
    if isinstance(value, float):
        real = float(value)
        return real if real - real == 0.0 else None
    if isinstance(value, str):
        return _check_str(value)
    if isinstance(value, bytes):
        raise TypeError("invalid type: byte array, expected any valid JSON value")
    if isinstance(value, bytearray):
        raise TypeError("unexpected type: 'bytearray' object is not an instance of 'bytes'")
    if isinstance(value, Mapping):
        return _items(value.items())
    if isinstance(value, (tuple, set, frozenset, Sequence)):
        return _array(value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return _items([(f.name, getattr(value, f.name)) for f in dataclasses.fields(value)])
    raise TypeError(f"unsupported type {type(value).__name__}")
