"""One room's execution: a serial worker for its turns, live pushes and ``/next`` backlog drains.

Turns run one at a time per room (rooms run in parallel, one worker each). Every message,
from the socket or from ``/next``, passes the same gate: self-echo skip, the claim registry's
guarded claim (completed, in flight, settlement pending, retries exhausted), the processing
mark; then the adapter runs and its outcome is settled through fenced processed/failed marks.

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
from typing import Any, NamedTuple

from band.client.errors import BandError
from band.client.rest import RestClient, path
from band.core.exceptions import ProviderRunError
from band.core.preprocessor import Preprocessor
from band.core.protocols import AgentToolsProtocol
from band.core.simple_adapter import SimpleAdapter
from band.core.turn import MISSING_REPLY, TURN_FAILURE_PROVIDER, AgentFailure
from band.core.types import AgentInput
from band.core.wire import JsonObject, MessageRow, to_dict
from band.preprocessing import DefaultPreprocessor
from band.runtime.contacts.hub import (
    SYNTHETIC_CONTACT_EVENTS_SENDER_ID,
    SYNTHETIC_CONTACT_EVENTS_SENDER_NAME,
    SYNTHETIC_SENDER_TYPE,
    is_contact_hub_turn,
)
from band.runtime.rooms.answered import (
    answered_in_attempt,
    attempt_started,
    failure_reported,
    posted_by,
    reply_landed,
)
from band.runtime.rooms.context import RoomContext
from band.runtime.rooms.events import MessageEvent
from band.runtime.rooms.messages import Inbound, delivery_status, inbound
from band.runtime.rooms.recheck import RecheckBackoff
from band.runtime.rooms.settlement import Delivery, RoomStopped, transient
from band.runtime.rooms.working import WorkingState
from band.runtime.sessionconfig import SessionConfig
from band.runtime.tools.ops import ToolContext
from band.runtime.trace import TurnRecorder, TurnTrace
from band_sdk_core import evaluate_drain_candidate, is_self_echo

__all__ = ["ExecutionContext", "RoomExecution"]

#: band-sdk's name for the per-room context a preprocessor receives (``process(ctx, ...)``)
#: and ``AgentTools.from_context`` binds to: our ``RoomContext``.
ExecutionContext = RoomContext

log = logging.getLogger("band.runtime.rooms.execution")


class _Signal(enum.Enum):
    """What a room's queue holds besides messages."""

    DRAIN = "drain"  # drain ``/next``
    WAKE = "wake"  # re-plan the wait (after a stop)


#: Seconds between cancellations of a room worker that has not ended yet.
CANCEL_RETRY = 0.5
#: Upper bound of ``/next`` rounds in one drain (a guard against a platform that loops).
MAX_DRAIN = 500
#: Messages per room whose cut-off turn's posts are remembered (oldest forgotten first).
MAX_UNSURE = 64
#: Times in a row a message's turn may be cut off by an unavailable platform (each after its
#: calls' own retries ran out) before the turn counts as failed.
MAX_CUT_OFF = 5
#: Generic room text for a turn that raised; the exception itself stays in the logs.
ADAPTER_FAILED = "The agent hit an error while handling this message and could not answer it."
#: The failed mark's error of a message whose earlier failure the room was told (not rerun).
REPORTED_EARLIER = "failed earlier; its error card is in the room (not run again)"


class TurnResult(NamedTuple):
    """How a turn ended: ``ok`` (None: stopped or cut off, replay it), the failure label, and
    whether a failed message may run again."""

    ok: bool | None
    error: str = ""
    retry: bool = False


#: The turn succeeded (or owed the room nothing).
SUCCEEDED = TurnResult(True)
#: Stopped or cut off mid-turn: the message stays ``processing`` for replay.
UNFINISHED = TurnResult(None)


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


def _is_synthetic(item: Inbound) -> bool:
    row = item.row
    return is_contact_hub_turn(sender_type=row.sender_type, sender_id=row.sender_id)


