"""``BandLink``: one agent's connection to Band (REST client and socket) as a stream of events.

The composition API of band-sdk (``BandLink`` + ``RoomPresence`` + your own handler) on the
runtime's pieces: the REST client, the Phoenix client that survives disconnects and rejoins its
topics, the topic-pair subscriptions and the push validator. ``Agent`` does not use it; it is
for code that runs its own loop::

    link = BandLink(agent_id, api_key, ws_url=..., rest_url=...)
    await link.connect()
    await link.subscribe_agent_rooms(agent_id)
    async for event in link:
        ...  # MessageEvent, RoomAddedEvent, ParticipantAddedEvent, contact events...
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
from collections.abc import AsyncIterator, Callable
from typing import Literal, NamedTuple

from band.client.errors import BandAPIError, NotFoundError
from band.client.phoenix import PhoenixClient, PushHandler
from band.client.rest import RestClient, path
from band.config.settings import DEFAULT_REST_URL, DEFAULT_WS_URL
from band.core.exceptions import BandConnectionError
from band.core.types import ConflictPolicy, PlatformMessage
from band.core.wire import (
    ActivityResponse,
    JsonObject,
    MessageRow,
    RoomAdded,
    Supersede,
    decode_as,
)
from band.runtime.contacts.events import ContactEvent, contact_event
from band.runtime.pushes import ROOM_MESSAGE_EVENTS, PushEvent, payload_from, valid_pushes
from band.runtime.rooms.events import (
    MessageEvent,
    ParticipantAddedEvent,
    ParticipantPayload,
    ParticipantRemovedEvent,
)
from band.runtime.rooms.messages import platform_message
from band.runtime.tools.constants import CHAT_PAGE_SIZE, MAX_CHAT_PAGES, MAX_ROOM_PAGES
from band.runtime.topics import Subscriptions
from band_sdk_core import AgentTopicKind, evaluate_delivery_event

from .settlement import SettlementResult

__all__ = [
    "ActionablePage",
    "BandLink",
    "LinkEvent",
    "RoomAddedEvent",
    "RoomDeletedEvent",
    "RoomRemovedEvent",
    "SettlementResult",
]

log = logging.getLogger("band.platform.link")

MSG = "/agent/chats/{}/messages/{}"
#: messages per page of ``get_actionable_page``
ACTIONABLE_PAGE_SIZE = 100


class ActionablePage(NamedTuple):
    """One page of a room's messages still owed to the agent, oldest first."""

    messages: list[PlatformMessage]
    next_cursor: str | None


class RoomAddedEvent(PushEvent[JsonObject]):
    """The agent was added to ``room_id`` (``payload``: the room as pushed)."""

    type: Literal["room_added"] = "room_added"


class RoomRemovedEvent(PushEvent[JsonObject]):
    """The agent was removed from ``room_id``."""

    type: Literal["room_removed"] = "room_removed"


class RoomDeletedEvent(PushEvent[JsonObject]):
    """``room_id`` was deleted."""

    type: Literal["room_deleted"] = "room_deleted"


#: What iterating a link yields.
LinkEvent = (
    MessageEvent
    | ParticipantAddedEvent
    | ParticipantRemovedEvent
    | RoomAddedEvent
    | RoomRemovedEvent
    | RoomDeletedEvent
    | ContactEvent
)


