"""One room's execution: a plain serial worker feeding its messages to the delivery pipeline.

Turns run one at a time per room (rooms run in parallel, one worker each). The worker takes
live pushes, contact events and ``/next`` drains off its queue, one at a time, and hands every
message to the room's ``DeliveryPipeline`` (gate, claim, processing mark, already-answered check,
turn, settlement, trace: ``band.runtime.rooms.pipeline``).

A room whose turn, drain or mark met an unavailable platform *owes* an answer: it re-checks
``/next`` after a jittered backoff (``RecheckBackoff``), at once when the socket comes back,
and while it owes, a live push drains ``/next`` (oldest first) instead of running the pushed
message directly, so a later message is never answered before an earlier one.
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import logging
import uuid
from datetime import UTC, datetime
from time import monotonic
from typing import Any

from band.client.errors import BandError
from band.client.rest import path, transient
from band.core.preprocessor import Preprocessor
from band.core.simple_adapter import SimpleAdapter
from band.core.wire import JsonObject, MessageRow, to_dict
from band.runtime.contacts.hub import (
    SYNTHETIC_CONTACT_EVENTS_SENDER_ID,
    SYNTHETIC_CONTACT_EVENTS_SENDER_NAME,
    SYNTHETIC_SENDER_TYPE,
)
from band.runtime.rooms.actionable import actionable_pages
from band.runtime.rooms.context import ContextRoom, RoomContext
from band.runtime.rooms.inbox import Inbox
from band.runtime.rooms.messages import Inbound, inbound
from band.runtime.rooms.pipeline import DeliveryPipeline, is_synthetic
from band.runtime.rooms.preprocess import DefaultPreprocessor
from band.runtime.rooms.recheck import RecheckBackoff
from band.runtime.rooms.settlement import Delivery
from band.runtime.rooms.turn import ADAPTER_FAILED as ADAPTER_FAILED  # re-exported
from band.runtime.rooms.turn import TurnRunner
from band.runtime.trace import TurnRecorder
from band_sdk_core import evaluate_drain_candidate

__all__ = ["RoomExecution"]

log = logging.getLogger("band.runtime.rooms.execution")


class _Signal(enum.Enum):
    """What a room's queue holds besides messages."""

    DRAIN = "drain"  # drain ``/next``
    WAKE = "wake"  # re-plan the wait (after a stop)


#: Seconds between cancellations of a room worker that has not ended yet.
CANCEL_RETRY = 0.5
#: ``/next`` rounds in one drain; a longer backlog goes on in the next drain, queued at once
#: (the room's other work, a stop among it, is looked at in between).
MAX_DRAIN = 500


def _candidate(row: MessageRow | None) -> dict[str, str] | None:
    """The fields a drain decision reads from a ``/next`` row (None when there is none)."""
    if row is None or row.id is None:
        return None
    return {"id": row.id, "sender_id": row.sender_id or "", "sender_type": row.sender_type or ""}


def _synthetic_row(room_id: str, text: str) -> Inbound:
    """A contact event as a message row of the hub room (it exists only in this process)."""
    now = datetime.now(UTC).isoformat()
    row = MessageRow(
        id=f"contact-event-{uuid.uuid4()}",
        content=text,
        message_type="text",
        sender_id=SYNTHETIC_CONTACT_EVENTS_SENDER_ID,
        sender_type=SYNTHETIC_SENDER_TYPE,
        sender_name=SYNTHETIC_CONTACT_EVENTS_SENDER_NAME,
        chat_room_id=room_id,
        inserted_at=now,
        updated_at=now,
        metadata={},
    )
    return Inbound(row, to_dict(row))


