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
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from time import monotonic
from typing import Any

import msgspec

__all__ = ["ToolCall", "TraceEvent", "TurnRecorder", "TurnTrace", "argument_size"]

log = logging.getLogger("band.turns")

#: Finished turns a recorder keeps for ``recent()``.
KEEP_TURNS = 50


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


@dataclass(slots=True, eq=False, repr=False)
class TurnTrace:
    """The timeline of one turn of one message in one room.

    Recording a point or a tool call appends one tuple (its name, the monotonic time and
    what it found, as passed): nothing is formatted, rounded or measured while the turn runs.
    The runtime's own points, one per step of every message, are appended to ``points``
    directly (no call but the append and the clock's); ``mark`` does the same for others.
    ``events``, ``tools``, ``line()`` and ``as_dict()`` build their views when they are read,
    by a sink, the log line or ``recent()``'s reader. Traces compare by identity (``eq=False``).
    """

    agent_id: str
    room_id: str
    message_id: str
    attempt: int
    #: wall-clock start (seconds since the epoch) and the monotonic origin of every ``at``
    started_at: float
    t0: float
    outcome: str | None = field(default=None, init=False)
    error: str | None = field(default=None, init=False)
    duration: float = field(default=0.0, init=False)
    #: the points passed, as recorded: (name, ``time.monotonic()``, detail)
    points: list[tuple[str, float, dict[str, Any]]] = field(default_factory=list, init=False)
    _calls: list[tuple[str, Mapping[str, Any], float, float, str | None]] = field(
        default_factory=list, init=False
    )

    def __repr__(self) -> str:
        return (
            f"TurnTrace(room_id={self.room_id!r}, message_id={self.message_id!r}, "
            f"attempt={self.attempt}, outcome={self.outcome!r})"
        )

    def now(self) -> float:
        """Seconds since the trace began."""
        return monotonic() - self.t0

    def mark(self, name: str, **detail: Any) -> None:
        """Record that the turn passed ``name`` now."""
        self.points.append((name, monotonic(), detail))

    def tool(
        self, name: str, arguments: Mapping[str, Any], start: float, *, error: str | None = None
    ) -> None:
        """Record a tool call that began at monotonic ``start`` and ends now (its arguments'
        size is measured when the call is read)."""
        self._calls.append((name, arguments, start, monotonic(), error))

    @property
    def events(self) -> list[TraceEvent]:
        """The points the turn passed, in order (seconds since the trace began)."""
        t0 = self.t0
        return [TraceEvent(name, round(at - t0, 6), detail) for name, at, detail in self.points]

    @property
    def tools(self) -> list[ToolCall]:
        """The turn's tool calls, in order."""
        t0 = self.t0
        return [
            ToolCall(
                name,
                argument_size(arguments),
                error is None,
                round(start - t0, 6),
                round(end - t0, 6),
                error,
            )
            for name, arguments, start, end, error in self._calls
        ]

    def at(self, name: str) -> float | None:
        """When the turn (last) passed ``name``, or None."""
        found = next((at for n, at, _ in reversed(self.points) if n == name), None)
        return None if found is None else round(found - self.t0, 6)

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
        data = {
            "agent_id": self.agent_id,
            "room_id": self.room_id,
            "message_id": self.message_id,
            "attempt": self.attempt,
            "started_at": self.started_at,
            "t0": self.t0,
            "events": self.events,
            "tools": self.tools,
            "outcome": self.outcome,
            "error": self.error,
            "duration": self.duration,
        }
        return msgspec.to_builtins(data)  # type: ignore[no-any-return]


Sink = Callable[[TurnTrace], None]


class TurnRecorder:
    """Records the turns of one agent: keeps the last ones, logs each, feeds the sinks."""

    def __init__(
        self, agent_id: str, *, keep: int = KEEP_TURNS, sinks: Iterable[Sink] = ()
    ) -> None:
        self.agent_id = agent_id
        self._recent: deque[TurnTrace] = deque(maxlen=keep)
        #: called with each finished trace (the runtime adds ``trace_otel.otel_sink``)
        self.sinks: list[Sink] = list(sinks)

    def begin(
        self, room_id: str, message_id: str, attempt: int, received: float | None = None
    ) -> TurnTrace:
        """A new trace for the turn of ``message_id``, from its receipt: when the push brought
        it (``received``, monotonic), else now (a message ``/next`` served reached us now)."""
        now = monotonic()
        t0 = received if received is not None and received <= now else now
        trace = TurnTrace(self.agent_id, room_id, message_id, attempt, time.time() - (now - t0), t0)
        # both points at once, their times taken above: the receipt, and the claim now
        trace.points = [("received", t0, {}), ("claimed", now, {})]
        return trace

    def finish(
        self, trace: TurnTrace, outcome: str, error: str | None = None, *, end: float | None = None
    ) -> None:
        """The turn is over: keep it, log its line, hand it to the sinks.

        ``end``: when it ended (monotonic; now when not given), such as its last point's time.
        """
        trace.outcome = outcome
        trace.error = error
        trace.duration = round((monotonic() if end is None else end) - trace.t0, 6)
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
