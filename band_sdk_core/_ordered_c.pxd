# Declarations of the compiled insertion-ordered map (cimported by _claims_c).
cimport cython

from band_sdk_core._linked_c cimport Chain, Link
from band_sdk_core._strmap_c cimport StrMap


@cython.final
cdef class _Node(Link):
    cdef str key
    cdef Py_hash_t hash
    cdef object value


@cython.final
cdef class OrderedMap(Chain):
    cdef StrMap _index

    cdef _Node _add(self, str key, object value)
    cdef _Node _place(self, _Node node, str key, object value)
    cdef void _forget(self, _Node node) noexcept

    cpdef object get(self, object key, object default=*)
    cpdef object pop(self, object key, object default)
    cpdef tuple popitem(self, bint last=*)
    cpdef move_to_end(self, object key)
    cpdef push(self, object key, long long bound)
    cpdef bint refresh(self, object key) except -1
    cpdef clear(self)
    cpdef list keys_list(self)
