"""Room events: participant events for the participant callbacks, messages for preprocessors."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from band.runtime.pushes import PushEvent

__all__ = [
    "MessageCreatedPayload",
    "MessageEvent",
    "ParticipantAddedCallback",
    "ParticipantAddedEvent",
    "ParticipantPayload",
    "ParticipantRemovedCallback",
    "ParticipantRemovedEvent",
]


@dataclass(frozen=True, slots=True)
class ParticipantPayload:
    """Who joined or left a room."""

    id: str
    name: str
    type: str
    handle: str | None = None
    description: str | None = None
    is_external: bool | None = None

    @classmethod
    def from_wire(cls, data: dict[str, Any]) -> ParticipantPayload:
        """Build from a validated ``participant_added`` / ``participant_removed`` payload."""
        return cls(
            id=str(data["id"]),
            name=str(data["name"]),
            type=str(data["type"]),
            handle=data.get("handle"),
            description=data.get("description"),
            is_external=data.get("is_external"),
        )


@dataclass
class ParticipantAddedEvent(PushEvent[ParticipantPayload]):
    """A participant joined ``room_id``."""

    type: Literal["participant_added"] = "participant_added"


@dataclass
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
    metadata: dict[str, Any] = field(default_factory=dict)
    attachments: list[dict[str, Any]] = field(default_factory=list)

    @classmethod
    def from_wire(cls, row: dict[str, Any]) -> MessageCreatedPayload:
        """Build from a message row (missing strings become empty)."""
        meta = row.get("metadata")
        files = row.get("attachments")
        return cls(
            id=str(row.get("id") or ""),
            content=str(row.get("content") or ""),
            message_type=str(row.get("message_type") or "text"),
            sender_id=str(row.get("sender_id") or ""),
            sender_type=str(row.get("sender_type") or ""),
            inserted_at=str(row.get("inserted_at") or ""),
            updated_at=str(row.get("updated_at") or row.get("inserted_at") or ""),
            sender_name=row.get("sender_name"),
            chat_room_id=row.get("chat_room_id"),
            thread_id=row.get("thread_id"),
            metadata=dict(meta) if isinstance(meta, dict) else {},
            attachments=[a for a in files if isinstance(a, dict)]
            if isinstance(files, list)
            else [],
        )


@dataclass
class MessageEvent(PushEvent[MessageCreatedPayload]):
    """A message for the agent in ``room_id``, as a preprocessor receives it."""

    type: Literal["message_created"] = "message_created"

    @classmethod
    def from_row(cls, row: dict[str, Any], room_id: str) -> MessageEvent:
        """The event for a message row of ``room_id``."""
        return cls(room_id=room_id, payload=MessageCreatedPayload.from_wire(row), raw=row)
