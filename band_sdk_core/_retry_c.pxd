# Types for _retry_py.py compiled as _retry_c (setup.py ACCELERATED): the logic is the .py's.
import cython


cdef object _U32_MAX
cdef object _GENERAL

cpdef _check_message_id(object message_id)

cdef Py_ssize_t _check_range(object number, str name, Py_ssize_t low) except? -1


# Packed small: at 100,000 ids the queues are bound by memory.
@cython.final
@cython.freelist(64)
cdef class _Slot:
    cdef object key
    cdef unsigned int count
    cdef bint tracked
    cdef bint failed
    cdef long long ceiling
    cdef _Slot prev
    cdef _Slot next
    cdef _Slot fnext


@cython.final
@cython.no_gc_clear  # __dealloc__ breaks the links; the collector must not clear the index first
cdef class RetryTracker:
    cdef Py_ssize_t _max_retries
    cdef Py_ssize_t _max_tracked
    cdef dict _index
    cdef _Slot _first
    cdef _Slot _last
    cdef Py_ssize_t _ntracked
    cdef _Slot _ffirst
    cdef _Slot _flast
    cdef Py_ssize_t _nfailed
    cdef _Slot _spare

    @cython.locals(slot=_Slot)
    cdef void _release(self) noexcept

    cdef inline _Slot _find(self, object key)

    @cython.locals(spare=_Slot)
    cdef _Slot _slot(self, object key)

    cdef inline int _leave(self, _Slot slot) except -1

    @cython.locals(last=_Slot)
    cdef int _track(self, _Slot slot) except -1

    @cython.locals(before=_Slot, after=_Slot)
    cdef int _untrack(self, _Slot slot) except -1

    @cython.locals(last=_Slot, oldest=_Slot)
    cdef int _add_failed(self, _Slot slot) except -1

    @cython.locals(ceiling=cython.longlong)
    cdef inline Py_ssize_t _limit(self, _Slot slot) noexcept

    @cython.locals(slot=_Slot, count=Py_ssize_t, exhausted=bint)
    cpdef tuple record_attempt(self, object message_id)

    @cython.locals(slot=_Slot)
    cpdef bint is_permanently_failed(self, object message_id) except -1

    cpdef mark_permanently_failed(self, object message_id)

    @cython.locals(slot=_Slot)
    cpdef mark_success(self, object message_id)

    @cython.locals(slot=_Slot)
    cpdef discard_attempt(self, object message_id)

    @cython.locals(slot=_Slot)
    cpdef Py_ssize_t _attempt_count(self, object message_id) except -1

    @cython.locals(slot=_Slot)
    cpdef Py_ssize_t _ceiling(self, object message_id) except -1

    @cython.locals(slot=_Slot)
    cpdef _restore_attempts(self, object message_id, Py_ssize_t attempts, Py_ssize_t ceiling)
