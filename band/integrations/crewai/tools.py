"""The Band tools as CrewAI tools: the ones ``CrewAIAdapter`` gives its crew, for crews of the
caller's own (a Flow's sub-crews, say).

A tool finds the room it acts in through ``get_context`` (the caller's, e.g. a ContextVar's
getter) and runs on the agent's event loop (``fallback_loop``) through the adapters' tool
path: the turn counts its effect, a failure comes back as error text. Its ``tool_call`` /
``tool_result`` events go to the ``reporter``.
"""

from __future__ import annotations

# the [crewai] extra is checked (one line naming it) by this package's __init__, which
# Python imports before this module
import asyncio
import inspect
import json
import logging
import uuid
from collections.abc import Awaitable, Callable, Coroutine, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar, runtime_checkable

from crewai.tools import BaseTool
from pydantic import BaseModel, PrivateAttr

from band.adapters._bandtools import BandToolSpec, registry_tool_specs
from band.adapters._model import EventPoster, ToolRun, post_tool_event, run_tool_call
from band.core.protocols import AgentToolsProtocol
from band.core.types import AdapterFeatures
from band.core.wire import JsonObject
from band.runtime.capabilities import Capability
from band.runtime.tools.custom import CustomToolDef, find_custom_tool
from band.runtime.tools.images import is_image_passthrough_result
from band.runtime.tools.registry import TOOLS
from band.runtime.tools.results import serialize_tool_result

from .runtime import run_async

__all__ = [
    "CrewAIToolContext",
    "CrewAIToolReporter",
    "EmitToolCallsReporter",
    "NoopReporter",
    "ReplyTracker",
    "build_band_crewai_tools",
    "serialize_success_result",
    "vision_sentinel",
]

log = logging.getLogger("band.integrations.crewai")

R = TypeVar("R")
#: What a tool answers when no room context is set (called outside a Band turn).
NO_CONTEXT = "No room context: the tool was called outside a Band turn"


@dataclass
class ReplyTracker:
    """One turn's record of its tool calls, shared with the tools: ``any_tool_ran`` once any
    tool was called (successful or not), ``posts`` what each successful
    ``band_send_message`` said (``(to @a @b) text`` when it mentioned someone)."""

    posts: list[str] = field(default_factory=list)
    any_tool_ran: bool = False


class ToolTurn(Protocol):
    """What guards a turn's tool calls: runs each one, or refuses once the turn is over."""

    def run_tool(self, operation: Callable[[], Coroutine[Any, Any, R]]) -> Awaitable[R]:
        """Run ``operation()`` as part of the turn (on the agent's loop)."""
        ...


@dataclass(frozen=True)
class CrewAIToolContext:
    """The room a tool call acts in and its Band tools; optionally the turn's
    :class:`ReplyTracker` and the guard its calls run under."""

    room_id: str
    tools: AgentToolsProtocol
    reply_tracker: ReplyTracker | None = None
    tool_turn: ToolTurn | None = None


@runtime_checkable
class CrewAIToolReporter(Protocol):
    """Reports a tool's call and its result (as ``tool_call`` / ``tool_result`` events, or
    not at all). Best effort: a reporter never raises. A reporter whose methods take a
    ``tool_call_id`` keyword gets the call's id."""

    async def report_call(
        self, tools: AgentToolsProtocol, tool_name: str, input_data: dict[str, Any]
    ) -> None:
        """The tool is about to run with ``input_data``."""
        ...

    async def report_result(
        self, tools: AgentToolsProtocol, tool_name: str, result: Any, is_error: bool = False
    ) -> None:
        """The tool ran: its output, and whether it failed."""
        ...


class EmitToolCallsReporter:
    """Posts the events when ``features`` has ``Emit.TOOL_CALLS`` (what ``CrewAIAdapter``
    does), in the body every adapter posts."""

    def __init__(self, features: AdapterFeatures) -> None:
        self._features = features

    async def report_call(
        self,
        tools: AgentToolsProtocol,
        tool_name: str,
        input_data: dict[str, Any],
        *,
        tool_call_id: str | None = None,
    ) -> None:
        """Post the ``tool_call`` event."""
        body: JsonObject = {"name": tool_name, "args": input_data}
        if tool_call_id is not None:
            body["tool_call_id"] = tool_call_id
        await post_tool_event(tools, self._features, "tool_call", body)

    async def report_result(
        self,
        tools: AgentToolsProtocol,
        tool_name: str,
        result: Any,
        is_error: bool = False,
        *,
        tool_call_id: str | None = None,
    ) -> None:
        """Post the ``tool_result`` event."""
        body: JsonObject = {"name": tool_name, "output": result, "is_error": is_error}
        if tool_call_id is not None:
            body["tool_call_id"] = tool_call_id
        await post_tool_event(tools, self._features, "tool_result", body)


class NoopReporter(CrewAIToolReporter):
    """Reports nothing (for callers that narrate the turn their own way): the protocol's own
    methods, which do nothing."""


def serialize_success_result(result: Any) -> str:
    """A successful tool result as the JSON text CrewAI hands the model: an object's fields
    after ``"status": "success"`` (its own ``status`` kept as ``result_status``), anything
    else under ``result``."""
    value = serialize_tool_result(result)
    if isinstance(value, Mapping):
        fields = dict(value)
        own = fields.pop("status", None)
        envelope: dict[str, Any] = {"status": "success", **fields}
        if own is not None:
            envelope["result_status"] = own
        return json.dumps(envelope, default=str)
    return json.dumps({"status": "success", "result": value}, default=str)


def vision_sentinel(result: Mapping[str, Any]) -> str:
    """The first image block of an image result (``band_read_room_file``'s ``content``) as
    CrewAI's ``VISION_IMAGE:<mime type>:<base64>`` text, which CrewAI's executor turns into
    an image the model sees."""
    block = result["content"][0]
    return f"VISION_IMAGE:{block['mimeType']}:{block['data']}"


