# cython: annotation_typing=False
"""Stateless one-shot delivery lifecycle decisions (§12)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ._base import check_bool, check_str
from ._errors import check_trace_context, validation_error

if TYPE_CHECKING or __name__ != "band_sdk_core._delivery_c":
    from ._json_py import to_json
    from ._payload_py import validate_converted
else:  # the compiled twin calls the compiled converter and validator
    from ._json_c import to_json
    from ._payload_c import validate_converted

__all__ = [
    "evaluate_adapter_result",
    "evaluate_delivery_event",
    "evaluate_drain_candidate",
    "evaluate_next_message",
    "is_self_echo",
]

_MISSING = "room_id is missing from both the envelope and the payload"


def _plain(value: str) -> str:
    """Return ``value`` as an exact str (str subclasses are copied)."""
    return value if type(value) is str else str.__str__(value)


def is_self_echo(sender_id: str, sender_type: str, agent_id: str) -> bool:
    """Return True when the sender is this agent itself."""
    check_str(sender_id)
    check_str(sender_type)
    check_str(agent_id)
    return sender_type == "Agent" and sender_id == agent_id


def _resolve_room(room_id: str | None, payload: Any, field: str, trace_context: str | None) -> str:
    """Pick the envelope room id, else the payload's fallback field."""
    if room_id:
        return _plain(room_id)
    value = payload.get(field) if type(payload) is dict else None
    if value is None or value == "":
        raise validation_error([("room_id", "missing", _MISSING)], trace_context)
    if type(value) is not str:
        message = f"payload.{field} must be a string to serve as room_id"
        raise validation_error([("room_id", "wrong_type", message)], trace_context)
    return value


def evaluate_delivery_event(
    event_type: str,
    room_id: str | None,
    payload: Any,
    agent_id: str,
    trace_context: str | None = None,
) -> dict[str, Any]:
    """Route one inbound event to ignored / cleanup / skip_self / invocation."""
    # exact str arguments are the common case: skip the checking calls
    if type(event_type) is not str:
        check_str(event_type)
    if room_id is not None and type(room_id) is not str:
        check_str(room_id)
    if type(agent_id) is not str:
        check_str(agent_id)
    if trace_context is not None:
        check_trace_context(trace_context)
    converted = to_json(payload)
    if event_type == "message_created":
        message = validate_converted("message_created", converted, trace_context)
        room = _resolve_room(room_id, message, "chat_room_id", trace_context)
        sender_id = message["sender_id"]
        sender_type = message["sender_type"]
        if sender_type == "Agent" and sender_id == agent_id:
            return {"decision": "skip_self", "room_id": room, "message_id": message["id"]}
        return {
            "decision": "invocation",
            "room_id": room,
            "message_id": message["id"],
            "sender_id": sender_id,
            "sender_type": sender_type,
        }
    if event_type == "room_removed" or event_type == "room_deleted":
        return {
            "decision": "cleanup",
            "room_id": _resolve_room(room_id, converted, "id", trace_context),
        }
    return {"decision": "ignored", "event_type": _plain(event_type)}


def evaluate_next_message(
    triggering_message_id: str, next_message_id: str | None
) -> dict[str, Any]:
    """Compare the triggering message with the room's next open message."""
    check_str(triggering_message_id)
    if next_message_id is None:
        return {"decision": "no_pending"}
    check_str(next_message_id)
    if next_message_id == triggering_message_id:
        return {"decision": "ready_to_claim"}
    return {"decision": "already_processed", "next_open_id": _plain(next_message_id)}


def _candidate_field(candidate: Any, name: str) -> str:
    """Read one required string field of a drain candidate."""
    value = candidate.get(name) if isinstance(candidate, Mapping) else None
    if not isinstance(value, str):
        raise TypeError(f"candidate.{name} must be a string")
    return _plain(value)


def _seen_set(seen_ids: Any) -> set[str]:
    """Collect ``seen_ids`` into a set, checking every element is a str."""
    if isinstance(seen_ids, str):
        raise TypeError("`seen_ids` must be an iterable of str, not a str")
    seen: set[str] = set()
    for item in seen_ids:
        check_str(item)
        seen.add(item)
    return seen


def evaluate_drain_candidate(candidate: Any, seen_ids: Any, agent_id: str) -> dict[str, Any]:
    """Classify one already-fetched drain candidate."""
    check_str(agent_id)
    if candidate is not None:
        message_id = _candidate_field(candidate, "id")
        sender_id = _candidate_field(candidate, "sender_id")
        sender_type = _candidate_field(candidate, "sender_type")
    seen = _seen_set(seen_ids)
    if candidate is None:
        return {"decision": "no_candidate"}
    if sender_type == "Agent" and sender_id == agent_id:
        return {"decision": "self_echo", "message_id": message_id}
    if message_id in seen:
        return {"decision": "drain", "message_id": message_id}
    return {"decision": "out_of_snapshot", "message_id": message_id}


def evaluate_adapter_result(room_id: str, message_id: str, succeeded: bool) -> dict[str, Any]:
    """Map an adapter outcome to a processed / failed acknowledgement."""
    check_str(room_id)
    check_str(message_id)
    check_bool(succeeded)
    return {
        "decision": "processed" if succeeded else "failed",
        "room_id": _plain(room_id),
        "message_id": _plain(message_id),
    }