class RoomExecution(ContextRoom):
    """Serial turns of one room."""

    def __init__(
        self,
        context: RoomContext,
        *,
        delivery: Delivery,
        adapter: SimpleAdapter[Any],  # any history type: the runtime only hands it over
        preprocessor: Preprocessor | None = None,
        recorder: TurnRecorder | None = None,
    ) -> None:
        # the room's context names it: the runtime's ExecutionContext, or one a band-sdk
        # style ExecutionContext(room_id, link, on_execute) made of itself
        super().__init__(context)
        self.agent_id = context.agent_id
        self.rest = context.rest
        self.config = config = context.config
        self.delivery = delivery
        self.adapter = adapter
        self.preprocessor: Preprocessor = preprocessor or DefaultPreprocessor()
        self.history = self.context.history
        self.stopped = False
        self._queue: Inbox[Inbound | _Signal] = Inbox()
        self._worker: asyncio.Task[None] | None = None
        self._spawn_control: asyncio.Future[None] | None = None
        self._held: list[Inbound] = []  # hub turns that arrived while stopped
        self._owed = False  # a turn, drain or mark met an unavailable platform: re-check /next
        #: the actionable listing's cursor past its leading pages of messages failed for good
        self._past_failed: str | None = None
        self._recheck: asyncio.TimerHandle | None = None
        self._backoff = RecheckBackoff(config.owed_recheck_seconds, config.owed_recheck_max_seconds)
        self._queue.put(_Signal.DRAIN)  # the backlog goes before any live message
        #: records each turn's timeline (band.runtime.trace)
        self.recorder = recorder
        self.runner = TurnRunner(
            self.context,
            adapter,
            self.preprocessor,
            config,
            owe=self.owe,
            platform_stopped=self._platform_stopped,
        )
        #: the steps each message takes, from the gate to its settlement
        self.pipeline = DeliveryPipeline(self, delivery, self.runner, recorder)

    @property
    def turns(self) -> int:
        """Turns the adapter was run in this room."""
        return self.runner.turns

    def __repr__(self) -> str:
        return f"RoomExecution(room_id={self.room_id!r}, stopped={self.stopped})"

    # --- control from the runtime -------------------------------------------------------------

    def start(self) -> None:
        """Start the worker with a backlog drain before any live message."""
        if self._worker is None:
            self._worker = asyncio.create_task(self._run(), name=f"band-room-{self.room_id}")

    @property
    def running(self) -> bool:
        """Whether the worker was started."""
        return self._worker is not None

    def submit(self, payload: JsonObject) -> None:
        """Queue a validated ``message_created`` payload (its receipt time goes with it, for
        the turn's trace)."""
        item = inbound(payload, monotonic() if self.recorder is not None else None)
        if item is not None:
            self._queue.put(item)

    def request_drain(self) -> None:
        """Queue a ``/next`` drain (after a reconnect, on play)."""
        self._queue.put(_Signal.DRAIN)

    @property
    def owes(self) -> bool:
        """Whether a message may still be owed an answer (its platform call failed)."""
        return self._owed

    def transport_back(self) -> None:
        """The socket is back: a room owing an answer re-checks ``/next`` at once."""
        if self._owed:
            self._cancel_recheck()
            self._backoff.reset()
            self.request_drain()

    def owe(self) -> None:
        """Record that the room owes an answer; schedule a re-check unless one is pending."""
        self._owed = True
        if self._recheck is None and not self.stopped:
            delay = self._backoff.next_delay()
            log.info("room %s: re-checking /next in %.2fs", self.room_id, delay)
            loop = asyncio.get_running_loop()
            self._recheck = loop.call_later(delay, self._recheck_due)

    def _recheck_due(self) -> None:
        """The re-check delay is over: drain ``/next``."""
        self._recheck = None
        self.request_drain()

    def _cancel_recheck(self) -> None:
        """Drop a pending re-check (the room drained, reconnected or closed)."""
        if self._recheck is not None:
            self._recheck.cancel()
            self._recheck = None

    def inject_system_message(self, message: str) -> None:
        """Hand ``message`` to the next turn of this room (in ``contacts_msg``)."""
        self.context.inject_system_message(message)

    def submit_synthetic(self, text: str) -> None:
        """Queue a contact event as a turn of this (hub) room; it is no platform message."""
        self._queue.put(_synthetic_row(self.room_id, text))

    async def control(self, mode: str) -> None:
        """Apply ``agent.control``: interrupt the turn, stop (park) or play (resume) the room."""
        if mode == "play":
            self.stopped = False
            held, self._held = self._held, []
            for row in held:
                self._queue.put(row)
            self.request_drain()
            return
        if mode == "stop":
            self.stopped = True
            self._queue.put(_Signal.WAKE)  # from now on probe at the stopped interval
        self.runner.interrupt(mode)
        with contextlib.suppress(Exception):
            await self.adapter.on_interrupt(self.room_id, mode)

    def _platform_stopped(self) -> None:
        """The platform stopped this room's execution without a push: park it like ``stop``."""
        self._spawn_control = asyncio.ensure_future(self.control("stop"))

    def participants_changed(self) -> None:
        """Hand the running turn's tools the new participant list (for mentions)."""
        self.runner.participants_changed()

    @property
    def turn_running(self) -> bool:
        """Whether a turn is running now."""
        turn = self.runner.running
        return turn is not None and not turn.done()

    async def close(
        self, grace: float | None = None, cut_short: asyncio.Event | None = None
    ) -> bool:
        """Stop the worker and let the adapter clean up; False when a turn had to be cancelled.

        ``grace``: seconds a running turn may take to finish first (None: cancel at once);
        ``cut_short``, once set, ends that wait (a second Ctrl-C).
        """
        turn = self.runner.running
        graceful = turn is None or turn.done()
        if not graceful and grace is not None and grace > 0:
            assert turn is not None
            waits: set[asyncio.Future[Any]] = {turn}
            if cut_short is not None:
                waits.add(asyncio.ensure_future(cut_short.wait()))
            try:
                await asyncio.wait(waits, timeout=grace, return_when=asyncio.FIRST_COMPLETED)
            finally:
                for wait in waits - {turn}:
                    wait.cancel()
            graceful = turn.done()
            if graceful:  # let the worker settle the finished turn (its marks)
                await asyncio.sleep(0)
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self.pipeline.idle.wait(), grace)
        if self._worker is not None:
            # cancelled again until it ends: a cancellation landing in an HTTP call can be
            # swallowed on its way out (the worker then waits on its queue for ever); wait()
            # never raises the task's own CancelledError, only ours (if we are cancelled)
            while not self._worker.done():
                self._worker.cancel()
                await asyncio.wait({self._worker}, timeout=CANCEL_RETRY)
            self._worker = None
        self._cancel_recheck()
        self._queue.close()
        with contextlib.suppress(Exception):
            await self.adapter.on_cleanup(self.room_id)
        return graceful

    # --- the worker ---------------------------------------------------------------------------

    def _stopped_interval(self) -> float:
        """Seconds between ``/next`` probes of a stopped room (fixed: they never back off)."""
        return self.config.stopped_resync_seconds or self.config.idle_resync_seconds

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        idle = self.config.idle_resync_seconds
        probe_at: float | None = None  # next probe of a stopped room; traffic never delays it
        while True:
            if self.stopped:
                if probe_at is None:
                    probe_at = loop.time() + self._stopped_interval()
                wait = max(0.0, probe_at - loop.time())
            else:
                probe_at, wait = None, idle
            try:
                item = await self._queue.get(wait)  # no timer armed per message (Inbox)
            except TimeoutError:
                item = _Signal.DRAIN
                if self.stopped:
                    # probe a stopped room: a missed ``play`` must not park it forever (the
                    # platform answers the processing mark with 204 while it is still stopped)
                    probe_at, self.stopped = None, False
                else:
                    idle = min(idle * 2, self.config.idle_resync_max_seconds)
            else:
                if not self.stopped:
                    idle = self.config.idle_resync_seconds
            try:
                if item is _Signal.WAKE:
                    continue
                if self.stopped:
                    if isinstance(item, Inbound) and is_synthetic(item):
                        self._held.append(item)  # runs on ``play``
                    continue  # left on the platform; ``play`` drains it
                if item is _Signal.DRAIN or (self._owed and not is_synthetic(item)):
                    # while an earlier message is owed, /next serves it before this one
                    await self._drain_owed()
                elif await self.pipeline.deliver(item) is False:  # ``_process``, inlined
                    self._held.append(item)  # stopped mid-turn: run it again on ``play``
            except asyncio.CancelledError:
                raise
            except BandError as exc:
                log.warning("room %s: platform unavailable (%s); resync later", self.room_id, exc)
                if transient(exc):
                    self.owe()
            except Exception:
                log.exception("room %s: unexpected error", self.room_id)

    async def _drain_owed(self) -> None:
        """Drain; the debt is cleared before (the drain may record a new one), kept on failure."""
        owed, self._owed = self._owed, False
        try:
            await self._drain()
        except BaseException:
            self._owed = self._owed or owed
            raise
        if not self._owed:  # the platform answered and nothing is owed: start the series again
            self._cancel_recheck()
            self._backoff.reset()

    async def _drain(self) -> None:
        """Settle what is pending, then run every message ``/next`` serves until it is empty."""
        await self.delivery.flush_room(self.room_id)
        handled: list[str] = []  # ids this drain already took care of
        for _ in range(MAX_DRAIN):
            resp = await self.rest.request(
                "GET", path("/agent/chats/{}/messages/next", self.room_id)
            )
            item = inbound(resp.data) if resp.status_code == 200 else None
            step = evaluate_drain_candidate(
                _candidate(item.row if item else None), handled, self.agent_id
            )
            if step["decision"] == "no_candidate":
                return
            if step["decision"] == "drain":
                # /next serves a message again that is not runnable here (failed for good,
                # or its mark is pending): look past it in the actionable listing
                await self._drain_listing()
                return
            assert item is not None
            handled.append(step["message_id"])
            await self._process(item)
            if self.stopped:
                return
        else:
            # /next still serves after MAX_DRAIN rounds: a long backlog's rest runs next, and
            # before any later push (while the room owes, a push drains /next, oldest first)
            log.info("room %s: %d messages drained, more waiting", self.room_id, MAX_DRAIN)
            self._owed = True
            self.request_drain()

    async def _drain_listing(self) -> None:
        """Run the runnable messages of the actionable listing (past a stuck head).

        Every page is read: a room with more than a page of messages failed for good would
        otherwise never reach what came after them. The pages at the listing's head that held
        only such messages are not read again.
        """
        at_head = True  # every page so far held only messages failed for good
        failed_for_good = self.delivery.retries.is_permanently_failed
        async for items, next_cursor in actionable_pages(
            self.rest, self.room_id, self._past_failed
        ):
            for item in items:
                if self.stopped:
                    return
                await self._process(item)
            at_head = (
                at_head and bool(items) and all(failed_for_good(i.row.id or "") for i in items)
            )
            if at_head and next_cursor:
                self._past_failed = next_cursor

    # --- one message ---------------------------------------------------------------------------

    async def _process(self, item: Inbound) -> None:
        """Take one message through the pipeline (a stopped contact event waits for ``play``)."""
        if await self.pipeline.deliver(item) is False:
            self._held.append(item)  # stopped mid-turn: run it again on ``play``
