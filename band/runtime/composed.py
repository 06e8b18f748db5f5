"""band-sdk's hand-composed runtime on ours: ``on_execute(ctx, event)`` as the room's turn.

band-sdk composes an agent as ``AgentRuntime(link, agent_id, on_execute)`` or, for one room,
``ExecutionContext(room_id, link, on_execute)``. Here both run the runtime's own pieces: each
room's ``RoomExecution`` with its delivery pipeline (claim registry, processing mark, turn,
settlement), so a message reaches ``on_execute`` once and is settled once. ``HandlerTurns`` is
the turn step: it is the room's preprocessor (the default input, remembering the event) and
its adapter (calling ``on_execute`` with the room's context and that event).

``ExecutionContext`` is also what every room's preprocessor receives as ``ctx`` (the runtime's
``RoomContext`` under band-sdk's name); only one made with ``on_execute`` runs a room itself.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from band.client.rest import RestClient
from band.core.input_adapter import InputAdapter
from band.core.types import AgentInput, ConflictPolicy
from band.core.wire import JsonObject
from band.runtime.rooms.context import ContextRoom, RoomContext
from band.runtime.rooms.events import (
    MessageEvent,
    ParticipantAddedCallback,
    ParticipantAddedEvent,
    ParticipantRemovedCallback,
    ParticipantRemovedEvent,
)
from band.runtime.rooms.execution import RoomExecution
from band.runtime.rooms.messages import inbound
from band.runtime.rooms.preprocess import DefaultPreprocessor
from band.runtime.rooms.settlement import Delivery
from band.runtime.sessionconfig import SessionConfig
from band_sdk_core import ClaimRegistry, RetryTracker, evaluate_delivery_event

__all__ = [
    "ControlCallback",
    "ExecuteHandler",
    "ExecutionContext",
    "ExecutionFactory",
    "FactoryRoom",
    "HandlerRoom",
    "HandlerTurns",
    "Link",
    "MessageControl",
    "SessionCleanup",
]

log = logging.getLogger("band.runtime.composed")

#: ``await on_execute(ctx, event)``: a message (or participant change) of the context's room.
ExecuteHandler = Callable[[Any, Any], Awaitable[None]]
#: ``await on_session_cleanup(room_id)`` once the agent left the room (or stopped).
SessionCleanup = Callable[[str], Awaitable[None]]
#: ``await on_control(room_id, mode)`` for an ``interrupt`` or ``stop`` of the room's turn.
ControlCallback = Callable[[str, str], Awaitable[None]]
#: ``await on_message_control(ctx, event)``: True when the message was a control message it
#: handled (it is then settled without a turn).
MessageControl = Callable[[Any, MessageEvent], Awaitable[bool]]


class Link(Protocol):
    """What the composition calls take of a ``band.platform.BandLink``."""

    agent_id: str
    api_key: str
    rest_url: str
    ws_url: str
    conflict_policy: ConflictPolicy
    rest: RestClient

    async def disconnect(self) -> None:
        """Close the link's socket and REST pool."""
        ...


class OwnExecution(Protocol):
    """What the runtime calls on an execution from band-sdk's ``execution_factory`` (the
    ``band.runtime.Execution`` protocol)."""

    async def start(self) -> None: ...
    async def stop(self, timeout: float | None = None) -> bool: ...
    def inject_system_message(self, message: str) -> None: ...
    async def on_event(self, event: Any) -> None: ...
    async def request_resync(self) -> None: ...
    def interrupt(self, *, kind: str = "interrupt") -> bool: ...
    def stop_room(self) -> None: ...
    async def resume_room(self) -> None: ...


#: band-sdk's ``execution_factory(room_id, link, *, hub_room_id=None)``: the room's execution.
ExecutionFactory = Callable[..., OwnExecution]


