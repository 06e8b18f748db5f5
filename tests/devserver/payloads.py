"""Validate pushed payloads: band_sdk_core when importable, else the rules of spec 3.5."""

from __future__ import annotations

from typing import Any

REQUIRED = {
    "message_created": ("id", "content", "message_type", "sender_id", "sender_type",
                        "inserted_at", "updated_at"),
    "message_updated": ("id", "content", "message_type", "sender_id", "sender_type",
                        "inserted_at", "updated_at"),
    "room_added": ("id", "inserted_at", "updated_at"),
    "room_removed": ("id", "inserted_at", "updated_at"),
    "participant_added": ("id", "name", "type"),
    "participant_removed": ("id", "name", "type"),
    "supersede": ("reason", "message"),
}  # fmt: skip


def _fallback(event: str, payload: dict[str, Any]) -> None:
    for key in REQUIRED.get(event, ()):
        assert isinstance(payload.get(key), str), f"{event}: {key} must be a string"
    if event.startswith("message_"):
        for m in (payload.get("metadata") or {}).get("mentions", []):
            assert isinstance(m.get("id"), str)
        assert payload.get("thread_id") is None or isinstance(payload["thread_id"], str)
    if event.startswith("room_"):
        for key in ("title", "task_id"):
            assert payload.get(key) is None or isinstance(payload[key], str)
    if event.startswith("participant_") and "handle" in payload:
        assert isinstance(payload["handle"], str), "participant handle must not be null"
    if event == "supersede":
        assert "correlation_id" in payload
        assert payload["correlation_id"] is None or isinstance(payload["correlation_id"], str)


def check_payload(event: str, payload: dict[str, Any]) -> None:
    """Assert ``payload`` is a valid ``event`` payload."""
    try:
        from band_sdk_core import validate_event_payload
    except (ImportError, AttributeError, ModuleNotFoundError):
        validate_event_payload = None
    _fallback(event, payload)
    if validate_event_payload is not None:
        validate_event_payload(event, payload)
