import cython


cdef bint _COMPILED
cdef object _U64_MAX
cdef long _PENDING, _ACTIVE, _LEAVING, _RECONCILE, _ADMITTING, _ADMITTED
cdef tuple _ROOM_STATUS, _TOPIC_STATUS

cdef str _text(object value)

cdef object _ticket(object value)

cdef object _outcome(object value)


# not final: the public class is a Python subclass (see the source)
cdef class _Tracker:
    cdef object _next_ticket
    cdef dict _rooms
    cdef dict _topics

    cdef object _issue(self)

    @cython.locals(entry=list)
    cdef bint _pending_room(self, str room, object ticket) except -1

    @cython.locals(entry=list)
    cdef bint _pending_topic(self, str key, object ticket) except -1


cdef class _Reconciliation:
    cdef list _removed
    cdef list _admitting
    cdef list _resync


@cython.locals(out=_Reconciliation)
cdef object _reconciliation(list removed, list admitting, list resync)


cdef class _Roster:
    cdef object _next_ticket
    cdef dict _rooms

    cdef object _issue(self)