class BandCrewAITool(BaseTool):  # type: ignore[misc]  # crewai is not in the dev venv (mypy: Any)
    """One Band tool (platform or custom) as a CrewAI tool; CrewAI calls it from its worker
    thread and the call runs on the agent's loop through the adapters' tool path."""

    #: CrewAI's result cache never answers for a Band tool (a repeated message is sent again)
    cache_function: Callable[..., bool] = lambda *_args, **_kw: False

    _get_context: Callable[[], CrewAIToolContext | None] = PrivateAttr()
    _reporter: CrewAIToolReporter = PrivateAttr()
    _features: AdapterFeatures = PrivateAttr()
    _custom: Sequence[CustomToolDef] = PrivateAttr()
    _loop: asyncio.AbstractEventLoop | None = PrivateAttr(default=None)

    def _run(self, *_args: Any, **arguments: Any) -> str:
        context = self._get_context()
        if context is None:
            return json.dumps({"status": "error", "message": NO_CONTEXT})
        call_id = f"call_{uuid.uuid4().hex[:24]}"
        post = _poster(self._reporter, context.tools)

        async def execute() -> ToolRun:
            return await run_tool_call(
                context.tools,
                self._custom,
                self._features,
                self.name,
                arguments,
                call_id,
                post=post,
            )

        guarded = execute() if context.tool_turn is None else context.tool_turn.run_tool(execute)
        try:
            run = run_async(_awaited(guarded), self._loop)
        except Exception as exc:  # the turn refused the call (it is over): the model reads why
            run = ToolRun(f"Error: {exc}", ok=False, is_error=True)
        if context.reply_tracker is not None:
            _track(context.reply_tracker, self.name, run, arguments)
        return _model_text(self.name, run)


async def _awaited(operation: Awaitable[R]) -> R:
    return await operation


def _poster(reporter: CrewAIToolReporter, tools: AgentToolsProtocol) -> EventPoster:
    """The run's events handed to ``reporter`` (with the call's id when it takes one)."""
    with_id = all(
        "tool_call_id" in inspect.signature(method).parameters
        for method in (reporter.report_call, reporter.report_result)
    )

    async def post(kind: str, body: JsonObject) -> None:
        ids: dict[str, Any] = {"tool_call_id": body["tool_call_id"]} if with_id else {}
        name = str(body["name"])
        try:
            if kind == "tool_call":
                args = body["args"] if isinstance(body["args"], dict) else {}
                await reporter.report_call(tools, name, args, **ids)
            else:
                error = bool(body["is_error"])
                await reporter.report_result(tools, name, body["output"], error, **ids)
        except Exception as exc:  # a reporter is best effort: the call goes on
            log.warning("the %s reporter failed: %s", kind, exc)

    return post


def _track(tracker: ReplyTracker, name: str, run: ToolRun, arguments: Mapping[str, Any]) -> None:
    tracker.any_tool_ran = True
    if name != "band_send_message" or not run.ok:
        return
    content = str(arguments.get("content", ""))
    mentions = " ".join(str(m) for m in arguments.get("mentions") or [])
    tracker.posts.append(f"(to {mentions}) {content}" if mentions else content)


def _model_text(name: str, run: ToolRun) -> str:
    """What the model reads: the tool's output; an image CrewAI shows it as an image."""
    if run.ok and name == "band_read_room_file":
        try:
            value = json.loads(run.output)
        except ValueError:
            return run.output
        if is_image_passthrough_result(name, value):
            return vision_sentinel(value)
    return run.output


def crewai_tools(
    specs: Sequence[BandToolSpec],
    *,
    get_context: Callable[[], CrewAIToolContext | None],
    reporter: CrewAIToolReporter,
    features: AdapterFeatures,
    custom_tools: Sequence[CustomToolDef] = (),
    fallback_loop: asyncio.AbstractEventLoop | None = None,
) -> list[BaseTool]:
    """``specs`` as CrewAI tools (what the adapter and :func:`build_band_crewai_tools` share)."""
    tools = []
    for spec in specs:
        custom = find_custom_tool(custom_tools, spec.name)
        schema: type[BaseModel] = custom[0] if custom else TOOLS[spec.name].input_model
        tool = BandCrewAITool(name=spec.name, description=spec.description, args_schema=schema)
        tool._get_context = get_context
        tool._reporter = reporter
        tool._features = features
        tool._custom = list(custom_tools)
        tool._loop = fallback_loop
        tools.append(tool)
    return tools


def build_band_crewai_tools(
    *,
    get_context: Callable[[], CrewAIToolContext | None],
    reporter: CrewAIToolReporter,
    capabilities: frozenset[Capability] = frozenset(),
    features: AdapterFeatures | None = None,
    custom_tools: list[CustomToolDef] | None = None,
    fallback_loop: asyncio.AbstractEventLoop | None = None,
) -> list[BaseTool]:
    """The Band tools as CrewAI tools: the chat tools, the groups ``capabilities`` (or
    ``features``, with its tool and category filters) enables, then ``custom_tools``
    (``(InputModel, handler)``). Each call acts in the room ``get_context()`` names (an
    error text without one) and runs on ``fallback_loop`` (the agent's loop: CrewAI calls
    tools from a worker thread); ``reporter`` gets its events."""
    active = features or AdapterFeatures(capabilities=frozenset(capabilities))
    custom = list(custom_tools or [])
    return crewai_tools(
        registry_tool_specs(active, custom),
        get_context=get_context,
        reporter=reporter,
        features=active,
        custom_tools=custom,
        fallback_loop=fallback_loop,
    )
