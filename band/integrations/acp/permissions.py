"""Permission answers and elicitation fields of the ACP client side, as band-sdk names them.

An ACP agent asks before a tool runs by offering options (``allow_once``, ``allow_always``,
``reject_once``, ...); the answer must select one of the offered ids or cancel. Options come as
``acp.schema.PermissionOption`` objects or as wire dicts (``optionId``), both are read.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping

__all__ = [
    "ALLOW_ALWAYS_KIND",
    "ALLOW_ONCE_KIND",
    "ElicitationHandler",
    "ElicitationNarrator",
    "PermissionHandler",
    "PermissionNarrator",
    "allow_permission",
    "cancel_permission",
    "elicitation_requested_schema",
    "elicitation_session_id",
    "option_id_of_kind",
    "permission_option_ids",
    "select_allow_option_id",
]

#: a coroutine answering one permission request with a ``RequestPermissionResponse`` dict
PermissionHandler = Callable[..., Awaitable[dict[str, object]]]
#: wraps the wait for a permission answer (to narrate it in the room)
PermissionNarrator = Callable[[Awaitable[None]], Awaitable[None]]
#: a coroutine answering one elicitation (form) request
ElicitationHandler = Callable[..., Awaitable[object]]
#: wraps the wait for an elicitation answer
ElicitationNarrator = Callable[[Awaitable[None]], Awaitable[None]]

ALLOW_ONCE_KIND = "allow_once"
ALLOW_ALWAYS_KIND = "allow_always"


def _field(option: object, *names: str) -> object:
    """The first of ``names`` set on ``option`` (a wire dict or a schema object)."""
    for name in names:
        value = option.get(name) if isinstance(option, Mapping) else getattr(option, name, None)
        if value is not None:
            return value
    return None


def _option_id(option: object) -> str | None:
    value = _field(option, "optionId", "option_id")
    return None if value is None else str(value)


def permission_option_ids(options: object) -> tuple[str, ...]:
    """The ids of the offered options, in order (``()`` when ``options`` is not a sequence)."""
    if not isinstance(options, list | tuple):
        return ()
    return tuple(i for o in options if (i := _option_id(o)) is not None)


def option_id_of_kind(options: object, kind: str) -> str | None:
    """The id of the first offered option of ``kind``, else ``None``."""
    if not isinstance(options, list | tuple):
        return None
    for option in options:
        option_id = _option_id(option)
        if option_id is not None and _field(option, "kind") == kind:
            return option_id
    return None


def select_allow_option_id(options: object) -> str | None:
    """Least privilege: the first ``allow_once`` option, else ``allow_always``, else ``None``."""
    for kind in (ALLOW_ONCE_KIND, ALLOW_ALWAYS_KIND):
        if (option_id := option_id_of_kind(options, kind)) is not None:
            return option_id
    return None


def allow_permission(option_id: str) -> dict[str, object]:
    """The ``RequestPermissionResponse`` (wire form) selecting ``option_id``."""
    return {"outcome": {"outcome": "selected", "optionId": option_id}}


def cancel_permission() -> dict[str, object]:
    """The ``RequestPermissionResponse`` (wire form) cancelling the request."""
    return {"outcome": {"outcome": "cancelled"}}


def elicitation_session_id(mode: object, kwargs: dict[str, object]) -> str:
    """The session an elicitation is for: ``mode.session_id``, else ``session_id``/``sessionId``
    in ``kwargs``, else ``""``."""
    found = getattr(mode, "session_id", None) or _field(kwargs, "session_id", "sessionId")
    return str(found or "")


def elicitation_requested_schema(mode: object, kwargs: dict[str, object]) -> object | None:
    """The form schema an elicitation asks for: ``mode.requested_schema``, else
    ``requested_schema``/``requestedSchema`` in ``kwargs``."""
    found = getattr(mode, "requested_schema", None)
    return found or _field(kwargs, "requested_schema", "requestedSchema")
