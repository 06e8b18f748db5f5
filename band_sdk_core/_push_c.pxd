# Types for _push_py.py compiled as _push_c (setup.py ACCELERATED): the logic is the .py's.
import cython


cdef int _TEXT_FIN, _CLOSE_FIN, _PONG_FIN


@cython.locals(value=cython.ulonglong)
cdef unsigned long long _length(bytes buf, Py_ssize_t start, Py_ssize_t stop)


@cython.locals(
    texts=list,
    end=Py_ssize_t,
    first=int,
    second=int,
    size=cython.ulonglong,
    head=Py_ssize_t,
    left=cython.ulonglong,
    plain=bint,
    stop=Py_ssize_t,
)
cpdef tuple split_frames(bytes buf, Py_ssize_t pos, bint is_open)

cpdef dict validate_push(object event, object payload)


@cython.locals(message=dict)
cpdef object room_message(object event, object payload, object room_id, object agent_id)