class HandlerTurns(InputAdapter):
    """The turn of a composed room: ``on_execute(ctx, event)`` (preprocessor and adapter)."""

    def __init__(
        self,
        on_execute: ExecuteHandler,
        *,
        on_session_cleanup: SessionCleanup | None = None,
        on_control: ControlCallback | None = None,
        on_message_control: MessageControl | None = None,
    ) -> None:
        super().__init__()
        self.on_execute = on_execute
        self.on_session_cleanup = on_session_cleanup
        self.on_control = on_control
        self.on_message_control = on_message_control
        self._inputs = DefaultPreprocessor()
        # each room's context and the event its next turn runs (a room runs one at a time)
        self._pending: dict[str, tuple[RoomContext, MessageEvent]] = {}

    @property
    def judges_turns(self) -> bool:
        """A handler's turn is done when it returns, reply or not (band-sdk's rule)."""
        return False

    async def process(
        self, ctx: RoomContext, event: MessageEvent, agent_id: str
    ) -> AgentInput | None:
        """The default input; the event is kept for the turn (None: a control message)."""
        if self.on_message_control is not None and await self.on_message_control(ctx, event):
            return None  # handled as a control message: settled, no turn
        inp = await self._inputs.process(ctx, event, agent_id)
        if inp is not None:
            self._pending[ctx.room_id] = (ctx, event)
        return inp

    async def on_input(self, inp: AgentInput) -> None:
        """Run ``on_execute`` with the room's context and the message's event."""
        ctx, event = self._pending.pop(inp.room_id)
        await self.on_execute(ctx, event)

    async def on_interrupt(self, room_id: str, mode: str) -> None:
        """Tell ``on_control`` (band-sdk: for work the handler left running)."""
        if self.on_control is not None:
            await self.on_control(room_id, mode)

    async def on_cleanup(self, room_id: str) -> None:
        """The room is released: ``on_session_cleanup(room_id)``."""
        self._pending.pop(room_id, None)
        if self.on_session_cleanup is not None:
            await self.on_session_cleanup(room_id)


async def participant_turn(
    turns: HandlerTurns,
    ctx: RoomContext,
    event: ParticipantAddedEvent | ParticipantRemovedEvent,
    hook: ParticipantAddedCallback | ParticipantRemovedCallback | None,
) -> None:
    """A participant change: the hook with ``(room_id, event)``, then ``on_execute``."""
    if hook is not None:
        await hook(ctx.room_id, event)  # type: ignore[arg-type]  # the hook of the event's kind
    await turns.on_execute(ctx, event)


class HandlerRoom:
    """A standalone ``ExecutionContext``'s room: our ``RoomExecution`` running its handler."""

    def __init__(
        self,
        ctx: RoomContext,
        turns: HandlerTurns,
        *,
        claim_registry: ClaimRegistry | None = None,
        on_participant_added: ParticipantAddedCallback | None = None,
        on_participant_removed: ParticipantRemovedCallback | None = None,
    ) -> None:
        self.ctx = ctx
        self.turns = turns
        self.on_participant_added = on_participant_added
        self.on_participant_removed = on_participant_removed
        retries = RetryTracker(max(1, ctx.config.max_message_retries))
        delivery = Delivery(ctx.rest, claim_registry or ClaimRegistry(), retries)
        self.execution = RoomExecution(ctx, delivery=delivery, adapter=turns, preprocessor=turns)
        self._tasks: set[asyncio.Task[None]] = set()

    async def on_event(self, event: Any) -> None:
        """A pushed event of the room: a message queued for its turn, a participant change."""
        if isinstance(event, MessageEvent) and isinstance(event.raw, dict):
            self._message(event.raw)
        elif isinstance(event, ParticipantAddedEvent) and isinstance(event.raw, dict):
            self.ctx.room_participants.added(event.raw)
            self.execution.participants_changed()
            await participant_turn(self.turns, self.ctx, event, self.on_participant_added)
        elif isinstance(event, ParticipantRemovedEvent) and isinstance(event.raw, dict):
            self.ctx.room_participants.removed(event.raw)
            self.execution.participants_changed()
            await participant_turn(self.turns, self.ctx, event, self.on_participant_removed)

    def _message(self, raw: JsonObject) -> None:
        try:
            decision = evaluate_delivery_event(
                "message_created", self.ctx.room_id, raw, self.ctx.agent_id
            )
        except ValueError as exc:
            log.warning("dropping message event: %s", exc)
            return
        if decision["decision"] == "invocation":
            self.execution.submit(raw)

    def stop_room(self) -> None:
        """Park the room (band-sdk's ``stop``): the turn is stopped, messages wait for play."""
        task = asyncio.ensure_future(self.execution.control("stop"))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)


