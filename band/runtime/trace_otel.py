"""OpenTelemetry spans from turn traces, when ``opentelemetry-api`` is installed (extra ``otel``).

Each finished :class:`~band.runtime.trace.TurnTrace` becomes a ``band.turn`` span (its points as
span events, the outcome as attributes and status) with a child span for the adapter's run and
one per tool call, all with the trace's own start and end times. The spans go to the tracer
provider the application configured (``opentelemetry.trace.set_tracer_provider``); until there
is one, no span is built.
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .trace import TurnTrace

__all__ = ["otel_sink", "spans_of"]

_NS = 1_000_000_000


def otel_sink() -> Callable[[TurnTrace], None] | None:
    """A sink emitting spans, or None when ``opentelemetry`` is not installed.

    Nothing of opentelemetry is imported here or per turn until the application imported it:
    a tracer provider can only have been configured through ``opentelemetry.trace``, so
    until that module is loaded a finished turn costs one dict lookup (and no import's memory).
    """
    if importlib.util.find_spec("opentelemetry") is None:
        return None

    def sink(turn: TurnTrace) -> None:
        otel_trace = sys.modules.get("opentelemetry.trace")
        if otel_trace is None:  # never imported: no provider was configured
            return
        provider = otel_trace.get_tracer_provider()
        # no provider configured (yet): the spans would be dropped, so none are built
        if isinstance(provider, otel_trace.ProxyTracerProvider | otel_trace.NoOpTracerProvider):
            return
        spans_of(turn, provider.get_tracer("band.runtime"))

    return sink


def spans_of(turn: TurnTrace, tracer: Any) -> None:
    """Emit ``turn`` as spans with ``tracer`` (an ``opentelemetry.trace.Tracer``)."""
    from opentelemetry import trace as otel_trace
    from opentelemetry.trace import Status, StatusCode

    def ns(at: float) -> int:
        return int((turn.started_at + at) * _NS)

    root = tracer.start_span(
        "band.turn",
        start_time=ns(0.0),
        attributes={
            "band.agent_id": turn.agent_id,
            "band.room_id": turn.room_id,
            "band.message_id": turn.message_id,
            "band.attempt": turn.attempt,
            "band.outcome": turn.outcome or "",
        },
    )
    for event in turn.events:
        attributes = {k: str(v) for k, v in event.detail.items()}
        root.add_event(event.name, attributes=attributes, timestamp=ns(event.at))
    parent = otel_trace.set_span_in_context(root)
    start, end = turn.at("adapter_start"), turn.at("adapter_end")
    if start is not None:
        adapter = tracer.start_span("band.adapter", context=parent, start_time=ns(start))
        adapter.end(end_time=ns(end if end is not None else turn.duration))
    for call in turn.tools:
        span = tracer.start_span(
            f"band.tool {call.name}",
            context=parent,
            start_time=ns(call.start),
            attributes={"band.tool": call.name, "band.args_bytes": call.args_bytes},
        )
        if not call.ok:
            span.set_status(Status(StatusCode.ERROR, call.error or "failed"))
        span.end(end_time=ns(call.end))
    if turn.outcome not in ("processed",):
        root.set_status(Status(StatusCode.ERROR, turn.error or turn.outcome or "unfinished"))
    root.end(end_time=ns(turn.duration))
