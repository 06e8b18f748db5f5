# cython: annotation_typing=False
"""Inbound event-payload validation (§3) and memory taxonomy checks (§4)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from . import _enums
from ._errors import Issue, check_trace_context, validation_error

if TYPE_CHECKING or __name__ != "band_sdk_core._payload_c":
    from ._json_py import to_json
else:  # the compiled twin converts with the compiled converter
    from ._json_c import to_json

if TYPE_CHECKING:
    from ._enums import EventType, MemorySystem, MemoryType

__all__ = ["validate_event_payload", "validate_memory_type_for_system"]

# typed loosely: the enum classes' constructor-refusing __new__ confuses type checkers
_EVENT_TYPE: Any = _enums.EventType
_MEMORY_SYSTEM: Any = _enums.MemorySystem
_MEMORY_TYPE: Any = _enums.MemoryType
_EVENT_NAMES: dict[str, str] = {name: name for name in _EVENT_TYPE._by_label}
_MEMORY_TYPES: frozenset[str] = frozenset(_MEMORY_TYPE._by_label)

# field kinds
_S = 0  # string
_NES = 1  # non-empty string
_SN = 2  # string | null
_NESN = 3  # non-empty string | null
_B = 4  # boolean
_BN = 5  # boolean | null
_A = 6  # array

_MODES = ("interrupt", "stop", "play")
_SCOPES = ("agent", "room")

# (name, kind, required, drop_null, allowed string values or None)
_Field = tuple[str, int, bool, bool, tuple[str, ...] | None]

_ROOM: tuple[_Field, ...] = (
    ("id", _NES, True, False, None),
    ("inserted_at", _S, True, False, None),
    ("updated_at", _S, True, False, None),
    ("title", _SN, False, False, None),
    ("task_id", _SN, False, False, None),
)
_ID_ONLY: tuple[_Field, ...] = (("id", _NES, True, False, None),)
_PARTICIPANT: tuple[_Field, ...] = (
    ("id", _NES, True, False, None),
    ("type", _S, True, False, None),
    ("name", _S, True, False, None),
    ("handle", _S, False, False, None),
    ("description", _SN, False, False, None),
    ("is_remote", _BN, False, False, None),
    ("is_external", _BN, False, False, None),
)
_SCHEMAS: dict[str, tuple[_Field, ...]] = {
    "message_created": (
        ("id", _NES, True, False, None),
        ("content", _S, True, False, None),
        ("message_type", _S, True, False, None),
        ("sender_type", _S, True, False, None),
        ("sender_id", _NES, True, False, None),
        ("inserted_at", _S, True, False, None),
        ("updated_at", _S, True, False, None),
        ("sender_name", _SN, False, False, None),
    ),
    "room_added": _ROOM,
    "room_removed": _ROOM,
    "room_deleted": _ID_ONLY,
    "participant_added": _PARTICIPANT,
    "participant_removed": _PARTICIPANT,
    "contact_request_received": (
        ("id", _NES, True, False, None),
        ("status", _S, True, False, None),
        ("inserted_at", _S, True, False, None),
        ("from_handle", _SN, False, True, None),
        ("from_name", _SN, False, True, None),
        ("message", _SN, False, True, None),
    ),
    "contact_request_updated": (("id", _NES, True, False, None), ("status", _S, True, False, None)),
    "contact_added": (
        ("id", _NES, True, False, None),
        ("type", _S, True, False, None),
        ("inserted_at", _S, True, False, None),
        ("handle", _SN, True, False, None),
        ("name", _SN, True, False, None),
        ("description", _S, False, False, None),
        ("listed_in_directory", _B, False, False, None),
        ("tags", _A, False, False, None),
        ("is_remote", _BN, False, False, None),
        ("is_external", _BN, False, False, None),
    ),
    "contact_removed": _ID_ONLY,
    "supersede": (
        ("reason", _S, True, False, None),
        ("message", _S, True, False, None),
        ("correlation_id", _SN, True, False, None),
    ),
    "agent.control": (
        ("mode", _S, True, False, _MODES),
        ("scope", _S, True, False, _SCOPES),
        ("agent_id", _NES, True, False, None),
        ("correlation_id", _S, True, False, None),
        ("execution_id", _NESN, True, False, None),
        ("room_id", _NESN, True, False, None),
        ("reason", _S, False, False, None),
        ("type", _S, False, False, None),
    ),
}
_SCHEMAS["message_updated"] = _SCHEMAS["message_created"]
_MENTION: tuple[_Field, ...] = (
    ("id", _NES, True, False, None),
    ("handle", _SN, False, False, None),
    ("name", _SN, False, False, None),
)
_I64_MIN = -(2**63)
_I64_MAX = 2**63 - 1
_F64_LIMIT = 9.223372036854775808e18


def _valid(value: Any, kind: int) -> bool:
    """Whether a present field value has the kind's type (and is non-empty where required)."""
    if type(value) is str:
        return kind <= _NESN and (value != "" or kind == _S or kind == _SN)
    if value is None:
        return kind == _SN or kind == _NESN or kind == _BN
    if value is True or value is False:
        return kind == _B or kind == _BN
    return kind == _A and type(value) is list