class BandLink:
    """One agent's live link to Band: ``rest`` for API calls, the socket's pushes as events.

    ``async for event in link`` yields the validated pushes of the topics joined so far, in
    arrival order, until ``disconnect()`` (or the socket gives up for good).
    """

    def __init__(
        self,
        agent_id: str,
        api_key: str,
        ws_url: str = DEFAULT_WS_URL,
        rest_url: str = DEFAULT_REST_URL,
        conflict_policy: ConflictPolicy = ConflictPolicy.SUPERSEDE,
    ) -> None:
        self.agent_id = agent_id
        self.ws_url = ws_url
        self.rest_url = rest_url
        self.conflict_policy = ConflictPolicy(conflict_policy)
        #: the agent's key (band-sdk's attribute; ``AgentRuntime(link, ...)`` connects with it)
        self.api_key = api_key
        self.rest = RestClient(api_key, rest_url)
        reject = self.conflict_policy == ConflictPolicy.REJECT
        self._phoenix = PhoenixClient(
            ws_url,
            api_key=api_key,
            params={"agent_id": agent_id},
            initial_params={"on_conflict": "reject"} if reject else None,
            on_dead=self._on_dead,
        )
        self._subscriptions = Subscriptions(self._phoenix)
        self._events: asyncio.Queue[LinkEvent | None] = asyncio.Queue()
        self._ended = asyncio.Event()
        #: why the socket ended for good (None while it lives or after ``disconnect()``)
        self.end_reason: str | None = None

    def __repr__(self) -> str:  # the key is never shown
        return f"BandLink(agent_id={self.agent_id!r}, rest_url={self.rest_url!r})"

    @property
    def is_connected(self) -> bool:
        """Whether the socket is up right now."""
        return self._phoenix.connected

    @property
    def last_disconnect_reason(self) -> str | None:
        """Why the socket ended for good, if it did."""
        return self.end_reason

    # --- connection ---------------------------------------------------------------------------

    async def connect(self) -> None:
        """Open the socket and join the agent's control topic (``BandConnectionError`` if the
        platform refuses, e.g. another connection holds the agent under REJECT)."""
        self._ended.clear()
        await self._phoenix.connect()
        await self._subscriptions.join_agent_topic(
            AgentTopicKind.Control.topic(self.agent_id), valid_pushes(self._on_control)
        )

    async def disconnect(self) -> None:
        """Close the socket and the REST pool; iteration ends."""
        await self._phoenix.close()
        await self.rest.aclose()
        self._end()

    async def run_forever(self, *, install_signal_handlers: bool = True) -> None:
        """Wait until the link ends (socket gone for good, or SIGINT/SIGTERM when
        ``install_signal_handlers``), then disconnect."""
        loop = asyncio.get_running_loop()
        installed = []
        if install_signal_handlers:
            for sig in (signal.SIGINT, signal.SIGTERM):
                with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                    loop.add_signal_handler(sig, self._ended.set)
                    installed.append(sig)
        try:
            await self._ended.wait()
        finally:
            for sig in installed:
                loop.remove_signal_handler(sig)
            await self.disconnect()

    # --- subscriptions ------------------------------------------------------------------------

    async def subscribe_agent_rooms(self, agent_id: str) -> None:
        """Receive ``RoomAddedEvent`` / ``RoomRemovedEvent`` for the agent."""
        await self._subscriptions.join_agent_topic(
            AgentTopicKind.Rooms.topic(agent_id), valid_pushes(self._on_rooms)
        )

    async def subscribe_agent_contacts(self, agent_id: str) -> None:
        """Receive the agent's contact events."""
        await self._subscriptions.join_agent_topic(
            AgentTopicKind.Contacts.topic(agent_id), valid_pushes(self._on_contacts)
        )

    async def unsubscribe_agent_contacts(self) -> None:
        """Stop receiving the agent's contact events."""
        await self._phoenix.leave(AgentTopicKind.Contacts.topic(self.agent_id))

    async def subscribe_room(self, room_id: str) -> None:
        """Receive the room's messages and participant changes (``BandConnectionError``
        when the platform refuses the join)."""
        joined = await self._subscriptions.join_room(
            room_id,
            self._room_handler(room_id),
            self._participants_handler(room_id),
            message_events=ROOM_MESSAGE_EVENTS,
        )
        if not joined:
            raise BandConnectionError(f"could not subscribe to room {room_id}")

    async def unsubscribe_room(self, room_id: str) -> None:
        """Stop receiving the room's events."""
        await self._subscriptions.leave_room(room_id)

    def is_room_subscribed(self, room_id: str) -> bool:
        """Whether both of the room's topics are joined."""
        return room_id in self._subscriptions.subscribed_rooms()

    async def list_rooms(self) -> list[JsonObject]:
        """The agent's rooms as the platform lists them (every page, up to ``MAX_ROOM_PAGES``
        of 100: band-sdk reads 50)."""
        rooms: dict[str, JsonObject] = {}
        for page in range(1, MAX_ROOM_PAGES + 1):
            resp = await self.rest.request(
                "GET", "/agent/chats", params={"page": page, "page_size": CHAT_PAGE_SIZE}
            )
            rows = resp.data if isinstance(resp.data, list) else []
            rooms.update(
                (str(r["id"]), r) for r in rows if isinstance(r, dict) and r.get("id") is not None
            )
            total = resp.paging.total_pages
            if total is None or page >= total:
                break
        return list(rooms.values())

    # --- message marks ------------------------------------------------------------------------

    async def mark_processing(self, room_id: str, message_id: str) -> bool:
        """Open the processing attempt of a message; False when the platform did not."""
        resp = await self.rest.request("POST", path(MSG + "/processing", room_id, message_id))
        return resp.status_code == 200

    async def mark_processed(self, room_id: str, message_id: str) -> bool:
        """Settle a message as processed; True when the platform confirmed it."""
        return await self._settle(room_id, message_id, "processed") == SettlementResult.ACCEPTED

    async def mark_failed(self, room_id: str, message_id: str, error: str) -> bool:
        """Settle a message as failed with ``error``; True when the platform confirmed it."""
        result = await self._settle(room_id, message_id, "failed", error)
        return result == SettlementResult.ACCEPTED

    async def mark_processed_result(self, room_id: str, message_id: str) -> SettlementResult:
        """``mark_processed``, telling why it did not settle."""
        return await self._settle(room_id, message_id, "processed")

    async def mark_failed_result(
        self, room_id: str, message_id: str, error: str
    ) -> SettlementResult:
        """``mark_failed``, telling why it did not settle."""
        return await self._settle(room_id, message_id, "failed", error)

    async def report_activity(
        self,
        room_id: str,
        working: bool,
        *,
        timeout_seconds: int = 2,
        on_stopped: Callable[[], None] | None = None,
    ) -> bool:
        """Tell the room whether the agent is working; False when the report did not go
        through (never raises). ``on_stopped`` runs when the platform answers a ``working``
        report with the execution stopped."""
        try:
            resp = await asyncio.wait_for(
                self.rest.request(
                    "POST",
                    path("/agent/chats/{}/activity", room_id),
                    json={"working": working},
                    retries=0,
                ),
                timeout_seconds,
            )
        except Exception as exc:  # an indicator must never break message handling
            log.debug("room %s: working=%s not reported: %s", room_id, working, exc)
            return False
        answer = resp.data_as(ActivityResponse)
        if working and answer is not None and answer.working is False and on_stopped:
            on_stopped()
        return True

    async def get_next_message(self, room_id: str) -> PlatformMessage | None:
        """The next message the room owes the agent; None only when there is none (errors
        raise)."""
        resp = await self.rest.request("GET", path("/agent/chats/{}/messages/next", room_id))
        if resp.status_code == 204 or not isinstance(resp.data, dict):
            return None
        return platform_message(resp.data, room_id)

    async def get_actionable_page(
        self, room_id: str, *, cursor: str | None = None
    ) -> ActionablePage:
        """One page of the messages the room owes the agent, oldest first."""
        params: dict[str, str | int] = {"sort_order": "asc", "limit": ACTIONABLE_PAGE_SIZE}
        if cursor is not None:
            params["cursor"] = cursor
        resp = await self.rest.request(
            "GET", path("/agent/chats/{}/messages", room_id), params=params
        )
        rows = resp.data if isinstance(resp.data, list) else []
        messages = [platform_message(r, room_id) for r in rows if isinstance(r, dict)]
        paging = resp.paging
        return ActionablePage(messages, paging.next_cursor if paging.has_more else None)

    async def get_actionable_message(self, room_id: str, message_id: str) -> PlatformMessage | None:
        """Message ``message_id`` if the room still owes it to the agent."""
        params: dict[str, str | int] = {"sort_order": "asc", "limit": ACTIONABLE_PAGE_SIZE}
        url = path("/agent/chats/{}/messages", room_id)
        async for resp in self.rest.pages(url, params):  # the REST client's one paging rule
            for row in resp.data if isinstance(resp.data, list) else []:
                if isinstance(row, dict) and row.get("id") == message_id:
                    return platform_message(row, room_id)
        return None

    async def get_stale_processing_messages(self, room_id: str) -> list[PlatformMessage]:
        """The room's messages left in ``processing`` (a listing for diagnostics)."""
        out: list[PlatformMessage] = []
        for page in range(1, MAX_CHAT_PAGES + 1):
            resp = await self.rest.request(
                "GET",
                path("/agent/chats/{}/messages", room_id),
                params={"status": "processing", "page": page},
            )
            rows = resp.data if isinstance(resp.data, list) else []
            out += [platform_message(r, room_id) for r in rows if isinstance(r, dict)]
            total = resp.paging.total_pages
            if total is None or page >= total:
                break
        return out

    async def _settle(
        self, room_id: str, message_id: str, status: str, error: str | None = None
    ) -> SettlementResult:
        body = {"error": error.strip() or "Unknown error"} if error is not None else None
        try:
            resp = await self.rest.request(
                "POST", path(MSG + "/" + status, room_id, message_id), json=body
            )
        except NotFoundError:
            return SettlementResult.NOT_FOUND
        except BandAPIError as exc:
            if exc.status_code == 422 and "/processing_attempt" in exc.details:
                return SettlementResult.REJECTED
            return SettlementResult.UNCONFIRMED
        except BandConnectionError:
            return SettlementResult.UNCONFIRMED
        return (
            SettlementResult.ACCEPTED if resp.status_code == 200 else SettlementResult.UNCONFIRMED
        )

    # --- events -------------------------------------------------------------------------------

    def __aiter__(self) -> AsyncIterator[LinkEvent]:
        return self._iterate()

    async def _iterate(self) -> AsyncIterator[LinkEvent]:
        while True:
            event = await self._events.get()
            if event is None:
                return
            yield event

    def queue_event(self, event: LinkEvent) -> None:
        """Hand ``event`` to the iterator as if it had been pushed."""
        self._events.put_nowait(event)

    def _end(self) -> None:
        if not self._ended.is_set():
            self._ended.set()
        self._events.put_nowait(None)

    async def _on_dead(self, reason: str) -> None:
        self.end_reason = reason
        self._end()

    def _on_control(self, event: str, data: JsonObject) -> None:
        if event == "supersede":
            superseded = decode_as(Supersede, data)
            self._phoenix.supersede(
                retryable=superseded.retryable, retry_after_s=superseded.retry_after
            )

    def _on_rooms(self, event: str, data: JsonObject) -> None:
        if event == "room_added":
            room_id = str(decode_as(RoomAdded, data).id)
            self.queue_event(RoomAddedEvent(room_id=room_id, payload=data, raw=data))
        elif event == "room_removed":
            decision = evaluate_delivery_event(event, None, data, self.agent_id)
            room_id = str(decision.get("room_id"))
            self.queue_event(RoomRemovedEvent(room_id=room_id, payload=data, raw=data))

    def _on_contacts(self, event: str, data: JsonObject) -> None:
        typed = contact_event(event, data)
        if typed is not None:
            self.queue_event(typed)

    def _room_handler(self, room_id: str) -> PushHandler:
        @valid_pushes
        def on_push(event: str, data: JsonObject) -> None:
            if event != "message_created":
                return
            row = decode_as(MessageRow, data)
            self.queue_event(MessageEvent.from_row(row, data, room_id))

        return on_push

    def _participants_handler(self, room_id: str) -> PushHandler:
        @valid_pushes
        def on_push(event: str, data: JsonObject) -> None:
            if event == "room_deleted":
                self.queue_event(RoomDeletedEvent(room_id=room_id, payload=data, raw=data))
            elif event == "participant_added":
                added = payload_from(ParticipantPayload, data)
                self.queue_event(ParticipantAddedEvent(room_id=room_id, payload=added, raw=data))
            elif event == "participant_removed":
                gone = payload_from(ParticipantPayload, data)
                self.queue_event(ParticipantRemovedEvent(room_id=room_id, payload=gone, raw=data))

        return on_push
