"""``ConversationContext``: a room's conversation and participants as fetched at one moment."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from band.client.rest import RestClient
from band.runtime.rooms.participants import RoomParticipants
from band.runtime.sessionconfig import SessionConfig

__all__ = ["ConversationContext"]


@dataclass
class ConversationContext:
    """The room's context rows (oldest first) and participants, and when they were read."""

    room_id: str
    messages: list[dict[str, Any]]
    participants: list[dict[str, Any]]
    hydrated_at: datetime

    @classmethod
    async def fetch(
        cls,
        rest: RestClient,
        room_id: str,
        agent_id: str,
        config: SessionConfig | None = None,
    ) -> ConversationContext:
        """Read the room's context and participants the way the runtime does before a turn
        (``/context``, bounded by ``config.max_context_messages``; ``/participants``)."""
        from band.runtime.rooms.history import RoomHistory

        history = RoomHistory(rest, room_id, config or SessionConfig())
        roster = RoomParticipants(rest, room_id, agent_id)
        messages = await history.for_turn("", refresh=True)
        await roster.load()
        return cls(room_id, messages, roster.snapshot(), datetime.now(UTC))