class ExecutionContext(RoomContext):
    """A room's context (what preprocessors and ``AgentTools.from_context`` take) and, made
    with band-sdk's ``ExecutionContext(room_id, link, on_execute)``, a room of its own."""

    def __init__(
        self,
        room_id: str,
        link: Link | None = None,
        on_execute: ExecuteHandler | None = None,
        config: SessionConfig | None = None,
        agent_id: str | None = None,
        on_participant_added: ParticipantAddedCallback | None = None,
        on_participant_removed: ParticipantRemovedCallback | None = None,
        *,
        hub_room_id: str | None = None,
        claim_registry: ClaimRegistry | None = None,
        on_message_control: MessageControl | None = None,
        rest: RestClient | None = None,
    ) -> None:
        """The runtime passes ``agent_id``, ``rest`` and ``config``; band-sdk's call passes
        ``link`` (its REST client and agent id) and ``on_execute``, run as each turn of the
        room once ``start()`` is awaited (``claim_registry``: shared with other contexts of
        the agent, so a message runs once among them)."""
        if rest is None:
            if link is None:
                raise TypeError("ExecutionContext needs a BandLink (link) or a REST client (rest)")
            rest = link.rest
        agent = agent_id or (link.agent_id if link is not None else None)
        if not agent:
            raise TypeError("ExecutionContext needs the agent's id (agent_id, or the link's)")
        super().__init__(
            room_id,
            agent_id=agent,
            rest=rest,
            config=config or SessionConfig(),
            hub_room_id=hub_room_id,
        )
        self.link = link
        self._room: HandlerRoom | None = None
        if on_execute is not None:
            turns = HandlerTurns(on_execute, on_message_control=on_message_control)
            self._room = HandlerRoom(
                self,
                turns,
                claim_registry=claim_registry,
                on_participant_added=on_participant_added,
                on_participant_removed=on_participant_removed,
            )

    def __repr__(self) -> str:
        return f"ExecutionContext(room_id={self.room_id!r})"

    def _own_room(self) -> HandlerRoom:
        if self._room is None:
            raise RuntimeError(
                "this ExecutionContext runs inside the runtime; only one made with "
                "ExecutionContext(room_id, link, on_execute) is started and fed by its caller"
            )
        return self._room

    @property
    def thread_id(self) -> str:
        """The conversation's thread id: the room id."""
        return self.room_id

    @property
    def is_running(self) -> bool:
        """Whether ``start()`` ran and ``stop()`` did not."""
        return self._room is not None and self._room.execution.running

    @property
    def is_stopped(self) -> bool:
        """Whether the room is parked by a ``stop`` (until ``resume_room``)."""
        return self._room is not None and self._room.execution.stopped

    async def start(self) -> None:
        """Start the room: first the messages it already owes the agent, then each event."""
        self._own_room().execution.start()

    async def stop(self, timeout: float | None = None) -> bool:
        """Stop the room (a running turn gets ``timeout`` seconds); False if it was cut."""
        return await self._own_room().execution.close(timeout)

    async def on_event(self, event: Any) -> None:
        """Hand the room one of its events (a ``BandLink``'s ``MessageEvent`` or
        participant change): a message is queued for its turn, run once."""
        await self._own_room().on_event(event)

    async def request_resync(self) -> None:
        """Look for messages missed while the socket was down."""
        self._own_room().execution.request_drain()

    def interrupt(self, *, kind: str = "interrupt") -> bool:
        """End the running turn (``interrupt`` or ``stop``); False when none was running."""
        execution = self._own_room().execution
        turn = execution.runner.running
        if turn is None or turn.done():
            return False
        execution.runner.interrupt(str(kind))
        return True

    def stop_room(self) -> None:
        """Park the room: the running turn stops, messages wait for ``resume_room``."""
        self._own_room().stop_room()

    async def resume_room(self) -> None:
        """Answer in the room again (and catch up on what arrived meanwhile)."""
        await self._own_room().execution.control("play")


