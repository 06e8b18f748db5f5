import cython


cdef str _MISSING

cdef str _plain(object value)

cdef str _resolve_room(object room_id, object payload, str field, object trace_context)


@cython.locals(message=dict)
cpdef dict evaluate_delivery_event(
    object event_type,
    object room_id,
    object payload,
    object agent_id,
    object trace_context=*,
)
