import cython


cdef Py_ssize_t _MAX_BYTES, _MAX_VALUES, _MAX_DEPTH
cdef frozenset _SIMPLE_KINDS
cdef str _EXPECTED_STRING
cdef object _ABSENT


@cython.final
cdef class _Budget:
    cdef Py_ssize_t size
    cdef Py_ssize_t values


cdef str _plain(object text)

cdef Py_ssize_t _utf8_len(str text) except -1

cdef str _add_string(object text, _Budget budget)


@cython.locals(tp=type)
cdef object _convert(object value, _Budget budget, Py_ssize_t depth)

cdef list _convert_list(object value, _Budget budget, Py_ssize_t depth)


@cython.locals(out=dict)
cdef dict _convert_dict(object value, _Budget budget, Py_ssize_t depth)

cdef str _at(Py_ssize_t index, str field)


@cython.locals(start=Py_ssize_t)
cdef dict _check_row(dict row, Py_ssize_t index, list issues)

cdef dict _check_activity(object activity, Py_ssize_t index, list issues)


@cython.locals(size=Py_ssize_t, issues=list, peers=dict, index=Py_ssize_t, own=str)
cpdef list normalize_room_activity_snapshot(
        object raw, object self_agent_id, object trace_context=*)
