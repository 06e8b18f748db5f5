# cython: language_level=3
"""Compiled-only: a compiled class's C name, which CPython's own error messages quote.

Also ``allocate``: an instance of a Python subclass made by its compiled base's C
constructor, without the Python-level ``base.__new__(cls)`` call.

CPython words a missing attribute as "'<tp_name>' object has no attribute '<name>'" from
the type's C-level tp_name: "band_sdk_core._subscriptions_c.X" for a compiled class,
"X" for a Python class. The reference says "'band_sdk_core.X' object ...". Setting
tp_name gives that wording without a ``__getattr__``, whose custom attribute slot stops
CPython from specialising the class's method lookups (every call then builds a bound
method). The limited API hides tp_name: there ``qualify`` returns False and the caller
installs a ``__getattr__`` instead.
"""

__all__ = ["LIMITED_API", "allocate", "qualify"]

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
    static PyObject *band_allocate(PyObject *base, PyObject *cls, PyObject *args) {
        /* the base's tp_new: a heap type's slot, readable in the limited API too */
        newfunc make = (newfunc)PyType_GetSlot((PyTypeObject *)base, Py_tp_new);
        if (make == NULL) {
            PyErr_SetString(PyExc_TypeError, "the base type has no constructor");
            return NULL;
        }
        return make((PyTypeObject *)cls, args, NULL);
    }
    """
    bint band_set_tp_name(object cls, const char *name)
    bint BAND_LIMITED_API
    object band_allocate(object base, object cls, tuple args)

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


def allocate(type base, type cls):
    """A new ``cls`` (a subclass of the compiled ``base``) from base's C constructor."""
    # base.__new__(cls) from compiled code is a Python method call through tp_new_wrapper:
    # about 780 instructions where this takes about 200 (CancelledDecisions, per cancel)
    if not issubclass(cls, base):
        raise TypeError(f"{cls.__name__} is not a subclass of {base.__name__}")
    return band_allocate(base, cls, ())
