import cython


@cython.locals(record=list)
cpdef list _read(object participant)


@cython.locals(index=Py_ssize_t)
cpdef _merge(list old, list new)

cpdef dict _as_dict(list record)


@cython.final
cdef class ParticipantRoster:
    cdef dict _records
    cdef object _snapshot
    cdef object _provider

    @cython.locals(record=list, old=list)
    cpdef bint add(self, object participant) except -1

    @cython.locals(
        records=list, seen=set, issues=list, merged=dict, record=list, old=list, index=Py_ssize_t
    )
    cpdef set_all(self, object participants, object trace_context=*)

    @cython.locals(record=list)
    cpdef list(self)
