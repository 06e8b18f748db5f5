"""``PydanticAIAdapter``: a Pydantic AI agent in a Band room, with the Band tools as its tools.

band-sdk 6.0.1's constructor::

    adapter = PydanticAIAdapter(PydanticAIAdapterConfig(model="openai:gpt-6-luna"))
    # or a constructed model: PydanticAIAdapter(llm=OpenAIChatModel("...", provider=...))

``additional_tools`` takes ``(InputModel, handler)`` custom tools and Pydantic AI tool
functions (a first parameter typed ``RunContext`` gets the turn's Band tools as
``ctx.deps``); a function decorated with ``declares_turn_effect`` records its effect when
its call succeeds (the adapter observes its result). Needs the [pydantic-ai] extra
(``pydantic-ai-slim``, with the provider's extra, ``pydantic-ai-slim[openai]`` and the like).
"""

from __future__ import annotations

from band._extras import require_module

require_module("pydantic-ai", "PydanticAIAdapter")  # an optional dependency: say how to get it

import inspect  # noqa: E402 -- after the extra check, which names what is missing
from collections.abc import AsyncIterable, Callable, Sequence  # noqa: E402
from typing import Any, Unpack, get_type_hints  # noqa: E402

from pydantic_ai import Agent, RunContext, Tool  # noqa: E402
from pydantic_ai.capabilities import Hooks  # noqa: E402
from pydantic_ai.exceptions import SkipModelRequest  # noqa: E402
from pydantic_ai.messages import (  # noqa: E402
    AgentStreamEvent,
    FunctionToolCallEvent,
    FunctionToolResultEvent,
    ModelMessage,
    ModelRequest,
    ModelResponse,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models import Model, ModelRequestContext  # noqa: E402
from pydantic_ai.toolsets import FunctionToolset  # noqa: E402

from band.converters.pydantic_ai import PydanticAIHistoryConverter, PydanticAIMessages  # noqa: E402
from band.core.protocols import AgentToolsProtocol  # noqa: E402
from band.core.simple_adapter import FeatureKwargs  # noqa: E402
from band.core.types import AdapterFeatures, PlatformMessage  # noqa: E402
from band.runtime.prompts import render_system_prompt  # noqa: E402
from band.runtime.tools.custom import (  # noqa: E402
    CustomToolDef,
    declared_effect,
    is_failed_tool_output,
)

from ._bandtools import BandToolSpec, FrameworkConfig, result_text  # noqa: E402
from ._base import FrameworkAdapterBase  # noqa: E402
from ._model import RoomTranscripts, add_usage, empty_usage, post_tool_event, run_tool_call  # noqa: E402

__all__ = ["PydanticAIAdapter", "PydanticAIAdapterConfig"]


class PydanticAIAdapterConfig(FrameworkConfig):
    """Settings of :class:`PydanticAIAdapter` (band-sdk 6.0.1's fields).

    ``model`` is a Pydantic AI model string (``"openai:gpt-6-luna"`` is OpenAI's Responses
    API, ``"openai-chat:..."`` Chat Completions); None only when the adapter gets ``llm=``.
    ``system_prompt`` replaces the rendered Band prompt.
    """

    model: str | None = None
    system_prompt: str | None = None
    custom_section: str | None = None


def _takes_context(fn: Callable[..., Any]) -> bool:
    """Whether a tool function's first parameter is a ``RunContext`` (Pydantic AI keeps the
    two kinds of tool function apart)."""
    params = list(inspect.signature(fn).parameters.values())
    if not params:
        return False
    try:
        hint = get_type_hints(fn).get(params[0].name)
    except (NameError, TypeError):
        return False
    return hint is RunContext or getattr(hint, "__origin__", None) is RunContext


def band_pydantic_tools(
    specs: Sequence[BandToolSpec],
    custom: Sequence[CustomToolDef],
    features: AdapterFeatures,
    outcomes: dict[str, bool] | None = None,
) -> list[Tool[AgentToolsProtocol]]:
    """The Band tools (platform and custom) as Pydantic AI tools over ``ctx.deps``, the
    turn's tools: each call runs through the adapter's tool path and answers text; whether
    it succeeded goes into ``outcomes`` (when given) by call id."""

    def make(name: str) -> Callable[..., Any]:
        async def call(ctx: RunContext[AgentToolsProtocol], **arguments: Any) -> str:
            call_id = ctx.tool_call_id or name
            run = await run_tool_call(ctx.deps, custom, features, name, arguments, call_id)
            if outcomes is not None:
                outcomes[call_id] = run.ok
            return run.output

        return call

    return [
        Tool.from_schema(make(s.name), s.name, s.description, s.parameters, takes_ctx=True)
        for s in specs
    ]


def band_toolset(
    specs: Sequence[BandToolSpec],
    custom: Sequence[CustomToolDef],
    features: AdapterFeatures,
    outcomes: dict[str, bool],
) -> FunctionToolset[AgentToolsProtocol]:
    """:func:`band_pydantic_tools` as the toolset a turn's run gets."""
    return FunctionToolset(band_pydantic_tools(specs, custom, features, outcomes))


def finish_on_decline(outcomes: dict[str, bool]) -> Hooks[AgentToolsProtocol]:
    """A hook that ends the run, with no further model call, once this run's tool batch was
    a successful ``band_no_reply`` with every sibling call successful."""

    def before_model_request(
        ctx: RunContext[AgentToolsProtocol], request_context: ModelRequestContext
    ) -> ModelRequestContext:
        last = request_context.messages[-1] if request_context.messages else None
        if not isinstance(last, ModelRequest) or any(
            isinstance(p, UserPromptPart) for p in last.parts
        ):
            return request_context
        returns = [p for p in last.parts if isinstance(p, ToolReturnPart)]
        ours = [outcomes.get(p.tool_call_id) for p in returns]  # None: not this run's, or native
        declined = any(
            p.tool_name == "band_no_reply" and ok for p, ok in zip(returns, ours, strict=True)
        )
        if declined and all(
            ok is not False and _succeeded(p) for p, ok in zip(returns, ours, strict=True)
        ):
            raise SkipModelRequest(ModelResponse(parts=[]))
        return request_context

    return Hooks(before_model_request=before_model_request)


def _succeeded(part: ToolReturnPart) -> bool:
    """Whether a tool's return says it succeeded."""
    return getattr(part, "outcome", "success") == "success" and not is_failed_tool_output(
        part.content
    )


class PydanticAIAdapter(FrameworkAdapterBase[PydanticAIMessages]):
    """Runs each turn as a Pydantic AI agent run over the room's message history."""

    PROVIDER = "pydantic_ai"

    def __init__(
        self,
        config: PydanticAIAdapterConfig | None = None,
        *,
        history_converter: PydanticAIHistoryConverter | None = None,
        additional_tools: list[Callable[..., Any] | CustomToolDef] | None = None,
        llm: Model | None = None,
        instrument: Any = None,
        **features: Unpack[FeatureKwargs],
    ) -> None:
        super().__init__(
            history_converter=history_converter or PydanticAIHistoryConverter(), **features
        )
        self.config = config or PydanticAIAdapterConfig()
        if (llm is None) == (self.config.model is None):
            raise ValueError("Set exactly one of config.model or llm")
        self._model: Model | str = llm if llm is not None else str(self.config.model)
        self._instrument = instrument
        tools = additional_tools or []
        self._take_custom_tools([t for t in tools if isinstance(t, tuple)])
        #: Pydantic AI tool functions, registered as they are; their declared effects
        self._native_tools = [t for t in tools if not isinstance(t, tuple)]
        self._native_effects = {
            t.__name__: effect for t in self._native_tools if (effect := declared_effect(t))
        }
        self._history: RoomTranscripts[ModelMessage] = RoomTranscripts()
        self._agent: Agent[AgentToolsProtocol, str | None] | None = None

    async def on_started(self, agent_name: str, agent_description: str) -> None:
        """Build the Pydantic AI agent once the agent's name and description are known."""
        await super().on_started(agent_name, agent_description)
        self._agent = self._build_agent()

    def _build_agent(self) -> Agent[AgentToolsProtocol, str | None]:
        """The agent: the rendered prompt as instructions (sent with every request), the
        native tools; the Band tools join each run as a toolset of that turn's tools."""
        instructions = self.config.system_prompt or render_system_prompt(
            agent_name=self.agent_name or "Agent",
            agent_description=self.agent_description or "An AI assistant",
            custom_section=self.config.custom_section or "",
            features=self.features,
        )
        agent: Agent[AgentToolsProtocol, str | None] = Agent(
            self._model,
            instructions=instructions,
            deps_type=AgentToolsProtocol,
            # None: a model that answered through a tool may end with nothing to say
            output_type=str | None,  # type: ignore[arg-type]
            retries=3,
        )
        if self._instrument is not None:
            agent.instrument = self._instrument
        for fn in self._native_tools:
            if _takes_context(fn):
                agent.tool(fn)
            else:
                agent.tool_plain(fn)
        return agent

    async def on_message(
        self,
        msg: PlatformMessage,
        tools: AgentToolsProtocol,
        history: PydanticAIMessages,
        participants_msg: str | None,
        contacts_msg: str | None,
        *,
        is_session_bootstrap: bool,
        room_id: str,
    ) -> None:
        """One turn: a run over the room's history (converted on a bootstrap) and the new
        message; its closing text relayed when no tool replied."""
        agent = self._agent or self._build_agent()
        self._agent = agent
        past = self._history.for_turn(room_id, history, is_session_bootstrap)
        for note in (participants_msg, contacts_msg):
            if note:
                past.append(ModelRequest(parts=[UserPromptPart(content=f"[System]: {note}")]))
        prompt = msg.format_for_llm()
        specs = self._band_specs(tools)
        outcomes: dict[str, bool] = {}
        toolset = band_toolset(specs, self._custom, self.features, outcomes)
        usage = empty_usage()
        band_names = {spec.name for spec in specs}
        calls: dict[str, str] = {}

        async def observe(_: RunContext[Any], stream: AsyncIterable[AgentStreamEvent]) -> None:
            # the native tools' calls and results (Band tools post their own events)
            async for event in stream:
                if isinstance(event, FunctionToolCallEvent):
                    name = event.part.tool_name
                    if name in band_names:
                        continue
                    calls[event.part.tool_call_id] = name
                    body = {
                        "name": name,
                        "args": event.part.args_as_dict(),
                        "tool_call_id": event.part.tool_call_id,
                    }
                    await post_tool_event(tools, self.features, "tool_call", body)
                elif isinstance(event, FunctionToolResultEvent):
                    name = calls.pop(event.tool_call_id, "")
                    if name:
                        await self._native_result(tools, name, event)

        try:
            result = await agent.run(
                prompt,
                deps=tools,
                message_history=past,
                toolsets=[toolset],
                event_stream_handler=observe,
                capabilities=[finish_on_decline(outcomes)],
            )
        except BaseException as exc:
            # failed or interrupted, the message stays in the room's history (the run's
            # partial messages do not: a call without its result is refused next time)
            past.append(ModelRequest(parts=[UserPromptPart(content=prompt)]))
            if isinstance(exc, Exception):
                await self._run_failed(tools, room_id, exc)
            raise
        run_usage = result.usage
        add_usage(
            usage,
            input_tokens=run_usage.input_tokens,
            output_tokens=run_usage.output_tokens,
            cache_read_tokens=run_usage.cache_read_tokens,
            cache_write_tokens=run_usage.cache_write_tokens,
        )
        self._history[room_id] = list(result.all_messages())
        await self._send_usage(tools, usage)
        await self._close(tools, msg, result.output or "")

    async def _native_result(
        self, tools: AgentToolsProtocol, name: str, event: FunctionToolResultEvent
    ) -> None:
        """A native tool's result: its declared effect recorded when it succeeded, and
        its ``tool_result`` event."""
        part = event.part
        ok = isinstance(part, ToolReturnPart) and _succeeded(part)
        effect = self._native_effects.get(name)
        if ok and effect is not None:
            tools.turn.record(effect)
        body = {
            "name": name,
            "output": result_text(part.content),
            "tool_call_id": event.tool_call_id,
            "is_error": not ok,
        }
        await post_tool_event(tools, self.features, "tool_result", body)

    async def on_cleanup(self, room_id: str) -> None:
        """Forget the room's conversation."""
        self._history.pop(room_id, None)
