"""CrewAI helpers of band-sdk 6.0.1: the Band tools as CrewAI tools (the ones ``CrewAIAdapter``
gives its crew), the room context they run in, how their events are reported, and the bridge
that runs their coroutines from CrewAI's synchronous tools. Needs the [crewai] extra."""

from __future__ import annotations

from band._extras import require_module

require_module("crewai", "band.integrations.crewai")  # optional: say how to get it

from .runtime import run_async  # noqa: E402
from .tools import (  # noqa: E402
    CrewAIToolContext,
    CrewAIToolReporter,
    EmitToolCallsReporter,
    NoopReporter,
    ReplyTracker,
    build_band_crewai_tools,
    serialize_success_result,
)

__all__ = [
    "CrewAIToolContext",
    "CrewAIToolReporter",
    "EmitToolCallsReporter",
    "NoopReporter",
    "ReplyTracker",
    "build_band_crewai_tools",
    "run_async",
    "serialize_success_result",
]