class _Resync:
    """The queue item asking the execution to look for missed messages."""


class FactoryRoom(ContextRoom):
    """A room run by the caller's own execution (band-sdk's ``execution_factory``).

    The runtime joins and leaves the room and hands the execution its events one at a time,
    in arrival order (messages as ``MessageEvent``s, participant changes); as in band-sdk, a
    custom execution owns its messages' marks and turns.
    """

    def __init__(
        self, execution: OwnExecution, turns: HandlerTurns, context: ExecutionContext
    ) -> None:
        super().__init__(context)
        self.execution = execution
        self.turns = turns
        self._events: asyncio.Queue[Any] = asyncio.Queue()
        self._worker: asyncio.Task[None] | None = None

    def __repr__(self) -> str:
        return f"FactoryRoom(room_id={self.room_id!r}, execution={self.execution!r})"

    @property
    def running(self) -> bool:
        """Whether the room was started."""
        return self._worker is not None

    def start(self) -> None:
        """Start the execution, then feed it the room's events."""
        if self._worker is None:
            self._worker = asyncio.create_task(self._run(), name=f"band-room-{self.room_id}")

    async def _run(self) -> None:
        await self.execution.start()
        while True:
            event = await self._events.get()
            try:
                if isinstance(event, _Resync):
                    await self.execution.request_resync()
                else:
                    await self.execution.on_event(event)
            except Exception:
                log.exception("room %s: the execution failed on %s", self.room_id, event)

    def submit(self, payload: JsonObject) -> None:
        """Queue a validated ``message_created`` payload as a ``MessageEvent``."""
        item = inbound(payload)
        if item is not None:
            self._events.put_nowait(MessageEvent.from_row(item.row, item.raw, self.room_id))

    def deliver(self, event: ParticipantAddedEvent | ParticipantRemovedEvent) -> None:
        """Queue a participant change for the execution."""
        self._events.put_nowait(event)

    def participants_changed(self) -> None:
        """The roster changed: the execution hears it through ``deliver``."""

    def inject_system_message(self, message: str) -> None:
        """Hand ``message`` to the execution's next turn."""
        self.execution.inject_system_message(message)

    def submit_synthetic(self, text: str) -> None:
        """A contact event for the hub room: a system message for the execution."""
        self.execution.inject_system_message(text)

    def request_drain(self) -> None:
        """Ask the execution to look for missed messages (after a reconnect, on play)."""
        self._events.put_nowait(_Resync())

    def transport_back(self) -> None:
        """The socket is back: the execution resyncs."""
        self.request_drain()

    async def control(self, mode: str) -> None:
        """``agent.control``: interrupt the turn, park (stop) or resume (play) the room."""
        if mode == "play":
            await self.execution.resume_room()
            return
        if mode == "stop":
            self.execution.stop_room()
        else:
            self.execution.interrupt(kind=mode)
        await self.turns.on_interrupt(self.room_id, mode)

    #: a custom execution owns its turns: the runtime does not see them running
    turn_running = False

    async def close(
        self, grace: float | None = None, cut_short: asyncio.Event | None = None
    ) -> bool:
        """Stop the execution (``grace`` seconds for running work), then ``on_session_cleanup``
        (``cut_short`` is not offered to a custom execution's ``stop``: it has no such say)."""
        try:
            graceful = await self.execution.stop(grace)
        finally:
            if self._worker is not None:
                self._worker.cancel()
                await asyncio.gather(self._worker, return_exceptions=True)
                self._worker = None
        await self.turns.on_cleanup(self.room_id)
        return bool(graceful)
