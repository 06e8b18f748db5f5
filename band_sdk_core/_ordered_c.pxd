# Declarations of the compiled insertion-ordered map (cimported by _claims_c).
cimport cython

from band_sdk_core._linked_c cimport Chain, Link


@cython.final
cdef class _Node(Link):
    cdef object key
    cdef object value


@cython.final
cdef class OrderedMap(Chain):
    cdef dict _index

    cpdef object get(self, object key, object default=*)
    cpdef object pop(self, object key, object default)
    cpdef tuple popitem(self, bint last=*)
    cpdef move_to_end(self, object key)
    cpdef push(self, object key, Py_ssize_t bound)
    cpdef bint refresh(self, object key) except -1
    cpdef clear(self)
    cpdef list keys_list(self)
