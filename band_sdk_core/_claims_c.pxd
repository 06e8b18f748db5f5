import cython

from band_sdk_core._ordered_c cimport OrderedMap
from band_sdk_core._retry_c cimport RetryTracker as _Tracker


cpdef str _str(object value)

cpdef _check_tracker(object value)

cdef int _check_trace(object value) except -1

cdef int _check_fact(object value) except -1

cpdef _check_reason(object value)


@cython.final
cdef class _Entry:
    cdef bint failed
    cdef object error
    cdef object parked
    cdef long long serial
    cdef str text
    cdef long long attempts  # u32 counts and limits: long long on every target
    cdef long long max_retries

    @cython.locals(text=str)
    cdef str token(self)

    cpdef dict ack_view(self)

    @cython.locals(continuation=dict)
    cpdef dict settlement_view(self)


@cython.final
cdef class _Room:
    cdef set inflight
    cdef dict pending
    cdef OrderedMap completed


cdef _Entry _pending_entry(_Room room, object message_id)


@cython.final
cdef class ClaimRegistry:
    cdef long long _max_completed  # up to u32::MAX: wider than a 32-bit Py_ssize_t
    cdef dict _rooms
    cdef object _last_id
    cdef _Room _last_room
    cdef dict _retries
    cdef long long _next_token

    @cython.locals(room=_Room)
    cdef inline _Room _room(self, object room_id)

    @cython.locals(room=_Room)
    cdef _Room _new_room(self, object room_id)

    cdef inline int _prune(self, object room_id, _Room room) except -1

    @cython.locals(entry=_Entry)
    cdef _Entry _new_entry(
        self,
        _Room room,
        object message_id,
        bint failed,
        object error,
        long long attempts,
        long long max_retries,
    )

    @cython.locals(completed=OrderedMap)
    cdef bint _is_completed(self, _Room room, object message_id) except -1

    @cython.locals(completed=OrderedMap)
    cdef int _push_completed(self, _Room room, object message_id) except -1

    cdef int _complete(self, _Room room, object room_id, object message_id) except -1

    @cython.locals(room=_Room)
    cpdef bint try_claim(self, object room_id, object message_id) except -1

    @cython.locals(room=_Room, inflight=set)
    cpdef release(self, object room_id, object message_id)

    @cython.locals(room=_Room)
    cpdef bint is_completed(self, object room_id, object message_id) except -1

    @cython.locals(room=_Room)
    cpdef list inflight_ids(self, object room_id)

    @cython.locals(room=_Room)
    cpdef list completed_ids(self, object room_id)

    @cython.locals(room=_Room)
    cpdef discard_completed(self, object room_id)

    @cython.locals(room=_Room)
    cpdef remember_completed(self, object room_id, object message_id)

    @cython.locals(room=_Room)
    cpdef remember_ack_pending(self, object room_id, object message_id)

    @cython.locals(room=_Room, entry=_Entry)
    cpdef remember_failed_ack_pending(
        self, object room_id, object message_id, object error, object trace_context=*
    )

    @cython.locals(room=_Room)
    cpdef list pending_ack_ids(self, object room_id)

    @cython.locals(room=_Room, entry=_Entry)
    cpdef dict record_processed_settlement(
        self, object room_id, object message_id, object trace_context=*
    )

    @cython.locals(room=_Room, entry=_Entry, tracker=_Tracker)
    cpdef dict record_failed_settlement(
        self,
        object room_id,
        object message_id,
        object error,
        object retry_tracker,
        object allow_retry,
        object trace_context=*,
    )

    @cython.locals(entry=_Entry)
    cpdef bint park_settlement(
        self, object room_id, object message_id, object token, object reason
    ) except -1

    @cython.locals(room=_Room, entry=_Entry, tracker=_Tracker)
    cpdef bint confirm_settlement(
        self, object room_id, object message_id, object token, object retry_tracker
    ) except -1

    @cython.locals(room=_Room, count=Py_ssize_t, entry=_Entry)
    cpdef Py_ssize_t unpark_acks(self, object room_id) except -1

    @cython.locals(room=_Room, entry=_Entry)
    cpdef bint has_retryable_settlement(self, object room_id) except -1

    @cython.locals(room=_Room, tracker=_Tracker)
    cpdef str _eligibility(
        self,
        object room_id,
        object message_id,
        object retry_tracker,
        object self_echo,
        object durably_processed,
        object durably_failed,
        object allow_failed_retry,
        bint claim,
    )
