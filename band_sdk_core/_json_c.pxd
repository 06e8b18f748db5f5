# Types for _json_py.py compiled as _json_c (setup.py ACCELERATED): the logic is the .py's.
import cython


cdef object _I64_MIN, _U64_MAX

cdef bint _ascii(str text) except -1

cdef str _check_str(object value)

cdef str _key(object key)

cdef dict _sorted(dict out, list keys)


@cython.locals(out=dict, keys=list, ordered=bint)
cdef dict _object(dict obj)


@cython.locals(out=dict, keys=list)
cdef dict _items(object items)


@cython.locals(out=list)
cdef list _array(object values)


@cython.locals(tp=type)
cpdef object to_json(object value)

cdef object _slow(object value)
