import cython


cdef bint _COMPILED
cdef object _U64_MAX
cdef long _ABSENT, _PENDING, _ACTIVE, _LEAVING, _RECONCILE, _ADMITTING, _ADMITTED
cdef tuple _ROOM_STATUS, _TOPIC_STATUS, _MEMBERSHIP
cdef object _LEFT, _STALE, _JOIN_FAILED, _SUBSCRIBED, _ROLLED_BACK, _ROLLBACK_FAILED


@cython.locals(text=str)
cdef str _text(object value)

cdef object _ticket(object value)

cdef object _outcome(object value)


@cython.locals(entry=list)
cdef bint _in_state(dict table, str key, long state, object ticket) except -1


@cython.locals(entry=list)
cdef bint _move(dict table, str key, object ticket, long source, long target) except -1

cdef list _keys_in(dict table, long state)


@cython.locals(entry=list)
cdef bint _is_active(dict table, object key_arg) except -1


@cython.locals(key=str)
cdef bint _is_claim_current(dict table, object key_arg, object ticket_arg) except -1


@cython.locals(entry=list)
cdef object _status(dict table, object key_arg, tuple statuses)


@cython.locals(key=str, tk=object, result=object)
cdef bint _leave_complete(
        dict table, object key_arg, object ticket_arg, object outcome_arg) except -1


@cython.locals(key=str, entry=list)
cdef bint _acknowledge(dict table, object key_arg) except -1

cdef list _rejoin_candidates(dict table)


@cython.locals(key=str, tk=object)
cdef bint _rejoin_failed(dict table, object key_arg, object ticket_arg) except -1


cdef class _Sealed:
    pass


cdef class _Ticketed(_Sealed):
    cdef object _next_ticket

    cdef object _issue(self)


# not final: the public class is a Python subclass (see the source)
cdef class _Tracker(_Ticketed):
    cdef dict _rooms
    cdef dict _topics

    @cython.locals(key=str, ticket=object, entry=list)
    cdef object _claim(self, dict table, object key_arg)

    @cython.locals(entry=list, ticket=object)
    cdef object _leave(self, dict table, object key_arg)


cdef class _Reconciliation(_Sealed):
    cdef list _removed
    cdef list _admitting
    cdef list _resync


@cython.locals(out=_Reconciliation)
cdef object _reconciliation(list removed, list admitting, list resync)


cdef class _Roster(_Ticketed):
    cdef dict _rooms
