import cython


cdef object _EVENT_TYPE
cdef dict _EVENT_NAMES
cdef int _S, _NES, _SN, _NESN, _B, _BN, _A
cdef tuple _MENTION
cdef dict _SCHEMAS
cdef object _ABSENT
cdef object _I64_MIN, _I64_MAX, _F64_LIMIT

cdef bint _valid(object value, int kind)

cdef tuple _field_issue(object value, int kind, str path)


@cython.locals(name=str, kind=int, required=bint, drop_null=bint, allowed=tuple, path=str)
cdef int _check_fields(dict obj, tuple fields, str prefix, list issues) except -1


@cython.locals(index=Py_ssize_t, path=str)
cdef int _normalize_metadata(dict obj, list issues) except -1

cdef object _retry_after(object value)


@cython.locals(added=bint)
cdef bint _alias_remote(dict obj) except -1


@cython.locals(issues=list, resort=bint)
cpdef object validate_converted(str name, object payload, object trace_context)
