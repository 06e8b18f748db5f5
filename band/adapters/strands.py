"""``StrandsAdapter``: a Strands Agents agent (strands-agents) in Band rooms.

Each turn runs a Strands ``Agent`` over the room's transcript, with the Band tools as native
Strands tools beside the caller's own Strands tools. Needs the ``[strands]`` extra (imported
with this module)::

    from strands.models.openai import OpenAIModel

    adapter = StrandsAdapter(
        StrandsAdapterConfig(custom_section="You answer weather questions."),
        llm=OpenAIModel(model_id="gpt-5-mini"),
        additional_tools=[get_forecast],  # @strands.tool functions and/or (InputModel, handler)
    )

``config.model`` names a Bedrock model id instead of ``llm`` (exactly one of the two). A
Strands tool's declared turn effect (``declares_turn_effect``) is observed: a successful call
records it, as a custom tool's does.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Unpack, cast

from band._extras import require

require("strands", "StrandsAdapter")  # an optional dependency: say how to get it

from strands import Agent  # noqa: E402
from strands.hooks import (  # noqa: E402
    AfterToolCallEvent,
    BeforeToolCallEvent,
    HookProvider,
    HookRegistry,
)
from strands.models import Model  # noqa: E402
from strands.types.tools import AgentTool, ToolGenerator, ToolSpec, ToolUse  # noqa: E402

from band.converters.strands import StrandsHistoryConverter, StrandsMessages  # noqa: E402
from band.core.protocols import AgentToolsProtocol  # noqa: E402
from band.core.simple_adapter import FeatureKwargs  # noqa: E402
from band.core.types import PlatformMessage  # noqa: E402
from band.core.wire import JsonObject  # noqa: E402
from band.runtime.tools.custom import (  # noqa: E402
    CustomToolDef,
    get_custom_tool_name,
    reject_conflicting_tool_names,
)

from ._bandtools import BandToolSpec, FrameworkConfig, NativeToolEvents, native_effects  # noqa: E402
from ._base import FrameworkAdapterBase  # noqa: E402
from ._model import RoomTranscripts, empty_usage  # noqa: E402

__all__ = ["StrandsAdapter", "StrandsAdapterConfig", "StrandsCustomTool"]


#: A custom tool: a Strands tool (``@strands.tool`` function or ``AgentTool``) or a portable
#: ``(InputModel, handler)`` pair.
StrandsCustomTool = Callable[..., Any] | AgentTool | CustomToolDef


class StrandsAdapterConfig(FrameworkConfig):
    """Settings of :class:`StrandsAdapter`.

    ``model`` is a Bedrock model id Strands resolves (None when the adapter gets ``llm``);
    ``system_prompt`` replaces the rendered Band prompt; ``custom_section`` is added to it.
    """

    model: str | None = None
    system_prompt: str | None = None
    custom_section: str | None = None


def _tool_name(tool: StrandsCustomTool) -> str:
    """The name Strands registers a custom tool under."""
    if isinstance(tool, tuple):
        return get_custom_tool_name(tool[0])
    if isinstance(tool, AgentTool):
        return tool.tool_name
    name = getattr(tool, "__name__", "")
    if not name:
        raise ValueError(
            f"custom tool {tool!r} has no name: pass a named function, a @strands.tool "
            "tool or an (InputModel, handler) pair"
        )
    return str(name)


class _BandTool(AgentTool):
    """One Band tool (platform or ``(InputModel, handler)``) as a native Strands tool."""

    def __init__(self, spec: BandToolSpec, run: Callable[[str, ToolUse], Any]) -> None:
        super().__init__()
        self._name = spec.name
        self._run = run
        # a fresh schema per tool: Strands fills defaults into the schema it is given
        self._spec: ToolSpec = {
            "name": spec.name,
            "description": spec.description or spec.name,
            "inputSchema": {"json": dict(spec.parameters)},
        }

    @property
    def tool_name(self) -> str:
        """The tool's name."""
        return self._name

    @property
    def tool_spec(self) -> ToolSpec:
        """The tool's name, description and input schema."""
        return self._spec

    @property
    def tool_type(self) -> str:
        """A plain function tool."""
        return "function"

    async def stream(
        self, tool_use: ToolUse, invocation_state: dict[str, Any], **kwargs: Any
    ) -> ToolGenerator:
        """Run the call through Band; one result."""
        del invocation_state, kwargs
        run = await self._run(self._name, tool_use)
        yield {
            "toolUseId": tool_use["toolUseId"],
            "status": "success" if run.ok else "error",
            "content": [{"text": run.output}],
        }


class _TurnHooks(HookProvider):
    """The Strands hooks of one turn: events and declared effects of the caller's Strands
    tools, and the end of the loop after a successful ``band_no_reply``."""

    def __init__(self, band_names: set[str], events: NativeToolEvents) -> None:
        self._band = band_names
        self._events = events

    def register_hooks(self, registry: HookRegistry, **kwargs: Any) -> None:
        """Register the before/after tool callbacks."""
        registry.add_callback(BeforeToolCallEvent, self._before)
        registry.add_callback(AfterToolCallEvent, self._after)

    async def _before(self, event: BeforeToolCallEvent) -> None:
        use = event.tool_use
        if use["name"] not in self._band:  # Band tools post their own events
            await self._events.called(use["name"], use.get("input") or {}, use["toolUseId"])

    async def _after(self, event: AfterToolCallEvent) -> None:
        use, result = event.tool_use, event.result
        ok = result.get("status") == "success" and event.exception is None
        if use["name"] == "band_no_reply" and ok:
            # a decline ends the turn: the batch's other tools finish, no further model call
            event.agent.cancel(after_current_tools=True)
        if use["name"] in self._band:
            return
        texts = [b["text"] for b in result.get("content", []) if "text" in b]
        await self._events.finished(use["name"], "\n".join(texts), use["toolUseId"], ok=ok)


