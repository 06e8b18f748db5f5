"""The turn step of the delivery pipeline: the preprocessor builds the input, the adapter runs.

One ``TurnRunner`` per room runs its turns one at a time and judges how each ended
(``TurnResult``): answered, failed (and whether it may run again), or unfinished (stopped or
cut off by an unavailable platform: the message stays ``processing`` and is replayed).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from time import monotonic
from typing import Any, NamedTuple

from band.client.rest import transient
from band.core.exceptions import ProviderRunError
from band.core.preprocessor import Preprocessor
from band.core.protocols import AgentToolsProtocol
from band.core.simple_adapter import SimpleAdapter
from band.core.turn import MISSING_REPLY, TURN_FAILURE_PROVIDER, AgentFailure
from band.core.types import AgentInput
from band.runtime.rooms.answered import posted_by
from band.runtime.rooms.context import RoomContext
from band.runtime.rooms.deadline import Deadline
from band.runtime.rooms.events import MessageEvent
from band.runtime.rooms.messages import Inbound
from band.runtime.rooms.working import WorkingState
from band.runtime.sessionconfig import SessionConfig
from band.runtime.tools.ops import ToolContext
from band.runtime.trace import TurnTrace

__all__ = [
    "ADAPTER_FAILED",
    "INTERRUPTED",
    "MAX_CUT_OFF",
    "SUCCEEDED",
    "UNFINISHED",
    "TurnResult",
    "TurnRunner",
]

log = logging.getLogger("band.runtime.rooms.execution")

#: Messages per room whose cut-off count is remembered (oldest forgotten first).
MAX_CUT_OFF_KEPT = 64
#: Times in a row a message's turn may be cut off by an unavailable platform (each after its
#: calls' own retries ran out) before the turn counts as failed.
MAX_CUT_OFF = 5
#: Generic room text for a turn that raised; the exception itself stays in the logs.
ADAPTER_FAILED = "The agent hit an error while handling this message and could not answer it."
#: The failed mark's error of a turn ended by an ``interrupt`` (the platform keeps it with the
#: attempt: after a restart the message is not run again, see ``DeliveryPipeline``).
INTERRUPTED = "interrupted"


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


def _platform_unreachable(exc: BaseException) -> bool:
    """Whether ``exc`` (or what caused it) is a failure to reach the platform, or a transient
    refusal (429, 5xx) that outlasted the call's retries."""
    seen: BaseException | None = exc
    walked: set[int] = set()  # a chain may loop (crewai raises ``e from e``)
    while seen is not None and id(seen) not in walked:
        walked.add(id(seen))
        if transient(seen):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def _commit(inp: AgentInput) -> None:
    """The adapter had the input: the context it carried is no longer owed."""
    if inp.commit_context is not None:
        inp.commit_context()


