import cython


cdef bint _COMPILED
cdef double _INF, _DBL_MAX, _TWO_64
cdef object _I64_MIN, _I64_MAX

cdef object _DEAD, _UP, _CONNECTING, _RECONNECTING
cdef object _WRONG_EPOCH, _DUPLICATE_CONNECTED, _CLOCK_REGRESSION, _SUPERSEDE_PREDATES
cdef object _CLASSIFIED, _RAPID_DISCONNECT


@cython.locals(tp=object)
cdef double _to_float(object value) except? -1.0


@cython.locals(number=object)
cdef long long _to_i64(object value) except? -1

cdef bint _bad_number(double x) noexcept

cdef int _check_now(double now_s) except -1

cdef int _check_epoch(long long epoch) except -1

cdef int _check_code(long long code, str what) except -1

cdef int _check_retry_after(object retry_after_s) except -1

cdef int _check_jitter(double jitter_sample) except -1


@cython.locals(result=double)
cdef double _powi(double base, Py_ssize_t exponent) noexcept

cdef object _to_nanos(double seconds)


@cython.locals(secs=object, rest=object)
cdef double _secs(object nanos) except? -1.0


@cython.locals(frac=double, x=double, part=double, nanos=object)
cdef double _delay_secs(double delay, double fallback) except? -1.0


@cython.final
cdef class SessionOutcome:
    cdef object _state
    cdef object _retry_after_s
    cdef object _dead_reason
    cdef object _stale_reason


@cython.locals(out=SessionOutcome)
cdef SessionOutcome _outcome(
        object state, object retry_after_s, object dead_reason, object stale_reason)


@cython.final
cdef class _SessionCore:
    cdef double base_s
    cdef double factor
    cdef double max_delay_s
    cdef double stable_reset
    cdef double rapid_uptime
    cdef double rapid_window
    cdef double rapid_first
    cdef double rapid_second
    cdef double cooldown_base
    cdef double cooldown_step
    cdef double cooldown_max
    cdef long long threshold  # rapid_threshold, up to u32::MAX
    cdef object state
    cdef long long next_epoch
    cdef bint has_epoch
    cdef long long epoch
    cdef double attempt_start
    cdef bint connected
    cdef double connected_at
    cdef double up_since
    cdef bint ever_up
    cdef Py_ssize_t n
    cdef list rapid
    cdef object dead_reason

    cdef SessionOutcome dead(self)

    cdef SessionOutcome stale(self, object reason)

    @cython.locals(epoch=cython.longlong)
    cdef object begin_attempt(self, double now_s)

    cdef SessionOutcome on_connected(self, long long epoch, double now_s)

    cdef SessionOutcome on_close(
            self, long long epoch, double now_s, bint terminal, object retry_after_s,
            double jitter_sample)

    cdef SessionOutcome on_supersede(
            self, double now_s, bint retryable, object retry_after_s, double jitter_sample)

    @cython.locals(was_up=bint, uptime=double, ceiling=double, delay=double, rapid=list, t=double,
                   drop=Py_ssize_t, window=double, k=Py_ssize_t, floor=double, result=double,
                   state=object)
    cdef SessionOutcome disconnect(
            self, double now_s, bint terminal, object retry_after_s, double jitter_sample)

    cdef object end(self)


@cython.final
cdef class Session:
    cdef _SessionCore _core

    @cython.locals(now=double)
    cpdef object begin_attempt(self, object now_s)

    @cython.locals(e=cython.longlong, now=double)
    cpdef SessionOutcome on_connected(self, object epoch, object now_s)

    @cython.locals(
            e=cython.longlong, now=double, has_code=bint, code=cython.longlong, jitter=double)
    cpdef SessionOutcome on_socket_close(
            self, object epoch, object now_s, object close_code, object jitter_sample)

    @cython.locals(
            e=cython.longlong, now=double, code=cython.longlong, retry=object, jitter=double,
            terminal=bint)
    cpdef SessionOutcome on_upgrade_rejected(
            self, object epoch, object now_s, object status, object retry_after_s,
            object jitter_sample)

    @cython.locals(now=double, retry=object, jitter=double)
    cpdef SessionOutcome on_supersede(
            self, object now_s, object retryable, object retry_after_s, object jitter_sample)

    cpdef object end(self)


cdef inline _SessionCore _core_of(Session session)
