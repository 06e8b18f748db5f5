# Declarations of the compiled insertion-ordered map, for cimport by the compiled twins.
cimport cython


@cython.final
cdef class _Node:
    cdef object key
    cdef object value
    cdef _Node prev
    cdef _Node next


@cython.final
cdef class OrderedMap:
    cdef dict _index
    cdef _Node _first
    cdef _Node _last

    cdef inline _Node _unlink(self, _Node node)
    cdef inline void _append(self, _Node node)
    cpdef object get(self, object key, object default=*)
    cpdef object pop(self, object key, object default)
    cpdef tuple popitem(self, bint last=*)
    cpdef move_to_end(self, object key)
    cpdef clear(self)
    cpdef list keys_list(self)