def _field_issue(value: Any, kind: int, path: str) -> Issue:
    """The issue of a field value that failed ``_valid``."""
    if kind <= _NESN:
        if type(value) is str:
            return (path, "invalid_value", f"`{path}` must be a non-empty string")
        return (path, "wrong_type", f"`{path}` must be a string")
    if kind <= _BN:
        return (path, "wrong_type", f"`{path}` must be a boolean")
    return (path, "wrong_type", f"`{path}` must be an array")


_ABSENT: Any = object()


def _check_fields(
    obj: dict[str, Any], fields: tuple[_Field, ...], prefix: str, issues: list[Issue]
) -> None:
    """Check every schema field of ``obj``, dropping nulls where the schema says so."""
    for name, kind, required, drop_null, allowed in fields:
        value = obj.get(name, _ABSENT)
        if value is _ABSENT:
            if required:
                path = prefix + name
                issues.append((path, "missing", f"required field `{path}` is missing"))
            continue
        if value is None and drop_null:
            del obj[name]
            continue
        if not _valid(value, kind):
            issues.append(_field_issue(value, kind, prefix + name))
        if allowed is not None and type(value) is str and value not in allowed:
            path = prefix + name
            issues.append((path, "invalid_value", f"`{path}` must be one of: {', '.join(allowed)}"))


def _normalize_metadata(obj: dict[str, Any], issues: list[Issue]) -> None:
    """Validate and normalise a message's ``metadata`` and ``attachments``."""
    metadata = obj.get("metadata")
    if metadata is None:
        obj["metadata"] = {"mentions": []}
    elif type(metadata) is not dict:
        issues.append(("metadata", "wrong_type", "`metadata` must be an object"))
    else:
        mentions = metadata.get("mentions")
        if mentions is None:
            metadata["mentions"] = []
            if len(metadata) > 1:
                obj["metadata"] = dict(sorted(metadata.items()))
        elif type(mentions) is not list:
            issues.append(
                ("metadata.mentions", "wrong_type", "`metadata.mentions` must be an array")
            )
        else:
            for index, mention in enumerate(mentions):
                path = f"metadata.mentions[{index}]"
                if type(mention) is not dict:
                    issues.append((path, "wrong_type", f"`{path}` must be an object"))
                else:
                    _check_fields(mention, _MENTION, path + ".", issues)
    attachments = obj.get("attachments")
    if attachments is None:
        obj["attachments"] = []
    elif type(attachments) is not list:
        issues.append(("attachments", "wrong_type", "`attachments` must be an array"))


def _retry_after(value: Any) -> int | None:
    """Coerce a supersede ``retry_after`` value to an i64 or None."""
    if type(value) is int:
        return value if _I64_MIN <= value <= _I64_MAX else None
    if type(value) is float and value.is_integer() and -_F64_LIMIT <= value < _F64_LIMIT:
        return int(value)
    return None


