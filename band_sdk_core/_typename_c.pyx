# cython: language_level=3
"""Compiled-only: a compiled class's C name, which CPython's own error messages quote.

CPython words a missing attribute as "'<tp_name>' object has no attribute '<name>'" from
the type's C-level tp_name: "band_sdk_core._subscriptions_c.X" for a compiled class,
"X" for a Python class. The reference says "'band_sdk_core.X' object ...". Setting
tp_name gives that wording without a ``__getattr__``, whose custom attribute slot stops
CPython from specialising the class's method lookups (every call then builds a bound
method). The limited API hides tp_name: there ``qualify`` returns False and the caller
installs a ``__getattr__`` instead.
"""

__all__ = ["LIMITED_API", "qualify"]

cdef extern from *:
    """
    #if CYTHON_COMPILING_IN_LIMITED_API
    #define BAND_LIMITED_API 1
    #else
    #define BAND_LIMITED_API 0
    #endif
    #if CYTHON_COMPILING_IN_LIMITED_API
    static int band_set_tp_name(PyObject *cls, const char *name) { return 0; }
    #else
    static int band_set_tp_name(PyObject *cls, const char *name) {
        ((PyTypeObject *)cls)->tp_name = name;
        return 1;
    }
    #endif
    """
    bint band_set_tp_name(object cls, const char *name)
    bint BAND_LIMITED_API

#: True in the limited-API (abi3) build: qualify cannot set names, callers use __getattr__
LIMITED_API = BAND_LIMITED_API

# every name handed to a type: tp_name points into these bytes for the life of the process
cdef list _names = []


def qualify(type cls) -> bool:
    """Name ``cls`` "band_sdk_core.<qualname>" in CPython's messages; False if not possible."""
    cdef bytes name = ("band_sdk_core." + cls.__qualname__).encode()
    if not band_set_tp_name(cls, name):
        return False
    _names.append(name)
    return True
