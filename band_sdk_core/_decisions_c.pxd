# Types for _decisions_py.py compiled as _decisions_c (setup.py ACCELERATED); logic in the .py.
import cython

from band_sdk_core cimport _linked_c as _linked  # the .py's "_linked" (its base classes)


cdef unsigned long long _U32_MAX, _U64_MAX, _GOLDEN, _MIX1, _MIX2
cdef long long _ENTRIES_MAX
cdef bint _COMPILED
cdef object _TICKET_MAX
cdef object _CLAIMED, _ALREADY, _STALE


# not final: the public class is a Python subclass (see the source)
cdef class _Cancelled:
    cdef list _unclaimed
    cdef list _claimed


@cython.locals(out=_Cancelled)
cdef object _cancelled(list unclaimed, list claimed)


@cython.locals(text=str)
cdef str _id(object value)


@cython.final
cdef class _Entry(_linked.Link):
    cdef object token
    cdef object ticket
    cdef str room
    cdef bint claimed


@cython.locals(entry=_Entry)
cdef _Entry _entry(object token, object ticket, str room)


@cython.final
cdef class _Book(_linked.Chain):
    cdef unsigned long long state
    cdef object ticket

    cdef object issue(self)


@cython.final
cdef class DecisionRegistry:
    cdef public object _max_pending
    cdef public long long _limit  # -1 or up to u32::MAX (a 32-bit Py_ssize_t is too narrow)
    cdef public dict _entries
    cdef public _Book _book
    cdef public dict _rooms

    @cython.locals(
        entries=dict, book=_Book, state=cython.ulonglong, z=cython.ulonglong, low=cython.uint
    )
    cdef object _mint(self)

    @cython.locals(entry=_Entry, members=dict)
    cpdef register_minted(self, object room_id=*)

    @cython.locals(entry=_Entry)
    cpdef register_keyed(self, object key)

    @cython.locals(entry=_Entry)
    cdef _Entry _current(self, object token, object ticket)

    @cython.locals(entry=_Entry)
    cpdef try_claim(self, object token, object ticket)

    @cython.locals(entry=_Entry)
    cpdef withdraw(self, object token, object ticket)

    @cython.locals(entry=_Entry)
    cpdef forget(self, object token, object ticket)

    @cython.locals(tokens=list, entry=_Entry)
    cpdef list unclaimed(self)

    @cython.locals(members=dict, entry=_Entry)
    cpdef list unclaimed_in_room(self, object room_id)

    @cython.locals(room=str, members=dict)
    cdef int _unroom(self, _Entry entry) except -1

    cpdef Py_ssize_t unclaimed_count(self)

    @cython.locals(first=_Entry)
    cpdef oldest_unclaimed(self)

    @cython.locals(book=_Book, entry=_Entry)
    cpdef evict_oldest(self)

    @cython.locals(
        unclaimed=list, claimed=list, entries=dict, members=dict, matched=dict, entry=_Entry)
    cdef _cancel(self, str room, bint every)
