"""``Execution`` and ``ExecutionHandler``: what runs inside one room, for composed runtimes.

``RoomPresence`` says which rooms the agent is in; an ``Execution`` (one per room) is what the
caller runs in each, fed the room's events. ``Agent``'s own per-room execution is the
runtime's ``RoomExecution``; these are the shapes for code that composes its own.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    from band.platform.link import LinkEvent

__all__ = ["Execution", "ExecutionHandler"]


@runtime_checkable
class Execution(Protocol):
    """One room's execution: started when the agent joins, fed events, stopped on leaving."""

    room_id: str

    async def start(self) -> None:
        """Begin work in the room."""
        ...

    async def stop(self, timeout: float | None = None) -> bool:
        """Stop (waiting up to ``timeout`` seconds for running work); False if cut short."""
        ...

    def inject_system_message(self, message: str) -> None:
        """Queue a system note for the room's next turn."""
        ...

    async def on_event(self, event: LinkEvent) -> None:
        """Handle one of the room's events."""
        ...

    async def request_resync(self) -> None:
        """Look for messages missed while the socket was down (after a reconnect)."""
        ...

    def interrupt(self, *, kind: str = "interrupt") -> bool:
        """Abort the turn in progress (``interrupt`` or ``stop``); False if none ran."""
        ...

    def stop_room(self) -> None:
        """Stop answering in the room until ``resume_room``."""
        ...

    async def resume_room(self) -> None:
        """Answer in the room again after ``stop_room``."""
        ...


#: A handler of one room's events: ``await handler(context, event)``, the context being what
#: the caller keeps per room (an ``Execution``, a ``ConversationContext``...).
ExecutionHandler = Callable[[Any, "LinkEvent"], Awaitable[None]]
