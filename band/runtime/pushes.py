"""Every inbound push goes through band_sdk_core's validator; invalid ones are dropped."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import MISSING, dataclass, fields
from typing import TYPE_CHECKING, Any, Generic, TypeVar, dataclass_transform

from band.client.phoenix import PushHandler
from band.core.wire import JsonObject, JsonValue
from band_sdk_core._push import room_message, validate_push

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

__all__ = [
    "ROOM_MESSAGE_EVENTS",
    "PartyPayload",
    "PushEvent",
    "WireStats",
    "payload_from",
    "push_event",
    "valid_messages",
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


@dataclass_transform()
@dataclass
class PushEvent(Generic[P]):
    """What every event handed to user code carries; a subclass fixes ``type``'s value.

    Each subclass is a dataclass as this class is (made so here, once, for every event)."""

    type: str = ""
    room_id: str | None = None
    payload: P | None = None
    raw: JsonObject | None = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        dataclass(cls)


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


#: The ``chat_room`` events the runtime handles: band-sdk 6.0.1 registers a handler for
#: ``message_created`` only, so ``message_updated`` and ``event_created`` are never validated.
ROOM_MESSAGE_EVENTS = ("message_created",)


class WireStats:
    """Counts of accepted and dropped pushes."""

    accepted = 0
    dropped = 0


def _dropped(event: str, exc: Exception) -> None:
    """Count and log a push that failed validation."""
    WireStats.dropped += 1
    log.warning("dropping invalid %s push: %s", event, exc)


def validated(event: str, payload: JsonValue) -> JsonObject | None:
    """The normalised payload of ``event``, or None (logged, counted) when it is invalid."""
    try:
        result = validate_push(event, payload)
    except (ValueError, TypeError) as exc:
        _dropped(event, exc)
        return None
    WireStats.accepted += 1
    return result


def valid_pushes(handle: PushHandler) -> PushHandler:
    """A push handler that validates each push and calls ``handle`` with its normalised
    payload; an invalid one is dropped (logged, counted) and ``handle`` never sees it."""

    def on_push(event: str, payload: JsonObject) -> None:
        data = validated(event, payload)
        if data is not None:
            handle(event, data)

    return on_push


def valid_messages(
    room_id: str, agent_id: str, submit: Callable[[JsonObject], None]
) -> PushHandler:
    """A room topic's push handler: every push is validated as :func:`valid_pushes` does (an
    invalid one dropped, logged, counted), and ``submit`` gets each message to answer: a
    ``message_created`` that ``evaluate_delivery_event(event, room_id, message, agent_id)``
    calls an invocation (one the agent did not send). One call into the core per push."""
    if not room_id:
        raise ValueError("a room's push handler needs the room's id")

    def on_push(event: str, payload: JsonObject) -> None:
        try:
            message = room_message(event, payload, room_id, agent_id)
        except (ValueError, TypeError) as exc:
            _dropped(event, exc)
            return
        WireStats.accepted += 1
        if message is not None:
            submit(message)

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
