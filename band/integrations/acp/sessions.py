"""The ACP server's records: a prompt in flight (``PendingACPPrompt``) and the sessions a
room's history names (``ACPSessionState``, what ``ACPServerHistoryConverter`` rebuilds)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

__all__ = ["SESSION_EVENT_TEXT", "ACPSessionState", "PendingACPPrompt"]

#: the content of the ``task`` event that records a session in its room's history
SESSION_EVENT_TEXT = "ACP session context"


@dataclass
class ACPSessionState:
    """The ACP sessions a Band room's history records: session -> room, its editor's
    working directory and MCP servers."""

    session_to_room: dict[str, str] = field(default_factory=dict)
    session_cwd: dict[str, str] = field(default_factory=dict)
    session_mcp_servers: dict[str, list[dict[str, Any]]] = field(default_factory=dict)


@dataclass
class PendingACPPrompt:
    """An editor's prompt waiting for the room's answer.

    ``posted`` once the room accepted the prompt (earlier room messages are not its answer);
    ``reply_started`` once a peer's text arrived, which opens the quiet window
    ``completion_task`` waits out; ``done_event`` is set when the prompt ended, ``outcome``
    saying how (a stop reason such as ``end_turn`` or ``cancelled``).
    """

    session_id: str
    done_event: asyncio.Event = field(default_factory=asyncio.Event)
    outcome: Any = None
    completion_task: asyncio.Task[None] | None = None
    posted: bool = False
    reply_started: bool = False

    def finish(self, outcome: Any) -> None:
        """End the prompt: stop its quiet-window timer; the first ``outcome`` given stays."""
        task = self.completion_task
        if task is not None and task is not asyncio.current_task():
            task.cancel()
        if outcome is not None and self.outcome is None:
            self.outcome = outcome
        self.done_event.set()
