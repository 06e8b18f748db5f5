"""The socket's vocabulary at band-sdk's ``band.client.streaming`` path: event names and typed
push payloads.

The payloads the runtime hands to user code (messages, participants, contacts) are the
runtime's own classes, exported here under band-sdk's names; the others are plain frozen
dataclasses. :func:`payload_of` turns one push (event name and payload, as the socket gave
them) into its typed payload after band_sdk_core's validator, as the runtime does.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

import msgspec

from band.core.wire import JsonValue
from band.runtime.contacts.events import (
    ContactAddedPayload,
    ContactRemovedPayload,
    ContactRequestReceivedPayload,
    ContactRequestUpdatedPayload,
)
from band.runtime.rooms.events import MessageCreatedPayload, ParticipantPayload
from band_sdk_core import validate_event_payload

# The package's __init__ lists the public names (this module's and the runtime payloads').

#: A participant joined (``participant_added``) or left (``participant_removed``) a room.
ParticipantAddedPayload = ParticipantPayload
ParticipantRemovedPayload = ParticipantPayload


class WireEvent(enum.StrEnum):
    """The push event names of the platform's channels."""

    MESSAGE_CREATED = "message_created"
    MESSAGE_UPDATED = "message_updated"  # message_created's shape; delivery states changed
    ROOM_ADDED = "room_added"
    ROOM_REMOVED = "room_removed"
    ROOM_DELETED = "room_deleted"
    PARTICIPANT_ADDED = "participant_added"
    PARTICIPANT_REMOVED = "participant_removed"
    CONTACT_REQUEST_RECEIVED = "contact_request_received"
    CONTACT_REQUEST_UPDATED = "contact_request_updated"
    CONTACT_ADDED = "contact_added"
    CONTACT_REMOVED = "contact_removed"
    SUPERSEDE = "supersede"
    AGENT_CONTROL = "agent.control"
    EVENT_CREATED = "event_created"  # no payload type: event rows are read over REST
    TASK_CREATED = "task_created"  # the tasks channel's rows, passed through as dicts
    TASK_UPDATED = "task_updated"


class DeliveryStatus(enum.StrEnum):
    """One recipient's state of a message: delivered, then processing, then processed or
    failed (a failed message is served again by ``/next``; processed is final)."""

    DELIVERED = "delivered"
    PROCESSING = "processing"
    PROCESSED = "processed"
    FAILED = "failed"


class ControlMode(enum.StrEnum):
    """What an ``agent.control`` push asks of the agent or one room's execution."""

    INTERRUPT = "interrupt"
    STOP = "stop"
    PLAY = "play"


@dataclass(frozen=True, slots=True)
class Mention:
    """Someone a message mentions."""

    id: str
    username: str | None = None
    handle: str | None = None
    name: str | None = None


@dataclass(frozen=True, slots=True)
class MessageMetadata:
    """A message's metadata: its mentions, status and per-recipient delivery states."""

    mentions: list[Mention] = field(default_factory=list)
    status: str | None = None
    delivery_status: dict[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class RoomPushFields:
    """The room fields ``room_added`` and ``room_removed`` both carry (one wire shape)."""

    id: str
    inserted_at: str
    updated_at: str
    title: str | None = None
    task_id: str | None = None


@dataclass(frozen=True, slots=True)
class RoomAddedPayload(RoomPushFields):
    """The agent was added to a room (``room_added`` on its rooms channel)."""


@dataclass(frozen=True, slots=True)
class RoomRemovedPayload(RoomPushFields):
    """The agent was removed from a room (``room_removed``)."""


@dataclass(frozen=True, slots=True)
class RoomDeletedPayload:
    """A room was deleted."""

    id: str


@dataclass(frozen=True, slots=True)
class SupersedeFields:
    """What a ``supersede`` push says, kept again by the disconnect reason it leads to."""

    reason: str
    message: str
    retryable: bool
    retry_after: int | None = None
    target_socket_id: str | None = None
    correlation_id: str | None = None


@dataclass(frozen=True, slots=True)
class SupersedePayload(SupersedeFields):
    """The platform handed the agent's session to a newer connection."""


@dataclass(frozen=True, slots=True)
class AgentControlPayload:
    """Interrupt, stop or resume the agent (``scope="agent"``) or one room's execution."""

    mode: ControlMode
    scope: Literal["agent", "room"]
    agent_id: str
    type: str | None = None
    execution_id: str | None = None
    room_id: str | None = None
    reason: str | None = None
    correlation_id: str | None = None


#: The typed payload of each event that has one.
PAYLOAD_TYPES: dict[WireEvent, type[Any]] = {
    WireEvent.MESSAGE_CREATED: MessageCreatedPayload,
    WireEvent.MESSAGE_UPDATED: MessageCreatedPayload,
    WireEvent.ROOM_ADDED: RoomAddedPayload,
    WireEvent.ROOM_REMOVED: RoomRemovedPayload,
    WireEvent.ROOM_DELETED: RoomDeletedPayload,
    WireEvent.PARTICIPANT_ADDED: ParticipantAddedPayload,
    WireEvent.PARTICIPANT_REMOVED: ParticipantRemovedPayload,
    WireEvent.CONTACT_REQUEST_RECEIVED: ContactRequestReceivedPayload,
    WireEvent.CONTACT_REQUEST_UPDATED: ContactRequestUpdatedPayload,
    WireEvent.CONTACT_ADDED: ContactAddedPayload,
    WireEvent.CONTACT_REMOVED: ContactRemovedPayload,
    WireEvent.SUPERSEDE: SupersedePayload,
    WireEvent.AGENT_CONTROL: AgentControlPayload,
}


def payload_of(event: str, payload: Mapping[str, JsonValue]) -> Any:
    """The typed payload of push ``event`` (``PAYLOAD_TYPES``), checked by band_sdk_core's
    validator first; unknown fields are dropped.

    Raises ValueError naming the problem when the payload is invalid, KeyError for an
    event with no payload type (``event_created``, the tasks channel's rows).
    """
    kind = PAYLOAD_TYPES[WireEvent(event)]
    data = validate_event_payload(event, dict(payload))
    try:
        return msgspec.convert(data, kind, strict=False)
    except msgspec.ValidationError as exc:
        raise ValueError(f"invalid {event} payload: {exc}") from exc
