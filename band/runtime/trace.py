"""The turn trace: each turn's timeline, recorded at the runtime's points and told once per turn.

The runtime calls a :class:`TurnRecorder` where a turn passes a point (message received, claim,
processing mark, adapter start and end, each tool call, retries, the settlement); the recorder
keeps the last turns (``recent()``), logs one INFO line per finished turn on ``band.turns``,
and hands the same :class:`TurnTrace` to its sinks: the runtime adds OpenTelemetry spans when
``opentelemetry-api`` is installed (``band.runtime.trace_otel``, which builds on this module).
Times are seconds since the trace began (monotonic), plus the wall-clock start, so a trace maps
onto spans exactly.
"""

from __future__ import annotations

import logging
import time
from collections import OrderedDict, deque
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import msgspec

__all__ = ["ToolCall", "TraceEvent", "TurnRecorder", "TurnTrace", "argument_size"]

log = logging.getLogger("band.turns")

#: Finished turns a recorder keeps for ``recent()``.
KEEP_TURNS = 50
#: Message receipt times kept until their turn begins (older ones are dropped first).
KEEP_RECEIVED = 1000


def argument_size(arguments: Mapping[str, Any]) -> int:
    """Bytes of the arguments as JSON (their repr's length when they are not JSON)."""
    try:
        return len(msgspec.json.encode(arguments))
    except (TypeError, ValueError, msgspec.EncodeError):
        return len(repr(arguments))


@dataclass(slots=True)
class TraceEvent:
    """One point of a turn: its name, seconds since the trace began, and what it found."""

    name: str
    at: float
    detail: dict[str, Any] = field(default_factory=dict)


@dataclass(slots=True)
class ToolCall:
    """One tool call of a turn: name, argument bytes, outcome, start and end (trace seconds)."""

    name: str
    args_bytes: int
    ok: bool
    start: float
    end: float
    error: str | None = None

    @property
    def duration(self) -> float:
        """Seconds the call took."""
        return self.end - self.start


@dataclass(slots=True)
class TurnTrace:
    """The timeline of one turn of one message in one room."""

    agent_id: str
    room_id: str
    message_id: str
    attempt: int
    #: wall-clock start (seconds since the epoch) and the monotonic origin of every ``at``
    started_at: float
    t0: float
    events: list[TraceEvent] = field(default_factory=list)
    tools: list[ToolCall] = field(default_factory=list)
    outcome: str | None = None
    error: str | None = None
    duration: float = 0.0

    def now(self) -> float:
        """Seconds since the trace began."""
        return time.monotonic() - self.t0

    def mark(self, name: str, **detail: Any) -> None:
        """Record that the turn passed ``name`` now."""
        self.events.append(TraceEvent(name, round(self.now(), 6), detail))

    def tool(
        self, name: str, arguments: Mapping[str, Any], start: float, *, error: str | None = None
    ) -> None:
        """Record a tool call that began at monotonic ``start`` and ends now."""
        self.tools.append(
            ToolCall(
                name,
                argument_size(arguments),
                error is None,
                round(start - self.t0, 6),
                round(self.now(), 6),
                error,
            )
        )

    def at(self, name: str) -> float | None:
        """When the turn (last) passed ``name``, or None."""
        return next((e.at for e in reversed(self.events) if e.name == name), None)

    def line(self) -> str:
        """The one-line summary logged for the turn."""
        parts = [f"{e.name} +{e.at:.3f}s" for e in self.events]
        parts += [
            f"tool {t.name}({t.args_bytes} B) {'ok' if t.ok else 'failed'} {t.duration:.3f}s"
            for t in self.tools
        ]
        failed = f" ({self.error})" if self.error else ""
        return (
            f"turn room={self.room_id} message={self.message_id} attempt={self.attempt} "
            f"{self.outcome}{failed} in {self.duration:.3f}s: {', '.join(parts)}"
        )

    def as_dict(self) -> dict[str, Any]:
        """The trace as plain JSON-able data."""
        return msgspec.to_builtins(self)  # type: ignore[no-any-return]


Sink = Callable[[TurnTrace], None]


class TurnRecorder:
    """Records the turns of one agent: keeps the last ones, logs each, feeds the sinks."""

    def __init__(
        self, agent_id: str, *, keep: int = KEEP_TURNS, sinks: Iterable[Sink] = ()
    ) -> None:
        self.agent_id = agent_id
        self._recent: deque[TurnTrace] = deque(maxlen=keep)
        self._received: OrderedDict[str, float] = OrderedDict()
        #: called with each finished trace (the runtime adds ``trace_otel.otel_sink``)
        self.sinks: list[Sink] = list(sinks)

    def received(self, message_id: str) -> None:
        """The message reached the agent (a push or a listing); its turn may come later."""
        if message_id and message_id not in self._received:
            self._received[message_id] = time.monotonic()
            while len(self._received) > KEEP_RECEIVED:
                self._received.popitem(last=False)

    def begin(self, room_id: str, message_id: str, attempt: int) -> TurnTrace:
        """A new trace for the turn of ``message_id`` (from its receipt, when that is known)."""
        now = time.monotonic()
        received = self._received.pop(message_id, None)
        t0 = received if received is not None and received <= now else now
        trace = TurnTrace(self.agent_id, room_id, message_id, attempt, time.time() - (now - t0), t0)
        if received is not None:
            trace.events.append(TraceEvent("received", 0.0))
        trace.mark("claimed")
        return trace

    def finish(self, trace: TurnTrace, outcome: str, error: str | None = None) -> None:
        """The turn is over: keep it, log its line, hand it to the sinks."""
        trace.outcome = outcome
        trace.error = error
        trace.duration = round(trace.now(), 6)
        self._recent.append(trace)
        if log.isEnabledFor(logging.INFO):
            log.info("%s", trace.line())
        for sink in self.sinks:
            try:
                sink(trace)
            except Exception:  # a broken exporter must not break the agent's turns
                log.exception("turn trace sink %r failed", sink)

    def recent(self) -> list[TurnTrace]:
        """The last finished turns, oldest first."""
        return list(self._recent)
