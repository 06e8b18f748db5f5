"""``RoomContext``: what a room's turns are built from, as preprocessors see it (``ctx``).

Participants, the cached conversation context, whether the model saw the room yet, and
system updates waiting for the next turn (contact broadcasts, the hub prompt). Reads never
consume anything: a preprocessor peeks, and commits once the turn was handed to the adapter.
"""

from __future__ import annotations

from band.client.rest import RestClient
from band.core.wire import JsonObject
from band.runtime.formatters import build_participants_message, format_history_for_llm
from band.runtime.rooms.history import RoomHistory
from band.runtime.rooms.participants import RoomParticipants
from band.runtime.sessionconfig import SessionConfig
from band.runtime.tools import AgentTools

__all__ = ["ContextRoom", "RoomContext"]


class RoomContext:
    """Turn-building state of one room."""

    def __init__(
        self,
        room_id: str,
        *,
        agent_id: str,
        rest: RestClient,
        config: SessionConfig,
        hub_room_id: str | None = None,
    ) -> None:
        self.room_id = room_id
        self.agent_id = agent_id
        self.rest = rest
        self.config = config
        self.hub_room_id = hub_room_id
        self.room_participants = RoomParticipants(rest, room_id, agent_id)
        self.history = RoomHistory(rest, room_id, config)
        self._llm_initialized = False
        self._system: list[str] = []

    def __repr__(self) -> str:
        return f"RoomContext(room_id={self.room_id!r})"

    @property
    def is_hub_room(self) -> bool:
        """True in the agent's contacts hub room."""
        return self.hub_room_id is not None and self.room_id == self.hub_room_id

    # --- participants -------------------------------------------------------------------------

    @property
    def participants(self) -> list[JsonObject]:
        """The room's participants (a copy)."""
        return self.room_participants.snapshot()

    @property
    def participants_loaded(self) -> bool:
        """Whether the participant list was fetched since the room was joined."""
        return self.room_participants.loaded

    async def load_participants(self) -> list[JsonObject]:
        """Fetch the participant list from the platform; return it."""
        await self.room_participants.load()
        return self.participants

    def participants_changed(self) -> bool:
        """Whether the participants changed since the model was last told."""
        return bool(self.room_participants.changed())

    def mark_participants_sent(self, snapshot: list[JsonObject] | None = None) -> None:
        """The model was told about the participants (``snapshot``: only if still current)."""
        if snapshot is None or snapshot == self.participants:
            self.room_participants.mark_sent()

    def build_participants_message(self) -> str:
        """The participant list as text for the model (band-sdk's roster format)."""
        return build_participants_message(self.participants)

    # --- conversation -------------------------------------------------------------------------

    @property
    def is_llm_initialized(self) -> bool:
        """Whether a turn of this room already reached the adapter (history was handed over)."""
        return self._llm_initialized

    def mark_llm_initialized(self) -> None:
        """The adapter has seen this room: later turns are not session bootstraps."""
        self._llm_initialized = True

    async def history_for(self, message_id: str, *, refresh: bool) -> list[JsonObject]:
        """The conversation context before ``message_id`` (refetched when ``refresh``)."""
        return await self.history.for_turn(message_id, refresh=refresh)

    def get_history_for_llm(self, exclude_message_id: str | None = None) -> list[JsonObject]:
        """The cached context as ``format_history_for_llm`` dicts (no fetch; empty when
        hydration is off or nothing was fetched yet)."""
        if not self.config.enable_context_hydration:
            return []
        rows = self.history.cached()[-self.config.max_context_messages :]
        return format_history_for_llm(rows, exclude_message_id, self.participants)

    def new_tools(self, *, participants: list[JsonObject] | None = None) -> AgentTools:
        """Platform tools bound to this room for one turn (``participants``: a snapshot of
        them taken for the turn, else a new one)."""
        return AgentTools(
            self.room_id,
            self.rest,
            self.participants if participants is None else participants,
            hub_room_id=self.hub_room_id,
            agent_id=self.agent_id,
        )

    # --- system updates for the next turn -----------------------------------------------------

    def inject_system_message(self, message: str) -> None:
        """Queue an update (a contact change...) for the next turn's ``contacts_msg``."""
        self._system.append(message)

    def peek_pending_system_messages(self) -> list[str]:
        """The queued updates, left queued."""
        return list(self._system)

    def commit_system_messages(self, prepared: list[str]) -> None:
        """Drop ``prepared`` (a peeked prefix) from the queue; later arrivals stay."""
        if self._system[: len(prepared)] == prepared:
            del self._system[: len(prepared)]

    def get_pending_system_messages(self) -> list[str]:
        """Take every queued update."""
        taken, self._system = self._system, []
        return taken


class ContextRoom:
    """A room's runner that keeps the room's settings in its ``context``."""

    def __init__(self, context: RoomContext) -> None:
        self.context = context
        self.room_id = context.room_id
        self.participants = context.room_participants

    @property
    def hub_room_id(self) -> str | None:
        """The agent's contacts hub room (its tools always include the contact tools)."""
        return self.context.hub_room_id

    @hub_room_id.setter
    def hub_room_id(self, value: str | None) -> None:
        self.context.hub_room_id = value
