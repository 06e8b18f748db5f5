"""What a room's history says about its ACP session (band-sdk's ``ACPClientSessionState``).

Every completed turn ends with an ``ACP client session`` task event naming the room and its
session; after a restart the adapter asks the agent to ``session/load`` the last one named,
and when that is refused it opens a new session given the room's earlier messages.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from band.core.wire import JsonValue

from .narration import SESSION_EVENT

__all__ = ["ACPClientSessionState"]


@dataclass
class ACPClientSessionState:
    """Sessions to resume, by room, and the transcript to replay when none can be.

    A session id is the agent's: it is only used after the agent loads it again.
    ``replay_messages`` are the room's text messages as ``[sender]: content`` lines.
    """

    room_to_session: dict[str, str] = field(default_factory=dict)
    replay_messages: list[str] = field(default_factory=list)

    @classmethod
    def from_history(
        cls, rows: Sequence[Mapping[str, JsonValue]], room_id: str
    ) -> ACPClientSessionState:
        """The state recorded in ``room_id``'s history rows (oldest first): each room's last
        session event (an event naming no room is ``room_id``'s) and the text messages."""
        state = cls()
        for row in rows:
            kind = row.get("message_type", "text")
            if kind == "text":
                sender = row.get("sender_name") or row.get("sender_id") or "unknown"
                state.replay_messages.append(f"[{sender}]: {row.get('content', '')}")
                continue
            meta = row.get("metadata")
            if kind != "task" or row.get("content") != SESSION_EVENT or not isinstance(meta, dict):
                continue
            room, session = (
                meta.get("acp_client_room_id", room_id),
                meta.get("acp_client_session_id"),
            )
            if isinstance(room, str) and isinstance(session, str) and session:
                state.room_to_session[room] = session
        return state
