"""Participant events handed to ``on_participant_added`` / ``on_participant_removed`` callbacks."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Literal

__all__ = [
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
class ParticipantAddedEvent:
    """A participant joined ``room_id``."""

    type: Literal["participant_added"] = "participant_added"
    room_id: str | None = None
    payload: ParticipantPayload | None = None
    raw: dict[str, Any] | None = None


@dataclass
class ParticipantRemovedEvent:
    """A participant left ``room_id``."""

    type: Literal["participant_removed"] = "participant_removed"
    room_id: str | None = None
    payload: ParticipantPayload | None = None
    raw: dict[str, Any] | None = None


ParticipantAddedCallback = Callable[[str, ParticipantAddedEvent], Awaitable[None]]
ParticipantRemovedCallback = Callable[[str, ParticipantRemovedEvent], Awaitable[None]]
