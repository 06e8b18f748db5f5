import cython


cdef bint _COMPILED
cdef object _EFFECT, _EFFECT_OBSERVE, _EFFECT_ACT, _VERDICT_COMPLETE, _VERDICT_MISSING


@cython.final
cdef class TurnLedger:
    cdef bint _complete
    cdef bint _replied

    cpdef record(self, object effect)

    cpdef settle(self)

    cpdef note_reported(self)

    cpdef bint reply_settled(self)

    cpdef object verdict(self)