def _alias_remote(obj: dict[str, Any]) -> bool:
    """Copy a bool ``is_remote``/``is_external`` into the other when it is absent or null."""
    # the reference treats the two as aliases; True when a key was added (output needs re-sorting)
    remote = obj.get("is_remote")
    external = obj.get("is_external")
    if remote is None and (external is True or external is False):
        added = "is_remote" not in obj
        obj["is_remote"] = external
        return added
    if external is None and (remote is True or remote is False):
        added = "is_external" not in obj
        obj["is_external"] = remote
        return added
    return False


def validate_converted(name: str, payload: Any, trace_context: str | None) -> Any:
    """Validate an already converted (fresh, sorted) payload of event ``name``."""
    if name == "event_created":
        return payload
    if type(payload) is not dict:
        raise validation_error([("", "wrong_type", "payload must be a JSON object")], trace_context)
    issues: list[Issue] = []
    _check_fields(payload, _SCHEMAS[name], "", issues)
    resort = False
    if name == "message_created" or name == "message_updated":
        resort = "metadata" not in payload or "attachments" not in payload
        _normalize_metadata(payload, issues)
    elif name == "participant_added" or name == "participant_removed" or name == "contact_added":
        resort = _alias_remote(payload)
    elif name == "supersede":
        resort = "retryable" not in payload
        payload["retryable"] = payload.get("retryable") is True
        if "retry_after" in payload:
            payload["retry_after"] = _retry_after(payload["retry_after"])
    if issues:
        raise validation_error(issues, trace_context)
    if resort:
        return dict(sorted(payload.items()))
    return payload


def validate_event_payload(
    event_type: str | EventType, raw: Any, trace_context: str | None = None
) -> Any:
    """Normalise one inbound event payload or raise a structured ValueError."""
    if trace_context is not None:
        check_trace_context(trace_context)
    if isinstance(event_type, str):
        found = _EVENT_NAMES.get(event_type)
        if found is None:
            text = str.__str__(event_type)
            raise validation_error(
                [("event_type", "invalid_value", f"unknown event type `{text}`")], trace_context
            )
        name = found
    elif isinstance(event_type, _EVENT_TYPE):
        name = event_type.wire_name
    else:
        raise TypeError("event_type must be a str")
    converted = to_json(raw)
    if converted is raw and name == "event_created":
        converted = _fresh(converted)
    return validate_converted(name, converted, trace_context)


def _fresh(value: Any) -> Any:
    """A new object equal to a JSON scalar, as the reference builds it (None and bools stay)."""
    tp = type(value)
    if tp is str:
        return value.encode("utf-8").decode("utf-8")  # str caching as when built from UTF-8
    if tp is int:
        return int.__add__(value, 0)  # a new int object (small ints are cached either way)
    if tp is float:
        return float.__mul__(value, 1.0)  # keeps -0.0
    return value


_ALLOWED: dict[str, tuple[str, ...]] = {
    "sensory": ("iconic", "echoic", "haptic"),
    "working": ("episodic", "semantic", "procedural"),
    "long_term": ("episodic", "semantic", "procedural"),
}


def validate_memory_type_for_system(
    system: str | MemorySystem, memory_type: str | MemoryType, trace_context: str | None = None
) -> None:
    """Check that ``memory_type`` belongs to memory ``system``."""
    check_trace_context(trace_context)
    if isinstance(system, str):
        system_name = str.__str__(system)
    elif isinstance(system, _MEMORY_SYSTEM):
        system_name = system.wire_name
    else:
        raise TypeError("system must be a str")
    if isinstance(memory_type, str):
        type_name = str.__str__(memory_type)
    elif isinstance(memory_type, _MEMORY_TYPE):
        type_name = memory_type.wire_name
    else:
        raise TypeError("memory_type must be a str")
    issues: list[Issue] = []
    allowed = _ALLOWED.get(system_name)
    if allowed is None:
        issues.append(("system", "invalid_value", f"unknown memory system `{system_name}`"))
    if type_name not in _MEMORY_TYPES:
        issues.append(("type", "invalid_value", f"unknown memory type `{type_name}`"))
    elif allowed is not None and type_name not in allowed:
        message = (
            f"type `{type_name}` is not valid for system `{system_name}`; "
            f"expected one of: {', '.join(allowed)}"
        )
        issues.append(("type", "invalid_value", message))
    if issues:
        raise validation_error(issues, trace_context)
