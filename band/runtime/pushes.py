"""Every inbound push goes through band_sdk_core's validator; invalid ones are dropped."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import MISSING, dataclass, fields
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from band.client.phoenix import PushHandler
from band.core.wire import JsonObject, JsonValue
from band_sdk_core import validate_event_payload

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

__all__ = [
    "PartyPayload",
    "PushEvent",
    "WireStats",
    "payload_from",
    "push_event",
    "valid_pushes",
    "validated",
]

log = logging.getLogger("band.runtime.pushes")

#: A push event's typed payload.
P = TypeVar("P")
#: A payload dataclass built by :func:`payload_from`.
D = TypeVar("D", bound="DataclassInstance")
#: A push event class built by :func:`push_event`.
E = TypeVar("E", bound="PushEvent[Any]")


@dataclass
class PushEvent(Generic[P]):
    """What every event handed to user code carries; a subclass fixes ``type``'s value."""

    type: str = ""
    room_id: str | None = None
    payload: P | None = None
    raw: JsonObject | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class PartyPayload:
    """Whom a participant or contact push names: its id and type and the profile both carry
    (keyword fields, as band-sdk's payloads)."""

    id: str
    type: str
    handle: str | None = None
    description: str | None = None
    is_remote: bool | None = None
    is_external: bool | None = None  # the platform's former name of is_remote


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


def valid_pushes(handle: PushHandler) -> PushHandler:
    """A push handler that validates each push and calls ``handle`` with its normalised
    payload; an invalid one is dropped (logged, counted) and ``handle`` never sees it."""

    def on_push(event: str, payload: JsonObject) -> None:
        data = validated(event, payload)
        if data is not None:
            handle(event, data)

    return on_push


def payload_from(cls: type[D], data: JsonObject) -> D:
    """The payload dataclass ``cls`` from a validated push: each field without a default is a
    string the validator required; each field with one is taken as sent, or its default."""
    values: dict[str, object] = {}
    for f in fields(cls):
        if f.default is MISSING and f.default_factory is MISSING:
            values[f.name] = str(data[f.name])
        elif f.name in data:
            values[f.name] = data[f.name]
    return cls(**values)


def push_event(event: Callable[..., E], payload: type[DataclassInstance], data: JsonObject) -> E:
    """The ``event`` of a validated push, its payload read by :func:`payload_from`."""
    return event(payload=payload_from(payload, data), raw=data)
