"""``ClaudeSDKHistoryConverter``: what a Claude session bootstrap reads from the room's history
(the session to resume, and the room's earlier text for a session that starts fresh)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from band.core.wire import JsonObject

__all__ = ["SESSION_KEY", "ClaudeSDKHistoryConverter", "ClaudeSDKSessionState"]

#: The ``task`` event metadata key that names a room's Claude session.
SESSION_KEY = "claude_sdk_session_id"


@dataclass(frozen=True)
class ClaudeSDKSessionState:
    """What a session bootstrap needs from the room: the session to resume, if any, and
    the room's earlier text as ``[sender]: text`` lines (for a session that starts fresh)."""

    session_id: str | None = None
    lines: tuple[str, ...] = ()

    @property
    def text(self) -> str:
        """The earlier text lines as one string (band-sdk's ``text`` field)."""
        return "\n".join(self.lines)


class ClaudeSDKHistoryConverter:
    """The room's last ``Claude session`` event's session id, and its text lines."""

    def __init__(self, agent_name: str = "") -> None:
        self._agent_name = agent_name

    def set_agent_name(self, name: str) -> None:
        """This agent's name (its own text is not replayed)."""
        self._agent_name = name

    def convert(self, raw: list[JsonObject]) -> ClaudeSDKSessionState:
        """Read the history rows, oldest first."""
        session: str | None = None
        lines: list[str] = []
        for row in raw:
            kind = row.get("message_type", "text")
            meta = row.get("metadata") or {}
            if kind == "task" and isinstance(meta, Mapping):
                sid = meta.get(SESSION_KEY)
                if isinstance(sid, str) and sid:
                    session = sid
            elif kind == "text" and row.get("sender_name") != self._agent_name:
                sender = row.get("sender_name") or "unknown"
                lines.append(f"[{sender}]: {row.get('content', '')}")
        return ClaudeSDKSessionState(session, tuple(lines))
