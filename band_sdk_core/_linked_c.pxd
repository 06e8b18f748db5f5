# Types for _linked_py.py compiled as _linked_c (setup.py ACCELERATED); the logic is the .py's.
# Cimported by _decisions_c, _retry_c and _ordered_c, whose entries derive from Link and
# whose queues are Chains (a cdef method here is one indirect call through the vtable).
import cython


# No class directives here or on the subclasses but @cython.final (checked in the generated C:
# no_gc/no_gc_clear in the .pxd of a .py source and @cython.freelist on a Link subclass generate
# nothing, and a subclass of a collected Link stays collected). The collector may clear a Chain
# or its Links; __dealloc__ unlinks iteratively.
cdef class Link:
    cdef Link prev
    cdef Link next


cdef class Chain:
    cdef Link first
    cdef Link last
    cdef Py_ssize_t size

    @cython.locals(last=Link)
    cdef void append(self, Link link) noexcept

    @cython.locals(before=Link, after=Link)
    cdef void unlink(self, Link link) noexcept

    @cython.locals(link=Link, after=Link)
    cdef void release(self) noexcept
