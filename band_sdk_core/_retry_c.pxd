# Types for _retry_py.py compiled as _retry_c (setup.py ACCELERATED): the logic is the .py's.
import cython
from libc.stdint cimport int64_t

from band_sdk_core cimport _linked_c as _linked  # the .py's "_linked" (its base classes)
from band_sdk_core._strmap_c cimport StrMap


cdef object _U32_MAX
cdef object _GENERAL
cdef Py_ssize_t _CACHED
cdef tuple _FRESH
cdef tuple _SPENT

cpdef str _message_id(object message_id)

# limits are u32 in the reference: long long holds them on every target (Py_ssize_t is 32-bit on
# i386 and armv7l) and compares with a Py_ssize_t size without a sign-compare
cdef long long _check_range(object number, str name, long long low) except? -1


# Packed small: at 100,000 ids the queues are bound by memory.
@cython.final
cdef class _Slot(_linked.Link):
    cdef object key
    cdef Py_hash_t hash
    cdef unsigned int count
    cdef bint tracked
    cdef bint failed
    cdef long long ceiling


@cython.final
cdef class RetryTracker:
    cdef long long _max_retries
    cdef long long _max_tracked
    cdef StrMap _index
    cdef _linked.Chain _queue
    cdef list _failed
    cdef Py_ssize_t _fhead
    cdef _Slot _spare

    cdef inline _Slot _find(self, object key)

    @cython.locals(spare=_Slot)
    cdef _Slot _slot(self, object key)

    cdef inline int _leave(self, _Slot slot) except -1

    @cython.locals(queue=_linked.Chain, oldest=_Slot)
    cdef int _track(self, _Slot slot) except -1

    cdef int _untrack(self, _Slot slot) except -1

    @cython.locals(failed=list, head=Py_ssize_t, oldest=_Slot)
    cdef int _add_failed(self, _Slot slot) except -1

    @cython.locals(ceiling=cython.longlong)
    cdef inline long long _limit(self, _Slot slot) noexcept

    @cython.locals(slot=_Slot, count=cython.longlong, exhausted=bint)
    cpdef tuple record_attempt(self, object message_id)

    @cython.locals(slot=_Slot)
    cpdef bint is_permanently_failed(self, object message_id) except -1

    cpdef mark_permanently_failed(self, object message_id)

    @cython.locals(slot=_Slot)
    cpdef mark_success(self, object message_id)

    @cython.locals(slot=_Slot)
    cpdef discard_attempt(self, object message_id)

    # int64_t: with "long long", Cython 3.3 writes a cpdef's error value as the C constant -1LLLL
    @cython.locals(slot=_Slot)
    cpdef int64_t _attempt_count(self, object message_id) except -1

    @cython.locals(slot=_Slot)
    cpdef int64_t _ceiling(self, object message_id) except -1

    @cython.locals(slot=_Slot)
    cpdef _restore_attempts(self, object message_id, long long attempts, long long ceiling)