class TurnRunner:
    """Runs one room's turns: input, adapter, working indicator, and the verdict on the turn."""

    def __init__(
        self,
        context: RoomContext,
        adapter: SimpleAdapter[Any],  # any history type: the runtime only hands it over
        preprocessor: Preprocessor,
        config: SessionConfig,
        *,
        owe: Callable[[], None],
        platform_stopped: Callable[[], None],
    ) -> None:
        self.context = context
        self.room_id = context.room_id
        self.agent_id = context.agent_id
        self.adapter = adapter
        self.preprocessor = preprocessor
        self.config = config
        self._owe = owe
        self._platform_stopped = platform_stopped
        self.turns = 0
        self._turn: asyncio.Task[None] | None = None
        self._tools: AgentToolsProtocol | None = None  # the running turn's tools
        self._interrupt_mode: str | None = None
        #: texts the last turn posted, answered or not
        self.posted: list[str] = []
        #: the last turn's indicator, when it was shown: its end report goes out alongside
        #: the processed mark
        self.working: WorkingState | None = None
        self._delays = Deadline()  # the indicators' delay timer, shared by the room's turns
        self._started = 0.0  # when the running turn's adapter started (monotonic)
        #: message id -> turns cut off in a row (empty but after an unavailable platform)
        self.cut_off: dict[str, int] = {}

    @property
    def running(self) -> asyncio.Task[None] | None:
        """The adapter's task of the turn running now (None between turns)."""
        return self._turn

    def interrupt(self, mode: str) -> None:
        """Cancel the running turn (``mode``: interrupt or stop), if there is one."""
        if self._turn is not None and not self._turn.done():
            self._interrupt_mode = mode
            self._turn.cancel()

    def participants_changed(self) -> None:
        """Hand the running turn's tools the new participant list (for mentions)."""
        set_participants = getattr(self._tools, "set_participants", None)
        if callable(set_participants):
            set_participants(self.context.room_participants.snapshot())

    def settled(self, mid: str) -> None:
        """The message's turn was settled: its cut-offs are forgotten."""
        self.cut_off.pop(mid, None)

    def end_report(self) -> Awaitable[None] | None:
        """The last turn's working indicator's end report to wait for (it went out with the
        mark); None when the turn showed no indicator (a fast turn, most): nothing to await."""
        working, self.working = self.working, None
        if working is None or not working.closing:
            return None
        return working.closed()

    async def run(
        self,
        item: Inbound,
        *,
        final: bool,
        synthetic: bool = False,
        trace: TurnTrace | None = None,
    ) -> TurnResult:
        """Run the adapter on the message (adapters get its dict, as band-sdk gives it).

        ``final``: a failure now uses up the message's last attempt (reported to the room).
        ``synthetic``: an injected hub-room contact event (not judged, no working state).
        ``trace``: the running turn's trace (adapter start and end, each tool call).
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
            binding.trigger_at = item.row.inserted_at
        self.turns += 1
        self._interrupt_mode = None
        self._tools = tools
        started = self._started = monotonic()  # the trace's point and the indicator's start
        if trace is not None:
            if hasattr(tools, "trace"):
                tools.trace = trace  # AgentTools records each tool call in it
            trace.points.append(("adapter_start", started, {}))
        self._turn = asyncio.create_task(self.adapter.on_event(inp), name=f"band-turn-{msg.id}")
        # the working indicator is made only once the turn has run its delay: a fast turn
        # (most) arms and drops the room's delay timer, and nothing else
        self.working = None
        indicated = (  # the last test: not ``is_hub_room``, without the property's call
            not synthetic
            and self.config.enable_working_state
            and self.room_id != self.context.hub_room_id
        )
        if indicated:
            delay = self.config.working_indicator_delay_s
            if delay <= 0:
                self._show_working()
            else:
                self._delays.arm(delay, self._show_working)
        try:
            limit = self.config.max_cycle_seconds
            try:
                await (asyncio.wait_for(self._turn, limit) if limit else self._turn)
            finally:
                if indicated:
                    self._delays.cancel()
                    if self.working is not None:
                        await self.working.end()
        except asyncio.CancelledError:
            mode, self._interrupt_mode = self._interrupt_mode, None
            if mode is None:
                raise  # the worker itself is being cancelled
            log.info("room %s: turn %s ended by %s", self.room_id, msg.id, mode)
            return UNFINISHED if mode == "stop" else TurnResult(False, INTERRUPTED)
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
            if trace is not None:
                trace.points.append(("adapter_end", monotonic(), {}))
            self._turn = None
            self._tools = None
            self.posted = posted_by(tools)
        if inp.commit_context is not None:  # ``_commit``, inlined: every turn passes here
            inp.commit_context()
        if synthetic:
            return SUCCEEDED  # a contact event owes the room nothing
        self.context.history.remember(item.raw)
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

    def _show_working(self) -> None:
        """The running turn has run the indicator's delay: show the indicator."""
        working = WorkingState(
            self.context.rest, self.room_id, self.config, self._platform_stopped, self._delays
        )
        self.working = working
        working.show(self._started)

    def _may_cut_off(self, mid: str, synthetic: bool) -> bool:
        """Count a cut-off turn of ``mid``; False once ``MAX_CUT_OFF`` in a row ran out."""
        if synthetic:
            return True
        cuts = self.cut_off[mid] = self.cut_off.get(mid, 0) + 1
        if len(self.cut_off) > MAX_CUT_OFF_KEPT:
            del self.cut_off[next(iter(self.cut_off))]
        return cuts <= MAX_CUT_OFF
