"""Room events: participant events for the participant callbacks, messages for preprocessors."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Literal

from band.core.wire import JsonObject, MessageRow
from band.runtime.pushes import PartyPayload, PushEvent

__all__ = [
    "MessageCreatedPayload",
    "MessageEvent",
    "ParticipantAddedCallback",
    "ParticipantAddedEvent",
    "ParticipantPayload",
    "ParticipantRemovedCallback",
    "ParticipantRemovedEvent",
]


@dataclass(frozen=True, slots=True, kw_only=True)
class ParticipantPayload(PartyPayload):
    """Who joined or left a room."""

    name: str


class ParticipantAddedEvent(PushEvent[ParticipantPayload]):
    """A participant joined ``room_id``."""

    type: Literal["participant_added"] = "participant_added"


class ParticipantRemovedEvent(PushEvent[ParticipantPayload]):
    """A participant left ``room_id``."""

    type: Literal["participant_removed"] = "participant_removed"


ParticipantAddedCallback = Callable[[str, ParticipantAddedEvent], Awaitable[None]]
ParticipantRemovedCallback = Callable[[str, ParticipantRemovedEvent], Awaitable[None]]


@dataclass(frozen=True, slots=True)
class MessageCreatedPayload:
    """A message addressed to the agent (a ``message_created`` push or a ``/next`` row)."""

    id: str
    content: str
    message_type: str
    sender_id: str
    sender_type: str
    inserted_at: str
    updated_at: str
    sender_name: str | None = None
    chat_room_id: str | None = None
    thread_id: str | None = None
    metadata: JsonObject = field(default_factory=dict)
    attachments: list[JsonObject] = field(default_factory=list)

    @classmethod
    def from_row(cls, row: MessageRow) -> MessageCreatedPayload:
        """Build from a decoded message row (missing strings become empty)."""
        return cls(
            id=row.id or "",
            content=row.content or "",
            message_type=row.message_type or "text",
            sender_id=row.sender_id or "",
            sender_type=row.sender_type or "",
            inserted_at=row.inserted_at or "",
            updated_at=row.updated_at or row.inserted_at or "",
            sender_name=row.sender_name,
            chat_room_id=row.chat_room_id,
            thread_id=row.thread_id,
            metadata=dict(row.metadata or {}),
            attachments=list(row.attachments or []),
        )


class MessageEvent(PushEvent[MessageCreatedPayload]):
    """A message for the agent in ``room_id``, as a preprocessor receives it."""

    type: Literal["message_created"] = "message_created"

    @classmethod
    def from_row(cls, row: MessageRow, raw: JsonObject, room_id: str) -> MessageEvent:
        """The event for a message of ``room_id``: its decoded ``row`` and ``raw`` as sent."""
        return cls(room_id=room_id, payload=MessageCreatedPayload.from_row(row), raw=raw)
