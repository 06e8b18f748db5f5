"""``RoomPresence``: which rooms an agent is in, over a ``BandLink``, with a callback per change.

It only tracks membership (rooms listed at start, added, removed, deleted, or left by the
agent) and routes each room's events to ``on_room_event``; what happens inside a room is the
caller's (an ``Execution`` per room, a plain handler...). Membership is band_sdk_core's
``RoomRoster``, the runtime's own.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from band.core.wire import JsonObject
from band.platform.link import BandLink, LinkEvent, RoomAddedEvent, RoomDeletedEvent
from band.platform.link import RoomRemovedEvent as RoomRemovedEvent
from band.runtime.contacts.events import ContactEvent
from band.runtime.rooms.events import ParticipantRemovedEvent
from band_sdk_core import RoomRoster

__all__ = ["RoomPresence"]

log = logging.getLogger("band.runtime.presence")

RoomFilter = Callable[[JsonObject], bool]


class RoomPresence:
    """Joins the agent's rooms on a link and tells the caller as rooms come and go.

    Callbacks (each optional, set as attributes): ``on_room_joined(room_id, room)``,
    ``on_room_left(room_id)``, ``on_room_event(room_id, event)``,
    ``on_contact_event(event)``, ``on_disconnected()``. A callback that raises is logged; the
    presence carries on.
    """

    def __init__(
        self,
        link: BandLink,
        room_filter: RoomFilter | None = None,
        auto_subscribe_existing: bool = True,
    ) -> None:
        self.link = link
        self.room_filter = room_filter
        self.auto_subscribe_existing = auto_subscribe_existing
        self.roster = RoomRoster()
        self.on_room_joined: Callable[[str, JsonObject], Awaitable[None]] | None = None
        self.on_room_left: Callable[[str], Awaitable[None]] | None = None
        self.on_room_event: Callable[[str, LinkEvent], Awaitable[None]] | None = None
        self.on_contact_event: Callable[[ContactEvent], Awaitable[None]] | None = None
        self.on_disconnected: Callable[[], Awaitable[None]] | None = None
        self._task: asyncio.Task[None] | None = None
        self._lock = asyncio.Lock()

    @property
    def rooms(self) -> list[str]:
        """The rooms the agent is admitted to."""
        return list(self.roster.tracked_room_ids())

    async def start(self) -> None:
        """Connect the link if needed, follow the agent's rooms, join the existing ones."""
        async with self._lock:
            if self._task is not None:
                raise RuntimeError(
                    f"RoomPresence for agent {self.link.agent_id} is already running; "
                    "call stop() before starting again"
                )
            if not self.link.is_connected:
                await self.link.connect()
            await self.link.subscribe_agent_rooms(self.link.agent_id)
            if self.auto_subscribe_existing:
                for room in await self.link.list_rooms():
                    await self._join(str(room["id"]), room)
            self._task = asyncio.create_task(self._consume())

    async def stop(self) -> None:
        """Stop following events and leave every room (``on_room_left`` for each); the link
        stays connected."""
        async with self._lock:
            if self._task is not None:
                self._task.cancel()
                await asyncio.gather(self._task, return_exceptions=True)
                self._task = None
            for room_id in self.rooms:
                await self._leave(room_id)
            self.roster.clear()

    async def _consume(self) -> None:
        async for event in self.link:
            try:
                await self._dispatch(event)
            except Exception:
                log.exception("room presence: handling %s failed", type(event).__name__)
        await self._notify(self.on_disconnected)

    async def _dispatch(self, event: LinkEvent) -> None:
        if isinstance(event, RoomAddedEvent):
            await self._join(event.room_id or "", event.payload or {})
        elif isinstance(event, (RoomRemovedEvent, RoomDeletedEvent)):
            await self._leave(event.room_id or "")
        elif isinstance(event, ParticipantRemovedEvent) and (
            event.payload is not None and event.payload.id == self.link.agent_id
        ):
            await self._leave(event.room_id or "")
        elif event.room_id is None:
            await self._notify(self.on_contact_event, event)
        elif event.room_id in self.rooms:
            await self._notify(self.on_room_event, event.room_id, event)

    async def _join(self, room_id: str, room: JsonObject) -> None:
        passes = self.room_filter is None or bool(self.room_filter(room))
        ticket = self.roster.begin_room_admission(room_id, passes_filter=passes)
        if not room_id or ticket is None:
            return
        try:
            await self.link.subscribe_room(room_id)
            joined = True
        except Exception as exc:
            log.warning("room presence: could not join %s: %s", room_id, exc)
            joined = False
        if self.roster.record_room_admission(room_id, ticket, succeeded=joined):
            await self._notify(self.on_room_joined, room_id, room)

    async def _leave(self, room_id: str) -> None:
        if room_id not in self.rooms:
            return
        self.roster.record_room_removed(room_id)
        await self.link.unsubscribe_room(room_id)
        await self._notify(self.on_room_left, room_id)

    async def _notify(self, callback: Callable[..., Awaitable[None]] | None, *args: Any) -> None:
        if callback is None:
            return
        try:
            await callback(*args)
        except Exception:
            log.exception("room presence: callback %s failed", getattr(callback, "__name__", ""))
