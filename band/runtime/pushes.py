"""Every inbound push goes through band_sdk_core's validator; invalid ones are dropped."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Generic, TypeVar

from band.core.wire import JsonObject, JsonValue
from band_sdk_core import validate_event_payload

__all__ = ["PushEvent", "WireStats", "validated"]

log = logging.getLogger("band.runtime.pushes")

#: A push event's typed payload.
P = TypeVar("P")


@dataclass
class PushEvent(Generic[P]):
    """What every event handed to user code carries; a subclass fixes ``type``'s value."""

    type: str = ""
    room_id: str | None = None
    payload: P | None = None
    raw: JsonObject | None = None


class WireStats:
    """Counts of accepted and dropped pushes."""

    accepted = 0
    dropped = 0


def validated(event: str, payload: JsonValue) -> JsonObject | None:
    """The normalised payload of ``event``, or None (logged, counted) when it is invalid."""
    try:
        result = validate_event_payload(event, payload)
    except (ValueError, TypeError) as exc:
        WireStats.dropped += 1
        log.warning("dropping invalid %s push: %s", event, exc)
        return None
    WireStats.accepted += 1
    return result if isinstance(result, dict) else {}
