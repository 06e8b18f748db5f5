# Declarations of the compiled links, chain and insertion-ordered map (cimported by _claims_c).
cimport cython


cdef class Link:
    cdef Link prev
    cdef Link next


cdef class Chain:
    cdef Link first
    cdef Link last
    cdef Py_ssize_t size

    cdef void release(self) noexcept


# The hot operations are inline functions here, so every cimporting twin compiles them in
# place (a method of the non-final Chain would be an indirect call through its vtable).
cdef inline void chain_append(Chain chain, Link link) noexcept:
    """Link ``link`` at the back of ``chain``."""
    link.prev = chain.last
    link.next = None
    if chain.last is None:
        chain.first = link
    else:
        chain.last.next = link
    chain.last = link
    chain.size += 1


cdef inline void chain_unlink(Chain chain, Link link) noexcept:
    """Take ``link`` out of ``chain``."""
    if link.prev is None:
        chain.first = link.next
    else:
        link.prev.next = link.next
    if link.next is None:
        chain.last = link.prev
    else:
        link.next.prev = link.prev
    link.prev = None
    link.next = None
    chain.size -= 1


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
    cpdef clear(self)
    cpdef list keys_list(self)