def _openai_order(messages: StrandsMessages) -> StrandsMessages:
    """Tool results ahead of text in a message (Strands' OpenAI models send results as
    ``tool`` messages, which must directly follow the call)."""
    out: StrandsMessages = []
    for message in messages:
        blocks = cast(list[JsonObject], message["content"])
        results = [b for b in blocks if "toolResult" in b]
        rest = [b for b in blocks if "toolResult" not in b]
        if results and rest:
            out.append({"role": message["role"], "content": results})
            out.append({"role": message["role"], "content": rest})
        else:
            out.append(message)
    return out


class StrandsAdapter(FrameworkAdapterBase[StrandsMessages]):
    """Runs each turn as a Strands agent loop with the Band tools as Strands tools."""

    PROVIDER = "strands"

    def __init__(
        self,
        config: StrandsAdapterConfig | None = None,
        *,
        history_converter: StrandsHistoryConverter | None = None,
        additional_tools: Sequence[StrandsCustomTool] | None = None,
        llm: Model | None = None,
        **features: Unpack[FeatureKwargs],
    ) -> None:
        super().__init__(
            history_converter=history_converter or StrandsHistoryConverter(), **features
        )
        self.config = config or StrandsAdapterConfig()
        model = llm if llm is not None else self.config.model
        if model is None or (llm is not None and self.config.model is not None):
            raise ValueError("Set exactly one of config.model or llm")
        #: the Strands model (or Bedrock model id) every turn's agent uses
        self.llm: Model | str = model
        tools = list(additional_tools or [])
        names = [_tool_name(t) for t in tools]
        reject_conflicting_tool_names(names)  # Strands' registry would keep the last silently
        self._take_custom_tools([t for t in tools if isinstance(t, tuple)])
        self._native = [t for t in tools if not isinstance(t, tuple)]
        self._native_effects = native_effects(
            (n, t) for n, t in zip(names, tools, strict=True) if not isinstance(t, tuple)
        )
        self._history: RoomTranscripts[JsonObject] = RoomTranscripts()
        self._system_prompt = ""

    async def on_started(self, agent_name: str, agent_description: str) -> None:
        """Render the system prompt once the agent's name and description are known."""
        await super().on_started(agent_name, agent_description)
        self._system_prompt = self.config.system_prompt or self._band_prompt(
            self.config.custom_section
        )

    async def on_message(
        self,
        msg: PlatformMessage,
        tools: AgentToolsProtocol,
        history: StrandsMessages,
        participants_msg: str | None,
        contacts_msg: str | None,
        *,
        is_session_bootstrap: bool,
        room_id: str,
    ) -> None:
        """One turn: the message to a Strands agent over the room's transcript."""
        messages = list(self._history.for_turn(room_id, history, is_session_bootstrap))
        if self._openai_model():
            messages = _openai_order(messages)
        # one user message: Converse refuses two user messages in a row
        notes = [f"[System]: {n}" for n in (participants_msg, contacts_msg) if n]
        prompt = "\n\n".join([*notes, msg.format_for_llm()])

        async def run(name: str, use: ToolUse) -> Any:
            args = use.get("input")
            return await self._run_band_tool(tools, name, args or {}, use["toolUseId"])

        specs = self._band_specs(tools)
        band_tools = [_BandTool(spec, run) for spec in specs]
        events = NativeToolEvents(tools, self.features, self._native_effects)
        hooks = _TurnHooks({s.name for s in specs}, events)
        agent = Agent(
            model=self.llm,
            messages=cast(Any, messages),  # Converse message dicts, as Strands keeps them
            tools=[*band_tools, *self._native],
            system_prompt=self._system_prompt,
            hooks=[hooks],
            callback_handler=None,
            name=self.agent_name or None,
        )
        try:
            try:
                result = await agent.invoke_async(prompt)
            except Exception as exc:
                await self._run_failed(tools, room_id, exc)
                raise
            self._history[room_id] = cast(StrandsMessages, list(agent.messages))
            await self._close(tools, msg, _closing_text(result))
        finally:
            await self._send_usage(tools, _usage(agent))

    def _openai_model(self) -> bool:
        """Whether the model is one of Strands' OpenAI models."""
        return type(self.llm).__name__.startswith("OpenAI")

    async def on_interrupt(self, room_id: str, mode: str) -> None:
        """The runtime cancels the turn's task, which ends the Strands run where it is."""

    async def on_cleanup(self, room_id: str) -> None:
        """Forget the room's transcript."""
        self._history.pop(room_id, None)


def _closing_text(result: Any) -> str:
    """The text of the run's last assistant message (a stopped loop may have none)."""
    if getattr(result, "stop_reason", None) == "cancelled":
        return ""
    message = getattr(result, "message", None) or {}
    texts = [b["text"] for b in message.get("content", []) if "text" in b]
    return "\n".join(texts).strip()


def _usage(agent: Agent) -> dict[str, int]:
    """The run's accumulated token counts."""
    usage = empty_usage()
    try:
        counts = dict(agent.event_loop_metrics.accumulated_usage)
    except Exception:  # usage is best-effort telemetry
        return usage
    for key, name in (
        ("input_tokens", "inputTokens"),
        ("output_tokens", "outputTokens"),
        ("cache_read_tokens", "cacheReadInputTokens"),
        ("cache_write_tokens", "cacheWriteInputTokens"),
    ):
        value = counts.get(name)
        usage[key] = int(value) if isinstance(value, int) else 0
    return usage