def _platform_unreachable(exc: BaseException) -> bool:
    """Whether ``exc`` (or what caused it) is a failure to reach the platform, or a transient
    refusal (429, 5xx) that outlasted the call's retries."""
    seen: BaseException | None = exc
    while seen is not None:
        if transient(seen):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


class RoomExecution:
    """Serial turns of one room."""

    def __init__(
        self,
        room_id: str,
        *,
        agent_id: str,
        rest: RestClient,
        delivery: Delivery,
        adapter: SimpleAdapter[Any],  # any history type: the runtime only hands it over
        config: SessionConfig,
        preprocessor: Preprocessor | None = None,
        hub_room_id: str | None = None,
        recorder: TurnRecorder | None = None,
    ) -> None:
        self.room_id = room_id
        self.agent_id = agent_id
        self.rest = rest
        self.delivery = delivery
        self.adapter = adapter
        self.config = config
        self.preprocessor: Preprocessor = preprocessor or DefaultPreprocessor()
        self.context = RoomContext(
            room_id, agent_id=agent_id, rest=rest, config=config, hub_room_id=hub_room_id
        )
        self.participants = self.context.room_participants
        self.history = self.context.history
        self.stopped = False
        self.turns = 0
        self._queue: asyncio.Queue[Inbound | _Signal] = asyncio.Queue()
        self._worker: asyncio.Task[None] | None = None
        self._turn: asyncio.Task[None] | None = None
        self._tools: AgentToolsProtocol | None = None  # the running turn's tools
        self._posted: list[str] = []  # texts the last turn posted, answered or not
        # message id -> texts its cut-off or failed turn posted: a rerun first looks for them
        self._unsure: dict[str, list[str]] = {}
        self._ran: set[str] = set()  # messages whose turn ran in this process (bounded below)
        self._cut_off: dict[str, int] = {}  # message id -> turns cut off in a row
        self._working: WorkingState | None = None  # the last turn's indicator
        self._spawn_control: asyncio.Future[None] | None = None
        self._interrupt_mode: str | None = None
        self._held: list[Inbound] = []  # hub turns that arrived while stopped
        self._idle = asyncio.Event()  # clear while a claimed message is being handled
        self._idle.set()
        self._owed = False  # a turn, drain or mark met an unavailable platform: re-check /next
        self._recheck: asyncio.TimerHandle | None = None
        self._backoff = RecheckBackoff(config.owed_recheck_seconds, config.owed_recheck_max_seconds)
        self._queue.put_nowait(_Signal.DRAIN)  # the backlog goes before any live message
        #: records each turn's timeline (band.runtime.trace); ``_trace`` is the running turn's
        self.recorder = recorder
        self._trace: TurnTrace | None = None

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
        """Queue a validated ``message_created`` payload."""
        item = inbound(payload)
        if item is not None:
            if self.recorder is not None and item.row.id:
                self.recorder.received(item.row.id)
            self._queue.put_nowait(item)

    def request_drain(self) -> None:
        """Queue a ``/next`` drain (after a reconnect, on play)."""
        self._queue.put_nowait(_Signal.DRAIN)

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

    def _owe(self) -> None:
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

    @property
    def hub_room_id(self) -> str | None:
        """The agent's contacts hub room (its tools always include the contact tools)."""
        return self.context.hub_room_id

    @hub_room_id.setter
    def hub_room_id(self, value: str | None) -> None:
        self.context.hub_room_id = value

    def inject_system_message(self, message: str) -> None:
        """Hand ``message`` to the next turn of this room (in ``contacts_msg``)."""
        self.context.inject_system_message(message)

    def submit_synthetic(self, text: str) -> None:
        """Queue a contact event as a turn of this (hub) room; it is no platform message."""
        self._queue.put_nowait(_synthetic_row(self.room_id, text))

    async def control(self, mode: str) -> None:
        """Apply ``agent.control``: interrupt the turn, stop (park) or play (resume) the room."""
        if mode == "play":
            self.stopped = False
            held, self._held = self._held, []
            for row in held:
                self._queue.put_nowait(row)
            self.request_drain()
            return
        if mode == "stop":
            self.stopped = True
            self._queue.put_nowait(_Signal.WAKE)  # from now on probe at the stopped interval
        if self._turn is not None and not self._turn.done():
            self._interrupt_mode = mode
            self._turn.cancel()
        with contextlib.suppress(Exception):
            await self.adapter.on_interrupt(self.room_id, mode)

    def _platform_stopped(self) -> None:
        """The platform stopped this room's execution without a push: park it like ``stop``."""
        self._spawn_control = asyncio.ensure_future(self.control("stop"))

    def participants_changed(self) -> None:
        """Hand the running turn's tools the new participant list (for mentions)."""
        set_participants = getattr(self._tools, "set_participants", None)
        if callable(set_participants):
            set_participants(self.participants.snapshot())

    async def close(self, grace: float | None = None) -> bool:
        """Stop the worker and let the adapter clean up; False when a turn had to be cancelled.

        ``grace``: seconds a running turn may take to finish first (None: cancel at once).
        """
        turn = self._turn
        graceful = turn is None or turn.done()
        if not graceful and grace is not None and grace > 0:
            assert turn is not None
            done, _ = await asyncio.wait({turn}, timeout=grace)
            graceful = bool(done)
            if graceful:  # let the worker settle the finished turn (its marks)
                await asyncio.sleep(0)
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._idle.wait(), grace)
        if self._worker is not None:
            # cancelled again until it ends: a cancellation landing in an HTTP call can be
            # swallowed on its way out (the worker then waits on its queue for ever); wait()
            # never raises the task's own CancelledError, only ours (if we are cancelled)
            while not self._worker.done():
                self._worker.cancel()
                await asyncio.wait({self._worker}, timeout=CANCEL_RETRY)
            self._worker = None
        self._cancel_recheck()
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
                item = await asyncio.wait_for(self._queue.get(), wait)
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
                    if isinstance(item, Inbound) and _is_synthetic(item):
                        self._held.append(item)  # runs on ``play``
                    continue  # left on the platform; ``play`` drains it
                if item is _Signal.DRAIN or (self._owed and not _is_synthetic(item)):
                    # while an earlier message is owed, /next serves it before this one
                    await self._drain_owed()
                else:
                    await self._process(item)
            except asyncio.CancelledError:
                raise
            except BandError as exc:
                log.warning("room %s: platform unavailable (%s); resync later", self.room_id, exc)
                if transient(exc):
                    self._owe()
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

    async def _drain_listing(self) -> None:
        """Run the runnable messages among the actionable page (past a stuck head)."""
        resp = await self.rest.request(
            "GET",
            path("/agent/chats/{}/messages", self.room_id),
            params={"sort_order": "asc", "limit": 100},
        )
        for raw in resp.data if isinstance(resp.data, list) else []:
            item = inbound(raw)
            if item is not None and item.row.id is not None and not self.stopped:
                await self._process(item)

    # --- one message --------------------------------------------------------------------------

    async def _process(self, item: Inbound) -> None:
        """Gate, claim, mark, run and settle one message."""
        if _is_synthetic(item):
            await self._synthetic(item)
            return
        row = item.row
        mid = row.id or ""
        if not mid or (row.message_type or "text") != "text":
            return
        claims, retries = self.delivery.claims, self.delivery.retries
        self_echo = is_self_echo(row.sender_id or "", row.sender_type or "", self.agent_id)
        verdict = claims.guarded_claim(
            self.room_id,
            mid,
            retries,
            self_echo=self_echo,
            durably_processed=delivery_status(row, self.agent_id) == "processed",
        )
        if verdict == "pending":
            await self._flush(mid)
            return
        if verdict == "completed" and delivery_status(row, self.agent_id) == "processing":
            await self._close_reopened(mid)
            return
        if verdict != "runnable":
            log.debug("room %s: message %s not run (%s)", self.room_id, mid, verdict)
            return
        self._idle.clear()
        if self.recorder is not None:
            self.recorder.received(mid)  # served by /next: it reached us now
        try:
            await self._claimed(item, mid)
        finally:
            self._end_trace("unfinished")  # left by an exception: it runs again later
            claims.release(self.room_id, mid)
            self._idle.set()

    def _mark(self, name: str, **detail: Any) -> None:
        """The running turn passed ``name`` (its trace records it)."""
        if self._trace is not None:
            self._trace.mark(name, **detail)

    def _end_trace(self, outcome: str, error: str | None = None) -> None:
        """The running turn is over: its trace is logged and kept."""
        trace, self._trace = self._trace, None
        if trace is not None and self.recorder is not None:
            self.recorder.finish(trace, outcome, error)

    async def _close_reopened(self, mid: str) -> None:
        """Mark processed again a message we answered that a stray processing mark re-opened.

        A processing mark that timed out on our side may reach the platform after the turn was
        answered and marked processed; re-marking re-opens the message, which would then stay
        ``processing`` forever (its turn is never run twice).
        """
        log.info(
            "room %s: answered message %s was re-opened; marking it processed", self.room_id, mid
        )
        with contextlib.suppress(BandError):
            await self.rest.request(
                "POST", path("/agent/chats/{}/messages/{}/processed", self.room_id, mid), retries=0
            )

    async def _claimed(self, item: Inbound, mid: str) -> None:
        retries = self.delivery.retries
        attempt, exhausted = retries.record_attempt(mid)
        if self.recorder is not None:
            self._trace = self.recorder.begin(self.room_id, mid, attempt)
        if exhausted:
            log.warning("room %s: message %s exhausted its retries", self.room_id, mid)
            self._end_trace("exhausted")
            return
        try:
            accepted = await self.delivery.mark_processing(self.room_id, mid)
        except RoomStopped:
            self.stopped = True
            accepted = False
        except BaseException:
            retries.discard_attempt(mid)
            raise
        self._mark("processing_mark", accepted=accepted)
        if not accepted:
            retries.discard_attempt(mid)
            self._end_trace("not_run", "stopped" if self.stopped else "processing mark refused")
            return
        if await self._answered_already(mid) or await self._answered_earlier(item, mid):
            retries.discard_attempt(mid)
            self.delivery.record_processed(self.room_id, mid)
            await self._flush(mid)
            self._end_trace("processed", "answered by an earlier attempt")
            return
        if await self._reported_earlier(item, mid):
            retries.discard_attempt(mid)
            self.delivery.record_failed(self.room_id, mid, REPORTED_EARLIER, retry=False)
            await self._flush(mid)
            self._end_trace("failed", REPORTED_EARLIER)
            return
        self._posted = []
        self._note_ran(mid)
        try:
            ok, error, retry = await self._run_turn(item, final=attempt >= retries.max_retries)
        except BaseException:
            # hydration failed or the room is closing: the adapter's answer is still owed
            retries.discard_attempt(mid)
            self._remember_posts(mid)
            raise
        if ok is None or (not ok and retry):
            self._remember_posts(mid)  # the message runs again: what it said is looked for
        if ok is None:  # stopped or cut off mid-turn: the message stays processing for replay
            retries.discard_attempt(mid)
            self._end_trace("unfinished")
            return
        self._cut_off.pop(mid, None)
        if ok:
            self.delivery.record_processed(self.room_id, mid)
        else:
            self.delivery.record_failed(self.room_id, mid, error, retry=retry)
        await self._flush(mid)
        if self._working is not None:  # its end report went out alongside the mark
            await self._working.closed()
            self._working = None
        pending = self.delivery.claims.pending_settlement(self.room_id, mid)
        self._mark("settled", status="processed" if ok else "failed", confirmed=pending is None)
        self._end_trace("processed" if ok else "failed", None if ok else error)
        if not ok and retry and pending is None and not retries.is_permanently_failed(mid):
            self.request_drain()  # the failed message is served again by /next

    def _remember_posts(self, mid: str) -> None:
        """Keep what the unfinished turn of ``mid`` posted, for its rerun to look for."""
        if self._posted:
            self._unsure[mid] = self._unsure.get(mid, []) + self._posted
            while len(self._unsure) > MAX_UNSURE:
                del self._unsure[next(iter(self._unsure))]
        self._posted = []

    async def _answered_already(self, mid: str) -> bool:
        """Whether an earlier, unfinished turn of ``mid`` already got its reply into the room.

        Its post may have been written while its answer was lost (the platform went away
        after the write); running the message again would answer it twice.
        """
        posted = self._unsure.pop(mid, None)
        if not posted:
            return False
        try:
            landed = await reply_landed(self.rest, self.room_id, self.agent_id, mid, posted)
        except BaseException:
            self._unsure[mid] = posted  # still unsure: look again on the next replay
            raise
        if landed:
            log.info(
                "room %s: message %s was answered already; not running it again", self.room_id, mid
            )
        return landed

    def _note_ran(self, mid: str) -> None:
        """Remember that this process ran ``mid`` (it knows what that turn posted)."""
        self._ran.add(mid)
        if len(self._ran) > 4 * MAX_UNSURE:
            self._ran.clear()  # old turns are settled; a forgotten one is checked by its row

    async def _answered_earlier(self, item: Inbound, mid: str) -> bool:
        """Whether a turn of ``mid`` that another process (or this one before a restart) ran
        in the open ``processing`` attempt already posted its answer.

        Only for a message served with such an attempt and never run here: a turn run here is
        looked for by what it posted (``_answered_already``).
        """
        row = item.row
        if mid in self._ran or delivery_status(row, self.agent_id) != "processing":
            return False
        since = attempt_started(row, self.agent_id)
        if not await answered_in_attempt(self.rest, self.room_id, self.agent_id, mid, since):
            return False
        log.info(
            "room %s: message %s was answered in its earlier attempt; settling it",
            self.room_id,
            mid,
        )
        return True

    async def _reported_earlier(self, item: Inbound, mid: str) -> bool:
        """Whether an earlier attempt of ``mid`` (before a restart) failed and told the room
        with an error card: the message is not run again (no second card), it stays failed.
        To try again, a person sends it again."""
        row = item.row
        if mid in self._ran or delivery_status(row, self.agent_id) != "failed":
            return False
        since = attempt_started(row, self.agent_id, "failed")
        if not await failure_reported(self.rest, self.room_id, self.agent_id, mid, since):
            return False
        log.info("room %s: message %s failed earlier and said so; not running it again",
                 self.room_id, mid)  # fmt: skip
        return True

    async def _flush(self, mid: str) -> None:
        """Post the message's recorded mark; one the platform could not take is owed."""
        if not await self.delivery.flush(self.room_id, mid) and self.delivery.unavailable:
            self._owe()

    async def _synthetic(self, item: Inbound) -> None:
        """A contact event in the hub room: a turn without claims, marks or a verdict."""
        self._idle.clear()
        try:
            result = await self._run_turn(item, final=False, synthetic=True)
        finally:
            self._idle.set()
        if result.ok is None:
            self._held.append(item)  # stopped mid-turn: run it again on ``play``

    async def _run_turn(self, item: Inbound, *, final: bool, synthetic: bool = False) -> TurnResult:
        """Run the adapter on the message (adapters get its dict, as band-sdk gives it).

        ``final``: a failure now uses up the message's last attempt (reported to the room).
        ``synthetic``: an injected hub-room contact event (not judged, no working state).
        """
        event = MessageEvent.from_row(item.row, item.raw, self.room_id)
        inp = await self.preprocessor.process(ctx=self.context, event=event, agent_id=self.agent_id)
        if inp is None:
            log.debug("room %s: message %s skipped by the preprocessor", self.room_id, item.row.id)
            return SUCCEEDED
        msg, tools = inp.msg, inp.tools
        binding = getattr(tools, "context", None)
        if isinstance(binding, ToolContext) and not synthetic:
            binding.trigger_id = item.row.id  # a post whose answer is lost is looked for after it
        self.turns += 1
        self._interrupt_mode = None
        self._tools = tools
        if self._trace is not None and hasattr(tools, "trace"):
            tools.trace = self._trace  # AgentTools records each tool call in it
        self._mark("adapter_start")
        self._turn = asyncio.create_task(self.adapter.on_event(inp), name=f"band-turn-{msg.id}")
        working = (
            contextlib.nullcontext()
            if synthetic or self.context.is_hub_room
            else WorkingState(self.rest, self.room_id, self.config, self._platform_stopped)
        )
        if isinstance(working, WorkingState):
            self._working = working  # its end report goes out alongside the processed mark
        try:
            limit = self.config.max_cycle_seconds
            async with working:
                await (asyncio.wait_for(self._turn, limit) if limit else self._turn)
        except asyncio.CancelledError:
            mode, self._interrupt_mode = self._interrupt_mode, None
            if mode is None:
                raise  # the worker itself is being cancelled
            log.info("room %s: turn %s ended by %s", self.room_id, msg.id, mode)
            return UNFINISHED if mode == "stop" else TurnResult(False, "interrupted")
        except Exception as exc:
            if _platform_unreachable(exc) and self._may_cut_off(msg.id, synthetic):
                # the platform went away mid-turn: not the message's fault; replay it later
                log.warning("room %s: platform unreachable during turn %s", self.room_id, msg.id)
                if not synthetic:
                    self._owe()
                return UNFINISHED
            _commit(inp)
            log.exception("room %s: adapter failed on message %s", self.room_id, msg.id)
            # an adapter that reported its own failure (send_failure landed) told the room
            reported = bool(getattr(getattr(tools, "turn", None), "reported", False))
            if final and self.config.report_turn_failures_to_room and not reported:
                failure = AgentFailure(TURN_FAILURE_PROVIDER, ADAPTER_FAILED, "adapter_error")
                await tools.send_failure(failure)
            label = f"{type(exc).__name__}: {exc}"
            if isinstance(exc, ProviderRunError):  # its detail may echo the prompt: logs only
                label = f"{type(exc).__name__}: {exc.code}"
            if isinstance(exc, TimeoutError) and self._turn.done() and self._turn.cancelled():
                label = f"turn exceeded max_cycle_seconds ({self.config.max_cycle_seconds}s)"
            return TurnResult(False, label[:500], retry=True)
        finally:
            self._mark("adapter_end")
            self._turn = None
            self._tools = None
            self._posted = posted_by(tools)
        _commit(inp)
        if synthetic:
            return SUCCEEDED  # a contact event owes the room nothing
        self.history.remember(item.raw)
        turn = getattr(tools, "turn", None)
        reason: str | None = getattr(turn, "failure", None)
        if reason:  # the adapter reported the failure itself: failed, and not run again
            log.warning("room %s: turn %s failed: %s", self.room_id, msg.id, reason)
            return TurnResult(False, reason[:500])
        if turn is None or not self.adapter.judges_turns or turn.detached or turn.complete:
            return SUCCEEDED
        log.warning("room %s: turn %s ended without a reply", self.room_id, msg.id)
        if self.config.report_turn_failures_to_room:
            failure = AgentFailure(TURN_FAILURE_PROVIDER, MISSING_REPLY, "missing_reply")
            await tools.send_failure(failure)
        return TurnResult(False, "missing reply")

    def _may_cut_off(self, mid: str, synthetic: bool) -> bool:
        """Count a cut-off turn of ``mid``; False once ``MAX_CUT_OFF`` in a row ran out."""
        if synthetic:
            return True
        cuts = self._cut_off[mid] = self._cut_off.get(mid, 0) + 1
        if len(self._cut_off) > MAX_UNSURE:
            del self._cut_off[next(iter(self._cut_off))]
        return cuts <= MAX_CUT_OFF


def _commit(inp: AgentInput) -> None:
    """The adapter had the input: the context it carried is no longer owed."""
    if inp.commit_context is not None:
        inp.commit_context()
