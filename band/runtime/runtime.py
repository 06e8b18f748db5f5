"""``AgentRuntime``: the agent's connection to Band, its rooms and their executions."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
from collections import OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from typing import Any

from band.client.phoenix import PhoenixClient, PushHandler
from band.client.rest import RestClient, RestResponse
from band.core.preprocessor import Preprocessor
from band.core.simple_adapter import SimpleAdapter
from band.core.wire import (
    AgentControl,
    AgentMe,
    JsonObject,
    ParticipantRemoved,
    Room,
    RoomAdded,
    Supersede,
    decode_as,
    to_dict,
)
from band.runtime.adapter_lifecycle import dispose_adapter, start_adapter
from band.runtime.agentconfig import AgentConfig, ConflictPolicy
from band.runtime.capabilities import prune_unsupported
from band.runtime.composed import (
    ControlCallback,
    ExecuteHandler,
    ExecutionContext,
    ExecutionFactory,
    FactoryRoom,
    HandlerTurns,
    Link,
    MessageControl,
    SessionCleanup,
    participant_turn,
)
from band.runtime.contacts.config import ContactEventConfig, ContactEventStrategy
from band.runtime.contacts.events import contact_event
from band.runtime.contacts.handler import ContactEventHandler
from band.runtime.contacts.hub import ContactsHub
from band.runtime.pushes import ROOM_MESSAGE_EVENTS, payload_from, valid_messages, valid_pushes
from band.runtime.rooms.events import (
    ParticipantAddedCallback,
    ParticipantAddedEvent,
    ParticipantPayload,
    ParticipantRemovedCallback,
    ParticipantRemovedEvent,
)
from band.runtime.rooms.execution import RoomExecution
from band.runtime.rooms.settlement import Delivery
from band.runtime.sessionconfig import SessionConfig
from band.runtime.tools.constants import CHAT_PAGE_SIZE, MAX_ROOM_PAGES
from band.runtime.topics import Subscriptions
from band.runtime.trace import TurnRecorder
from band.runtime.trace_otel import otel_sink
from band_sdk_core import (
    AgentTopicKind,
    ClaimRegistry,
    RetryTracker,
    RoomRoster,
    evaluate_delivery_event,
)

__all__ = ["AgentRuntime"]

log = logging.getLogger("band.runtime")

ROOM_PAGE_SIZE = CHAT_PAGE_SIZE
#: How many agent.control correlation ids are remembered to drop duplicates.
CONTROL_DEDUPE = 256


class AgentRuntime:
    """Connects one agent: identity, socket, room subscriptions and one execution per room.

    ``Agent`` builds it with keywords (``agent_id=, api_key=, rest_url=, ws_url=, adapter=,
    config=``). band-sdk's composition call works too: ``AgentRuntime(link, agent_id,
    on_execute)`` runs the same runtime on the ``BandLink``'s REST client and credentials,
    with ``on_execute(ctx, event)`` as each room's turn (``band.runtime.composed``), or with
    ``execution_factory``'s own execution per room. The runtime opens its own socket with the
    link's credentials: leave the link unconnected (``stop()`` disconnects it).
    """

    def __init__(
        self,
        link: Link | None = None,
        agent_id: str | None = None,
        on_execute: ExecuteHandler | None = None,
        execution_factory: ExecutionFactory | None = None,
        room_filter: Callable[[JsonObject], bool] | None = None,
        session_config: SessionConfig | None = None,
        on_session_cleanup: SessionCleanup | None = None,
        on_control: ControlCallback | None = None,
        on_message_control: MessageControl | None = None,
        on_participant_added: ParticipantAddedCallback | None = None,
        on_participant_removed: ParticipantRemovedCallback | None = None,
        *,
        api_key: str | None = None,
        rest_url: str | None = None,
        ws_url: str | None = None,
        adapter: SimpleAdapter[Any] | None = None,
        config: AgentConfig | None = None,
        contact_config: ContactEventConfig | None = None,
        preprocessor: Preprocessor | None = None,
    ) -> None:
        self.link = link
        self._turns: HandlerTurns | None = None
        rest: RestClient | None = None
        if link is not None:  # band-sdk's composition: AgentRuntime(link, agent_id, on_execute)
            if on_execute is None or adapter is not None or api_key is not None:
                raise TypeError(
                    "AgentRuntime takes a BandLink with on_execute (band-sdk's composition) "
                    "or api_key/rest_url/ws_url with an adapter, not both"
                )
            agent_id = agent_id or link.agent_id
            api_key, rest_url, ws_url, rest = link.api_key, link.rest_url, link.ws_url, link.rest
            config = config or AgentConfig(conflict_policy=link.conflict_policy)
            self._turns = adapter = HandlerTurns(
                on_execute,
                on_session_cleanup=on_session_cleanup,
                on_control=on_control,
                on_message_control=on_message_control,
            )
            preprocessor = preprocessor or self._turns
        elif on_execute is not None or execution_factory is not None:
            raise TypeError("on_execute needs a BandLink: AgentRuntime(link, agent_id, on_execute)")
        if not (agent_id and api_key and rest_url and ws_url and adapter is not None):
            raise TypeError(
                "AgentRuntime needs agent_id, api_key, rest_url, ws_url and adapter "
                "(or band-sdk's AgentRuntime(link, agent_id, on_execute))"
            )
        config = config or AgentConfig()
        session_config = session_config or SessionConfig()
        self.room_filter = room_filter
        self.execution_factory = execution_factory
        self.agent_id = agent_id
        self.contact_config = contact_config or ContactEventConfig()
        self.preprocessor = preprocessor
        self.on_participant_added = on_participant_added
        self.on_participant_removed = on_participant_removed
        self.adapter = adapter
        self.config = config
        self.session_config = session_config
        self.agent_name = ""
        self.agent_description = ""
        self.rest = rest or RestClient(api_key, rest_url)
        #: each turn's timeline: one INFO line per turn on ``band.turns``, ``recent()`` traces
        otel = otel_sink()  # None unless opentelemetry-api is installed
        self.turn_recorder = TurnRecorder(agent_id, sinks=[otel] if otel is not None else [])
        params = {"agent_id": agent_id}
        initial = (
            {"on_conflict": "reject"} if config.conflict_policy == ConflictPolicy.REJECT else {}
        )
        self.phoenix = PhoenixClient(
            ws_url,
            api_key=api_key,
            params=params,
            initial_params=initial,
            policy=config.session_policy,
            on_connected=self._on_connected,
            on_dead=self._on_dead,
        )
        self.subscriptions = Subscriptions(self.phoenix)
        # the budget counts runs of the adapter: 0 would never run a message, so it means 1
        self.retries = RetryTracker(max(1, session_config.max_message_retries))
        self.delivery = Delivery(self.rest, ClaimRegistry(), self.retries)
        self.rooms: dict[str, RoomExecution | FactoryRoom] = {}
        self._listing: dict[str, Room] = {}  # the last room listing, by id
        #: the last listing stopped at MAX_ROOM_PAGES: a room absent from it may still be ours
        self._listing_cut = False
        self.hub: ContactsHub | None = None
        if self.contact_config.strategy == ContactEventStrategy.HUB_ROOM:
            self.hub = ContactsHub(self.rest, self.contact_config.hub_task_id, self)
        self.contacts: ContactEventHandler | None = None
        if self.contact_config.enabled:
            self.contacts = ContactEventHandler(
                self.contact_config,
                self.rest,
                on_broadcast=self._broadcast,
                hub_turn=self.hub.turn if self.hub is not None else None,
            )
        self.membership = RoomRoster()  # which rooms the agent is admitted to
        self.ended = asyncio.Event()
        self.end_reason: str | None = None
        self._stop_asked = asyncio.Event()  # ends run(): stop() or a signal
        self._stop_now = asyncio.Event()  # ends stop()'s wait for running turns
        #: True while joined to the agent's contacts topic (band-sdk: is_contacts_subscribed)
        self.contacts_subscribed = False
        self._controls: OrderedDict[str, None] = OrderedDict()
        self._tasks: set[asyncio.Future[None]] = set()

    @property
    def is_contacts_subscribed(self) -> bool:
        """True while the agent receives its contact events."""
        return self.contacts_subscribed

    def __repr__(self) -> str:
        return f"AgentRuntime(agent_id={self.agent_id!r}, rooms={len(self.rooms)})"

    # --- start and stop -----------------------------------------------------------------------

    async def start(self) -> None:
        """Identify the agent, connect the socket, join its topics and rooms."""
        self._stop_asked.clear()
        self._stop_now.clear()
        me = (await self.rest.request("GET", "/agent/me")).data_as(AgentMe) or AgentMe()
        self.agent_name = me.name or self.agent_id
        self.agent_description = me.description or ""
        if not self.agent_description:
            raise ValueError(f"Agent {self.agent_id} has no description")
        # a capability the deployment does not serve is dropped, not offered as failing tools
        features = prune_unsupported(self.adapter.features, me.feature_flags)
        if features is not self.adapter.features:
            dropped = sorted(
                c.value for c in self.adapter.features.capabilities - features.capabilities
            )
            log.warning("the platform does not serve capability/-ies %s: not offered", dropped)
        # an adapter acting outside turns (the ACP server side) gets the agent's client and id
        attach = getattr(self.adapter, "attach_platform", None)
        if callable(attach):
            attach(self.rest, self.agent_id)
        # band-sdk passes the resolved features (an adapter may override startup(features=))
        await start_adapter(
            self.adapter,
            agent_name=self.agent_name,
            agent_description=self.agent_description,
            feature_flags=me.feature_flags,
        )
        await self.phoenix.connect()
        await self._join_agent_topics()
        if self.config.auto_subscribe_existing_rooms:
            await self._first_sync()
        if self.hub is not None:
            await self.hub.setup((self._listing or await self._room_listing()).values())

    async def stop(self, timeout: float | None = None) -> bool:
        """Stop the rooms' work, close the socket and the REST pool.

        Running turns get ``timeout`` seconds to finish (None: cancelled at once); returns
        False when one had to be cancelled.
        """
        self.contacts_subscribed = False
        self._stop_asked.set()
        rooms, self.rooms = list(self.rooms.values()), {}
        results = await asyncio.gather(
            *(room.close(timeout, self._stop_now) for room in rooms), return_exceptions=True
        )
        graceful = all(r is True for r in results)
        for task in list(self._tasks):
            task.cancel()
        if self.contacts is not None:
            await self.contacts.close()
        await self.phoenix.close()
        try:
            await dispose_adapter(self.adapter)  # cleanup_all, once per start
        finally:
            await self.rest.aclose()
            if self.link is not None:  # band-sdk's stop() disconnects the link too
                await self.link.disconnect()
        return graceful

    def running_turns(self) -> int:
        """How many turns are running now (one at most per room)."""
        return sum(room.turn_running for room in self.rooms.values())

    def stop_now(self) -> None:
        """Cut a :meth:`stop` that waits for running turns short: they are cancelled now
        (their messages stay unprocessed and are answered at the next start)."""
        self._stop_now.set()

    async def run(self, *, install_signal_handlers: bool = True) -> None:
        """Start, run until the socket ends for good (or SIGINT/SIGTERM when
        ``install_signal_handlers``; or ``stop()`` from elsewhere), then stop."""
        loop = asyncio.get_running_loop()
        installed = []
        if install_signal_handlers:
            for sig in (signal.SIGINT, signal.SIGTERM):
                with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                    loop.add_signal_handler(sig, self._stop_asked.set)
                    installed.append(sig)
        try:
            await self.start()
            waits = [asyncio.ensure_future(e.wait()) for e in (self.ended, self._stop_asked)]
            try:
                await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
            finally:
                for wait in waits:
                    wait.cancel()
        finally:
            for sig in installed:
                loop.remove_signal_handler(sig)
            await self.stop()

    async def _join_agent_topics(self) -> None:
        control = AgentTopicKind.Control.topic(self.agent_id)
        rooms = AgentTopicKind.Rooms.topic(self.agent_id)
        contacts = AgentTopicKind.Contacts.topic(self.agent_id)
        joins = [
            self.subscriptions.join_agent_topic(control, valid_pushes(self._on_control)),
            self.subscriptions.join_agent_topic(rooms, valid_pushes(self._on_rooms)),
        ]
        if self.contacts is not None:  # nothing to do with contact events otherwise
            on_contacts = valid_pushes(self._on_contacts)
            joins.append(self.subscriptions.join_agent_topic(contacts, on_contacts))
        await asyncio.gather(*joins)  # pipelined: one round trip, not one per topic
        if self.contacts is not None:
            self.contacts_subscribed = True

    # --- rooms --------------------------------------------------------------------------------

    async def _room_pages(self) -> AsyncIterator[list[Room]]:
        """The agent's room listing, page by page as each arrives (an id may repeat)."""

        async def page(n: int) -> RestResponse:
            params = {"page": n, "page_size": ROOM_PAGE_SIZE}
            return await self.rest.request("GET", "/agent/chats", params=params)

        def rows(resp: RestResponse) -> list[Room]:
            return [room for room in resp.rows_as(Room) if room.id is not None]

        # page 1 tells how many there are; the rest are fetched at once, not one round trip each
        first = await page(1)
        yield rows(first)
        total = first.paging.total_pages
        pages = min(total, MAX_ROOM_PAGES) if total is not None else 1
        self._listing_cut = total is not None and total > pages
        if self._listing_cut:
            log.warning(
                "the platform lists %d pages of rooms for this agent; only the first %d "
                "(%d rooms) are joined: rooms past them get no messages until it is added again",
                total,
                pages,
                pages * ROOM_PAGE_SIZE,
            )
        for resp in asyncio.as_completed([page(n) for n in range(2, pages + 1)]):
            yield rows(await resp)

    async def _room_ids(self) -> list[str]:
        """Every room of the agent, across all pages."""
        rooms: dict[str, Room] = {}
        async for page_rooms in self._room_pages():
            rooms.update((room.id, room) for room in page_rooms if room.id is not None)
        self._listing = rooms
        return list(rooms)

    async def _room_listing(self) -> dict[str, Room]:
        """The agent's rooms by id, as listed by the platform."""
        await self._room_ids()
        return self._listing

    @property
    def hub_room_id(self) -> str | None:
        """The contacts hub room (HUB_ROOM strategy, once started)."""
        return self.hub.room_id if self.hub is not None else None

    async def _first_sync(self) -> None:
        """Join the agent's rooms at start, each page's rooms as soon as the page arrives.

        Nothing is admitted yet, so there is nothing to drop and no full snapshot is needed
        before joining; as in ``_sync_rooms`` every room is joined before any starts.
        """
        rooms: dict[str, Room] = {}
        joins: list[asyncio.Future[RoomExecution | FactoryRoom | None]] = []
        try:
            async for page_rooms in self._room_pages():
                for listed in page_rooms:
                    room_id = listed.id
                    if room_id is None or room_id in rooms:
                        continue
                    rooms[room_id] = listed
                    ticket = self.membership.begin_room_admission(
                        room_id, passes_filter=self._wanted(to_dict(listed))
                    )
                    if ticket is not None:
                        joins.append(
                            asyncio.ensure_future(self._admit(room_id, ticket, start=False))
                        )
            admitted = await asyncio.gather(*joins)
        except BaseException:
            for join in joins:
                join.cancel()
            raise
        self._listing = rooms
        for room in admitted:
            if room is not None:
                self._start(room)

    async def _sync_rooms(self, known: Iterable[str] = ()) -> None:
        """Join new rooms, drop rooms that are gone, resync the ones that stayed.

        ``known``: the rooms the agent was in before (a listing cut at ``MAX_ROOM_PAGES`` does
        not show the ones past it, and they are kept).
        """
        ids = await self._room_ids()
        if self.room_filter is not None:  # a room the filter refuses is not the agent's here
            ids = [i for i in ids if self._wanted(to_dict(self._listing[i]))]
        if self._listing_cut:  # a room of ours past the pages read is not gone: kept
            ids = list(dict.fromkeys([*ids, *known, *self.rooms]))
        plan = self.membership.reconcile(ids)
        for room_id in plan.removed:
            await self._drop_room(room_id)
        for room_id in plan.resync:
            room = self.rooms.get(room_id)
            if room is not None:
                room.request_drain()
        # every room is joined before any starts: the start-up /next drains (one per room) would
        # otherwise compete with the remaining joins on the platform; pushes that arrive in
        # between wait in their room's queue behind its drain
        admitted = await asyncio.gather(
            *(self._admit(room_id, t, start=False) for room_id, t in plan.admitting)
        )
        for room in admitted:
            if room is not None:
                self._start(room)

    def _wanted(self, room: JsonObject) -> bool:
        """Whether ``room_filter`` (band-sdk's composition) lets the agent join ``room``."""
        return self.room_filter is None or bool(self.room_filter(room))

    async def _add_room(self, room_id: str, room: JsonObject | None = None) -> None:
        wanted = self._wanted(room or {"id": room_id})
        ticket = self.membership.begin_room_admission(room_id, passes_filter=wanted)
        if ticket is not None:
            await self._admit(room_id, ticket)

    async def _admit(
        self, room_id: str, ticket: int, *, start: bool = True
    ) -> RoomExecution | FactoryRoom | None:
        """Subscribe to a room and start its execution (unless it was removed meanwhile).

        With ``start=False`` the admitted room is returned for the caller to ``_start``.
        """
        room = self._new_room(room_id)
        self.rooms[room_id] = room  # live pushes right after the join reach its queue
        joined = await self.subscriptions.join_room(
            room_id,
            self._room_handler(room_id),
            self._participants_handler(room_id),
            message_events=ROOM_MESSAGE_EVENTS,
        )
        admitted = self.membership.record_room_admission(room_id, ticket, succeeded=joined)
        if not admitted:
            if self.rooms.get(room_id) is room:
                del self.rooms[room_id]
            if joined:
                await self.subscriptions.leave_room(room_id)
            return None
        log.info("joined room %s", room_id)
        if start:
            self._start(room)
        return room

    def _new_room(self, room_id: str) -> RoomExecution | FactoryRoom:
        """The room's execution: the runtime's own, or band-sdk's ``execution_factory``'s."""
        if self.execution_factory is not None and self._turns is not None:
            try:
                own = self.execution_factory(room_id, self.link, hub_room_id=self.hub_room_id)
            except TypeError:  # band-sdk's older factories take (room_id, link) only
                own = self.execution_factory(room_id, self.link)
            return FactoryRoom(own, self._turns, self._context(room_id))
        return RoomExecution(
            self._context(room_id),  # what the room's preprocessor gets as ``ctx``
            delivery=self.delivery,
            adapter=self.adapter,
            preprocessor=self.preprocessor,
            recorder=self.turn_recorder,
        )

    def _context(self, room_id: str) -> ExecutionContext:
        """A new room's context, made of the agent's own pieces."""
        return ExecutionContext(
            room_id,
            agent_id=self.agent_id,
            rest=self.rest,
            config=self.session_config,
            hub_room_id=self.hub_room_id,
        )

    def _start(self, room: RoomExecution | FactoryRoom) -> None:
        """Start an admitted room's execution, unless it was dropped since."""
        if self.rooms.get(room.room_id) is not room:
            return
        room.start()
        if self.hub is not None:
            self.hub.joined(room.room_id)

    async def _drop_room(self, room_id: str) -> None:
        """Leave a room the agent is no longer in."""
        self.membership.record_room_removed(room_id)
        if self.hub is not None:
            self.hub.left(room_id)
        room = self.rooms.pop(room_id, None)
        await self.subscriptions.leave_room(room_id)
        if room is not None:
            log.info("left room %s", room_id)
            await room.close()

    # --- contacts ------------------------------------------------------------------------------

    def _broadcast(self, text: str) -> None:
        """Tell every room's next turn about a contact change."""
        for room in self.rooms.values():
            room.inject_system_message(text)

    # --- pushes (called from the socket reader: only validate and dispatch) -------------------

    def _room_handler(self, room_id: str) -> PushHandler:
        def submit(message: JsonObject) -> None:  # a message_created the delivery calls to run
            room = self.rooms.get(room_id)
            if room is not None:
                room.submit(message)

        return valid_messages(room_id, self.agent_id, submit)

    def _participants_handler(self, room_id: str) -> PushHandler:
        @valid_pushes
        def on_push(event: str, data: JsonObject) -> None:
            if event == "room_deleted":
                self._spawn(self._drop_room(room_id))
            elif event in ("participant_added", "participant_removed"):
                self._participant_changed(room_id, event == "participant_added", data)

        return on_push

    def _participant_changed(self, room_id: str, added: bool, data: JsonObject) -> None:
        """Apply a participant push to the room's roster, then hand it to the user's callback."""
        room = self.rooms.get(room_id)
        if room is None:
            return
        if not added and decode_as(ParticipantRemoved, data).id == self.agent_id:
            self._spawn(self._drop_room(room_id))  # the agent itself left: the room is gone
            return
        if added:
            room.participants.added(data)
        else:
            room.participants.removed(data)
        room.participants_changed()
        payload = payload_from(ParticipantPayload, data)
        if isinstance(room, FactoryRoom):  # band-sdk's custom execution hears it itself
            kind = ParticipantAddedEvent if added else ParticipantRemovedEvent
            room.deliver(kind(room_id=room_id, payload=payload, raw=data))
        elif self._turns is not None:  # band-sdk's composition: the hook, then on_execute
            change: ParticipantAddedEvent | ParticipantRemovedEvent
            if added:
                change = ParticipantAddedEvent(room_id=room_id, payload=payload, raw=data)
            else:
                change = ParticipantRemovedEvent(room_id=room_id, payload=payload, raw=data)
            hook = self.on_participant_added if added else self.on_participant_removed
            self._spawn(participant_turn(self._turns, room.context, change, hook))
        elif added and self.on_participant_added is not None:
            event = ParticipantAddedEvent(room_id=room_id, payload=payload, raw=data)
            self._spawn(self.on_participant_added(room_id, event))
        elif not added and self.on_participant_removed is not None:
            gone = ParticipantRemovedEvent(room_id=room_id, payload=payload, raw=data)
            self._spawn(self.on_participant_removed(room_id, gone))

    def _on_rooms(self, event: str, data: JsonObject) -> None:
        if event == "room_added":
            self._spawn(self._add_room(str(decode_as(RoomAdded, data).id), data))
        elif event == "room_removed":
            decision = evaluate_delivery_event(event, None, data, self.agent_id)
            self._spawn(self._drop_room(str(decision.get("room_id"))))

    def _on_contacts(self, event: str, data: JsonObject) -> None:
        typed = contact_event(event, data)
        if typed is not None and self.contacts is not None:
            log.info("contact event %s", event)
            self.contacts.submit(typed)

    def _on_control(self, event: str, data: JsonObject) -> None:
        if event == "supersede":
            superseded = decode_as(Supersede, data)
            self.phoenix.supersede(
                retryable=superseded.retryable, retry_after_s=superseded.retry_after
            )
        elif event == "agent.control":
            control = decode_as(AgentControl, data)
            if control.correlation_id in self._controls:
                return
            self._controls[control.correlation_id] = None
            if len(self._controls) > CONTROL_DEDUPE:
                self._controls.popitem(last=False)
            room_id = control.room_id
            targets = [self.rooms[room_id]] if room_id in self.rooms else []
            if room_id is None:
                targets = list(self.rooms.values())
            log.info("agent.control %s for %s", control.mode, room_id or "every room")
            for room in targets:
                self._spawn(room.control(control.mode))

    # --- socket lifecycle ---------------------------------------------------------------------

    async def _on_connected(self, reconnected: bool, failed_topics: list[str]) -> None:
        """After a reconnect: reconcile rejoin failures, then the room list; resync survivors."""
        if not reconnected:
            return
        known = list(self.rooms)  # the rooms before the reconnect, those failing to rejoin too
        for room in self.rooms.values():  # owed answers first, even if the listing below fails
            room.transport_back()
        for room_id in self.subscriptions.record_rejoin_failures(failed_topics):
            await self._drop_room(room_id)  # rejoined below when the listing still has it
        await self._join_agent_topics()
        await self._sync_rooms(known)

    async def _on_dead(self, reason: str) -> None:
        self.end_reason = reason
        self.ended.set()

    def _spawn(self, coro: Awaitable[None]) -> None:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._done)

    def _done(self, task: asyncio.Future[None]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("runtime task failed", exc_info=task.exception())
