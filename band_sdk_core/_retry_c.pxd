import cython

from band_sdk_core._ordered_c cimport OrderedMap


cdef object _U32_MAX

cpdef _check_message_id(object message_id)

cpdef object _check_range(object number, str name, object low)


@cython.final
cdef class RetryTracker:
    cdef Py_ssize_t _max_retries
    cdef Py_ssize_t _max_tracked
    cdef OrderedMap _attempts
    cdef dict _ceilings
    cdef OrderedMap _failed

    @cython.locals(attempts=OrderedMap, previous=Py_ssize_t, count=Py_ssize_t, exhausted=bint)
    cpdef tuple record_attempt(self, object message_id)

    cpdef bint is_permanently_failed(self, object message_id) except -1

    cpdef mark_permanently_failed(self, object message_id)

    cpdef mark_success(self, object message_id)

    @cython.locals(attempts=OrderedMap, count=Py_ssize_t)
    cpdef discard_attempt(self, object message_id)

    cpdef Py_ssize_t _attempt_count(self, object message_id) except -1

    @cython.locals(limit=Py_ssize_t, restored=Py_ssize_t)
    cpdef Py_ssize_t _ceiling(self, object message_id) except -1

    @cython.locals(attempts=OrderedMap)
    cpdef _make_room(self)

    @cython.locals(table=OrderedMap, current=Py_ssize_t, count=Py_ssize_t, previous=Py_ssize_t)
    cpdef _restore_attempts(self, object message_id, Py_ssize_t attempts, Py_ssize_t ceiling)

    @cython.locals(failed=OrderedMap)
    cpdef _add_failed(self, object message_id)
