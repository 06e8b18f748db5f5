"""``ContactEventHandler``: routes the agent's contact events by its ``ContactEventConfig``.

Agent-wide (one per runtime, not per room). Events are handled one at a time, in arrival
order, on the handler's own task, so a slow callback never holds up the socket. An event
seen before (same request and status, same contact) is skipped once it was handled.
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from collections.abc import Awaitable, Callable

from band.client.errors import BandError
from band.client.http11 import QueryParams
from band.client.rest import RestClient, path
from band.core.wire import ListAgentContactRequestsResponseData
from band.runtime.contacts.config import ContactEventConfig, ContactEventStrategy
from band.runtime.contacts.events import (
    ContactEvent,
    ContactRequestReceivedEvent,
    ContactRequestUpdatedEvent,
)
from band.runtime.contacts.text import broadcast_text, event_text
from band.runtime.contacts.tools import ContactTools

__all__ = ["ContactEventHandler", "HubTurn", "dedupe_key"]

log = logging.getLogger("band.runtime.contacts.handler")

#: Handled events and request details remembered (oldest forgotten first).
MEMORY = 1000

#: ``await hub_turn(text)``: run ``text`` as a hub-room turn; the hub room id, or None.
HubTurn = Callable[[str], Awaitable[str | None]]


def dedupe_key(event: ContactEvent) -> str | None:
    """What makes two deliveries of ``event`` the same event."""
    if event.payload is None:
        return None
    if isinstance(event, ContactRequestUpdatedEvent):
        return f"{event.type}:{event.payload.id}:{event.payload.status}"
    return f"{event.type}:{event.payload.id}"


class ContactEventHandler:
    """Applies the configured strategy (and broadcasts) to each contact event."""

    def __init__(
        self,
        config: ContactEventConfig,
        rest: RestClient,
        *,
        on_broadcast: Callable[[str], None] | None = None,
        hub_turn: HubTurn | None = None,
    ) -> None:
        self.config = config
        self.rest = rest
        self.on_broadcast = on_broadcast
        self.hub_turn = hub_turn
        self.contact_tools = ContactTools(rest)
        self.handled = 0
        self._done: OrderedDict[str, None] = OrderedDict()
        self._requests: OrderedDict[str, dict[str, str | None]] = OrderedDict()
        self._queue: asyncio.Queue[ContactEvent] = asyncio.Queue()
        self._worker: asyncio.Task[None] | None = None

    def __repr__(self) -> str:
        return f"ContactEventHandler(strategy={self.config.strategy.value!r})"

    def submit(self, event: ContactEvent) -> None:
        """Queue ``event`` (called from the socket reader)."""
        if self._worker is None or self._worker.done():
            self._worker = asyncio.ensure_future(self._run())
        self._queue.put_nowait(event)

    async def close(self) -> None:
        """Stop handling events (a callback still running is cancelled)."""
        if self._worker is not None:
            # cancelled again until it ends: an HTTP call can swallow a cancellation
            while not self._worker.done():
                self._worker.cancel()
                await asyncio.wait({self._worker}, timeout=0.5)
            self._worker = None

    async def _run(self) -> None:
        while True:
            event = await self._queue.get()
            try:
                await self.handle(event)
            except Exception:
                log.exception("contact event %s could not be handled", event.type)

    async def handle(self, event: ContactEvent) -> None:
        """Broadcast and route one event; it counts as handled only when its route succeeded."""
        key = dedupe_key(event)
        if key is not None and key in self._done:
            log.debug("contact event %s seen before; skipped", key)
            return
        self._remember_request(event)
        if self.config.broadcast_changes and self.on_broadcast is not None:
            text = broadcast_text(event)
            if text is not None:
                self.on_broadcast(text)
        strategy = self.config.strategy
        ok = True
        if strategy == ContactEventStrategy.CALLBACK:
            ok = await self._callback(event)
        elif strategy == ContactEventStrategy.HUB_ROOM:
            ok = await self._hub(event)
        if ok and key is not None:
            self._done[key] = None
            while len(self._done) > MEMORY:
                self._done.popitem(last=False)
        self.handled += 1

    async def _callback(self, event: ContactEvent) -> bool:
        if self.config.on_event is None:
            return True
        try:
            await self.config.on_event(event, self.contact_tools)
        except Exception:
            # the user's code failed: logged; the event may be handled again if it comes back
            log.exception("contact event callback failed on %s", event.type)
            return False
        return True

    async def _hub(self, event: ContactEvent) -> bool:
        if self.hub_turn is None:
            return False
        text = event_text(event, await self._request_info(event))
        room_id = await self.hub_turn(text)
        if room_id is None:
            log.warning("contact event %s not handed to the hub room (not ready)", event.type)
            return False
        # a visible trace in the hub room; the turn itself never depends on it
        body = {
            "content": text,
            "message_type": "task",
            "metadata": {"contact_event_type": event.type},
        }
        try:
            await self.rest.request(
                "POST", path("/agent/chats/{}/events", room_id), json={"event": body}
            )
        except BandError as exc:
            log.warning("could not post the contact event to the hub room: %s", exc)
        return True

    # --- who a request update is about ----------------------------------------------------------

    def _remember_request(self, event: ContactEvent) -> None:
        if isinstance(event, ContactRequestReceivedEvent) and event.payload is not None:
            p = event.payload
            info = {"from_handle": p.from_handle, "from_name": p.from_name, "message": p.message}
            self._keep(p.id, info)

    def _keep(self, request_id: str, info: dict[str, str | None]) -> None:
        self._requests[request_id] = info
        while len(self._requests) > MEMORY:
            self._requests.popitem(last=False)

    async def _request_info(self, event: ContactEvent) -> dict[str, str | None] | None:
        """Who an update's request is from or to: remembered, else looked up on the platform."""
        if not isinstance(event, ContactRequestUpdatedEvent) or event.payload is None:
            return None
        request_id = event.payload.id
        if request_id in self._requests:
            return self._requests[request_id]
        params: QueryParams = {"page": 1, "page_size": 100, "sent_status": "all"}
        try:
            resp = await self.rest.request("GET", "/agent/contacts/requests", params=params)
        except BandError as exc:
            log.warning("could not look up contact request %s: %s", request_id, exc)
            return None
        data = resp.data_as(ListAgentContactRequestsResponseData)
        if data is None:
            return None
        info: dict[str, str | None] | None = None
        for got in data.received:
            if got.id == request_id:
                info = {
                    "from_handle": got.from_handle,
                    "from_name": got.from_name,
                    "message": got.message,
                }
        for sent in data.sent:
            if info is None and sent.id == request_id:
                info = {
                    "to_handle": sent.to_handle,
                    "to_name": sent.to_name,
                    "message": sent.message,
                }
        if info is not None:
            self._keep(request_id, info)
        return info
