import cython

from band_sdk_core._ordered_c cimport OrderedMap


cpdef _check_str(object value)

cpdef _check_tracker(object value)

cpdef _check_reason(object value)


@cython.locals(room=object)
cdef list _ids(dict table, object room_id)


@cython.final
cdef class _Entry:
    cdef bint failed
    cdef object error
    cdef object parked
    cdef Py_ssize_t serial
    cdef str text
    cdef Py_ssize_t attempts
    cdef Py_ssize_t max_retries

    @cython.locals(text=str)
    cdef str token(self)

    cpdef dict ack_view(self)

    @cython.locals(continuation=dict)
    cpdef dict settlement_view(self)


@cython.final
cdef class ClaimRegistry:
    cdef Py_ssize_t _max_completed
    cdef dict _inflight
    cdef dict _completed
    cdef dict _pending
    cdef dict _retries
    cdef Py_ssize_t _next_token

    @cython.locals(room=dict)
    cpdef _Entry _entry(self, object room_id, object message_id)

    @cython.locals(entry=_Entry, room=dict)
    cpdef _Entry _new_entry(
        self,
        object room_id,
        object message_id,
        bint failed,
        object error,
        Py_ssize_t attempts,
        Py_ssize_t max_retries,
    )

    @cython.locals(room=dict)
    cpdef _drop_entry(self, object room_id, object message_id)

    @cython.locals(room=OrderedMap)
    cpdef bint _is_completed(self, object room_id, object message_id) except -1

    @cython.locals(room=set)
    cpdef bint _is_inflight(self, object room_id, object message_id) except -1

    @cython.locals(room=set)
    cdef int _add_inflight(self, object room_id, object message_id) except -1

    @cython.locals(room=OrderedMap)
    cpdef _complete(self, object room_id, object message_id)

    cpdef bint try_claim(self, object room_id, object message_id) except -1

    @cython.locals(room=set)
    cpdef release(self, object room_id, object message_id)

    @cython.locals(entry=_Entry)
    cpdef dict record_processed_settlement(
        self, object room_id, object message_id, object trace_context=*
    )

    @cython.locals(entry=_Entry)
    cpdef bint park_settlement(
        self, object room_id, object message_id, object token, object reason
    ) except -1

    @cython.locals(entry=_Entry)
    cpdef bint confirm_settlement(
        self, object room_id, object message_id, object token, object retry_tracker
    ) except -1

    @cython.locals(room=dict, count=Py_ssize_t, entry=_Entry)
    cpdef Py_ssize_t unpark_acks(self, object room_id) except -1

    @cython.locals(room=dict, entry=_Entry)
    cpdef bint has_retryable_settlement(self, object room_id) except -1

    @cython.locals(
        self_echo=bint, durably_processed=bint, durably_failed=bint, allow_failed_retry=bint)
    cpdef str _eligibility(
        self,
        object room_id,
        object message_id,
        object retry_tracker,
        tuple facts,
        bint claim,
    )
