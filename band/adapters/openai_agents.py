"""``OpenAIAgentsAdapter``: an OpenAI Agents SDK agent in Band rooms.

band-sdk 6.0.1 has no adapter for the Agents SDK; this one follows the shape of the model
adapters. Each turn runs the agent (``Runner.run_streamed``) with Band's platform tools and
the custom tools added to its own as function tools; its handoffs (to other ``Agent``\\ s,
which get the Band tools too) and guardrails run as the SDK runs them. The ``openai-agents``
package is imported when an adapter is built, not with this module::

    from agents import Agent as SDKAgent

    triage = SDKAgent(name="Triage", instructions="Route billing questions.", handoffs=[billing])
    adapter = OpenAIAgentsAdapter(agent=triage, emit={Emit.TOOL_CALLS})

The model calls go through ``adapter.client`` (an ``AsyncOpenAI``: ``OPENAI_API_KEY`` /
``OPENAI_BASE_URL`` unless ``provider_key`` / ``base_url`` are set). The SDK's tracing, which
uploads each run to OpenAI, is off unless ``tracing=True``.
"""

from __future__ import annotations

import asyncio
import dataclasses
import importlib
import json
import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, ClassVar, Literal, Unpack

from pydantic import PositiveInt

from band._extras import require
from band.converters.openai import OpenAIHistoryConverter
from band.core.protocols import AgentToolsProtocol
from band.core.simple_adapter import FeatureKwargs, SimpleAdapter
from band.core.turn import AgentFailure, TurnEffect
from band.core.types import Emit, HistoryConverter, PlatformMessage
from band.core.wire import JsonObject
from band.runtime.capabilities import Capability
from band.runtime.tools.custom import CustomToolDef, custom_tools_to_schemas

from ._model import (
    ALL_CAPABILITIES,
    MAX_TOOL_ROUNDS,
    BaseAdapterConfig,
    RoomTranscripts,
    ToolRun,
    add_usage,
    check_custom_tools,
    empty_usage,
    provider_failure,
    relay_closing_text,
    run_tool_call,
    send_usage,
)
from .openai import OPENAI_MODEL, _arguments

__all__ = [
    "OPENAI_AGENTS_PROVIDER",
    "OpenAIAgentsAdapter",
    "OpenAIAgentsAdapterConfig",
    "OpenAIAgentsHistoryConverter",
]

log = logging.getLogger("band.adapters.openai_agents")

#: ``provider`` of the failures this adapter reports (the model's HTTP status as the code).
OPENAI_AGENTS_PROVIDER = "openai_agents"
#: A run's input: Responses input items (``{"role", "content"}``, function calls, outputs).
AgentsHistory = list[JsonObject]


class OpenAIAgentsAdapterConfig(BaseAdapterConfig):
    """Settings of :class:`OpenAIAgentsAdapter`: those of ``AnthropicAdapterConfig``, and
    ``base_url`` for another OpenAI-compatible server.

    ``model`` is used by agents that name none; ``api`` picks the OpenAI API the SDK calls
    (``responses`` or ``chat_completions``, for other servers); ``max_turns`` bounds the model
    calls of one Band turn; ``tracing`` turns on the SDK's trace upload.
    """

    model: str = OPENAI_MODEL
    base_url: str | None = None
    api: Literal["responses", "chat_completions"] = "responses"
    max_turns: PositiveInt = MAX_TOOL_ROUNDS
    tracing: bool = False


class OpenAIAgentsHistoryConverter:
    """Platform history as Responses input items: others' text as ``user`` messages, this
    agent's tool calls as ``function_call`` items with their ``function_call_output``."""

    def __init__(self, agent_name: str = "") -> None:
        self._chat = OpenAIHistoryConverter(agent_name)

    def set_agent_name(self, name: str) -> None:
        """Name the agent whose own rows become its function calls."""
        self._chat.set_agent_name(name)

    def convert(self, raw: list[JsonObject]) -> AgentsHistory:
        """Convert history rows, oldest first."""
        items: AgentsHistory = []
        for message in self._chat.convert(raw):
            role = message.get("role")
            if role == "tool":
                output = message.get("content")
                items.append(
                    {
                        "type": "function_call_output",
                        "call_id": message["tool_call_id"],
                        "output": output if isinstance(output, str) else json.dumps(output),
                    }
                )
                continue
            if message.get("content"):
                items.append({"role": role, "content": message["content"]})
            calls = message.get("tool_calls")
            for call in calls if isinstance(calls, list) else []:
                function = call["function"]
                items.append(
                    {
                        "type": "function_call",
                        "call_id": call["id"],
                        "name": function["name"],
                        "arguments": function["arguments"],
                    }
                )
        return items


class OpenAIAgentsAdapter(SimpleAdapter[AgentsHistory]):
    """Runs each turn as an OpenAI Agents SDK run of ``agent`` with Band's tools added."""

    SUPPORTED_EMIT: ClassVar[frozenset[Emit]] = frozenset(
        {Emit.TOOL_CALLS, Emit.THOUGHTS, Emit.USAGE}
    )
    SUPPORTED_CAPABILITIES: ClassVar[frozenset[Capability]] = ALL_CAPABILITIES

    def __init__(
        self,
        config: OpenAIAgentsAdapterConfig | None = None,
        *,
        agent: Any = None,
        history_converter: HistoryConverter[AgentsHistory] | None = None,
        additional_tools: list[CustomToolDef] | None = None,
        **features: Unpack[FeatureKwargs],
    ) -> None:
        super().__init__(
            history_converter=history_converter or OpenAIAgentsHistoryConverter(), **features
        )
        require("openai-agents", "OpenAIAgentsAdapter")  # an optional dependency: say how
        self._sdk = importlib.import_module("agents")
        self.config = config or OpenAIAgentsAdapterConfig()
        #: the Agents SDK ``Agent`` each turn runs (None: one made from the config)
        self.agent: Any = agent
        self._custom_tools = check_custom_tools(additional_tools)
        self._history: RoomTranscripts[JsonObject] = RoomTranscripts()
        self._system_prompt = ""
        openai = importlib.import_module("openai")
        #: the ``AsyncOpenAI`` the runs' models use (replace it to point elsewhere)
        self.client: Any = openai.AsyncOpenAI(
            api_key=self.config.provider_key, base_url=self.config.base_url
        )

    async def on_started(self, agent_name: str, agent_description: str) -> None:
        """Render the Band system prompt once the agent's name is known."""
        await super().on_started(agent_name, agent_description)
        self._system_prompt = self.config.render(self.features, agent_name, agent_description)
        if self.agent is None:
            self.agent = self._sdk.Agent(name=agent_name or "Band agent")

    async def on_message(
        self,
        msg: PlatformMessage,
        tools: AgentToolsProtocol,
        history: AgentsHistory,
        participants_msg: str | None,
        contacts_msg: str | None,
        *,
        is_session_bootstrap: bool,
        room_id: str,
    ) -> None:
        """One turn: the room's items and the message to the agent's run, events as it goes."""
        if self.agent is None:  # not started through an Agent (a unit test): a default one
            self.agent = self._sdk.Agent(name=self.agent_name or "Band agent")
        items = self._history.for_turn(room_id, history, is_session_bootstrap)
        for note in (participants_msg, contacts_msg):
            if note:
                items.append({"role": "user", "content": f"[System]: {note}"})
        items.append({"role": "user", "content": msg.format_for_llm()})
        band_tools = self._band_tools(tools)
        starting = self._prepare(self.agent, band_tools, {})
        ours = {tool.name for tool in band_tools}
        usage = empty_usage()
        result: Any = None
        try:
            result = self._sdk.Runner.run_streamed(
                starting,
                list(items),
                max_turns=self.config.max_turns,
                run_config=self._run_config(),
            )
            names: dict[str, str] = {}
            async for event in result.stream_events():
                await self._narrate(tools, event, ours, names)
        except asyncio.CancelledError:
            if result is not None:
                result.cancel()  # an interrupt: stop the run and its model call now
            raise
        except self._sdk.InputGuardrailTripwireTriggered as exc:
            await self._tripped(tools, "input", exc)
            return
        except self._sdk.OutputGuardrailTripwireTriggered as exc:
            await self._tripped(tools, "output", exc)
            return
        except Exception as exc:
            log.exception("room %s: the OpenAI Agents SDK run failed", room_id)
            await tools.send_failure(provider_failure(OPENAI_AGENTS_PROVIDER, _cause(exc)))
            raise
        finally:
            if result is not None:
                _add_run_usage(usage, result)
                await send_usage(tools, self.features, usage)
        self._history[room_id] = list(result.to_input_list())
        text = result.final_output if isinstance(result.final_output, str) else ""
        await relay_closing_text(tools, msg, text.strip())

    async def on_cleanup(self, room_id: str) -> None:
        """Forget the room's conversation."""
        self._history.pop(room_id, None)

    async def cleanup_all(self) -> None:
        """Close the client's connections on the loop that opened them (the agent stops)."""
        await super().cleanup_all()
        close = getattr(self.client, "close", None)
        if callable(close):
            await close()

    # -- the run --

    def _run_config(self) -> Any:
        """The run's model provider (through ``self.client``), settings and tracing."""
        models = importlib.import_module("agents.models.openai_provider")
        provider = models.OpenAIProvider(
            openai_client=self.client, use_responses=self.config.api == "responses"
        )
        return self._sdk.RunConfig(
            model_provider=provider,
            model_settings=self._sdk.ModelSettings(max_tokens=self.config.max_tokens),
            tracing_disabled=not self.config.tracing,
        )

    def _prepare(self, agent: Any, band_tools: list[Any], done: dict[int, Any]) -> Any:
        """``agent`` (and every agent it hands off to) with the Band system prompt before its
        instructions, the Band tools after its own, and the config's model where it has none."""
        if id(agent) in done:
            return done[id(agent)]
        changes: dict[str, Any] = {
            "instructions": _with_prompt(self._system_prompt, agent.instructions),
            "tools": [*agent.tools, *band_tools],
        }
        if agent.model is None:
            changes["model"] = self.config.model
        if agent.tool_use_behavior == "run_llm_again":
            # a successful band_no_reply settles the turn: no further model call
            changes["tool_use_behavior"] = {"stop_at_tool_names": ["band_no_reply"]}
        clone = agent.clone(**changes)
        done[id(agent)] = clone
        clone.handoffs = [
            self._prepare(h, band_tools, done) if isinstance(h, self._sdk.Agent) else h
            for h in agent.handoffs
        ]
        return clone

    def _band_tools(self, tools: AgentToolsProtocol) -> list[Any]:
        """The platform tools (by ``capabilities``) and the custom tools as function tools."""
        schemas = list(tools.get_openai_tool_schemas(capabilities=self.features.capabilities))
        schemas.extend(custom_tools_to_schemas(self._custom_tools, "openai"))
        return [self._function_tool(tools, schema) for schema in schemas]

    def _function_tool(self, tools: AgentToolsProtocol, schema: Mapping[str, Any]) -> Any:
        """One Band or custom tool as the SDK's ``FunctionTool``; it runs (and posts its
        ``tool_call``/``tool_result`` events) as the model adapters' tools do."""
        function = schema.get("function", schema)
        name = str(function["name"])
        custom, features = self._custom_tools, self.features

        async def invoke(context: Any, raw: str) -> str:
            call_id = str(getattr(context, "tool_call_id", "") or "")
            run: ToolRun = await run_tool_call(
                tools, custom, features, name, _arguments(raw), call_id
            )
            return run.output

        return self._sdk.FunctionTool(
            name=name,
            description=str(function.get("description") or ""),
            params_json_schema=dict(function.get("parameters") or {"type": "object"}),
            on_invoke_tool=invoke,
            strict_json_schema=False,
        )

    async def _narrate(
        self, tools: AgentToolsProtocol, event: Any, ours: set[str], names: dict[str, str]
    ) -> None:
        """Post what the run did as events: the agent's own tools' calls and results (the
        Band and custom tools post theirs as they run), and its reasoning as thoughts."""
        if getattr(event, "type", "") != "run_item_stream_event":
            return
        item = event.item
        if event.name == "tool_called":
            raw = item.raw_item
            name = str(_field(raw, "name") or "")
            call_id = str(_field(raw, "call_id") or "")
            names[call_id] = name
            if name and name not in ours and Emit.TOOL_CALLS in self.features.emit:
                args = _arguments(str(_field(raw, "arguments") or ""))
                body = {"name": name, "args": args, "tool_call_id": call_id}
                await _post(tools, "tool_call", body)
        elif event.name == "tool_output":
            call_id = str(_field(item.raw_item, "call_id") or "")
            name = names.get(call_id, "")
            if not name or name in ours:
                return
            # a native tool of the agent: its effect on the turn is OBSERVE
            tools.turn.record(TurnEffect.OBSERVE)
            if Emit.TOOL_CALLS in self.features.emit:
                output = _text(item.output)
                body = {"name": name, "output": output, "tool_call_id": call_id, "is_error": False}
                await _post(tools, "tool_result", body)
        elif event.name == "reasoning_item_created" and Emit.THOUGHTS in self.features.emit:
            summary = _field(item.raw_item, "summary") or []
            text = "\n".join(str(_field(part, "text") or "") for part in summary).strip()
            if text:
                await _post(tools, "thought", {}, content=text)

    async def _tripped(self, tools: AgentToolsProtocol, kind: str, exc: Exception) -> None:
        """A guardrail's tripwire ended the run: the room is told which (no retry helps)."""
        result = getattr(exc, "guardrail_result", None)
        guardrail = getattr(result, "guardrail", None)
        name = guardrail.get_name() if guardrail is not None else kind
        message = f"The {kind} guardrail {name!r} stopped the turn."
        await tools.send_failure(AgentFailure(OPENAI_AGENTS_PROVIDER, message, f"{kind}_guardrail"))


def _with_prompt(prompt: str, instructions: Any) -> Any:
    """The agent's instructions after the Band system prompt (dynamic ones stay dynamic)."""
    if not prompt:
        return instructions
    if instructions is None:
        return prompt
    if isinstance(instructions, str):
        return f"{prompt}\n\n{instructions}"
    dynamic: Callable[..., Any] = instructions

    async def combined(context: Any, agent: Any) -> str:
        own = dynamic(context, agent)
        if isinstance(own, Awaitable):
            own = await own
        return f"{prompt}\n\n{own}" if own else prompt

    return combined


def _cause(exc: BaseException) -> Exception:
    """The provider error under an SDK wrapper (its HTTP status is the failure's code)."""
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(getattr(seen, "status_code", None), int) and isinstance(seen, Exception):
            return seen
        seen = seen.__cause__ or seen.__context__
    return exc if isinstance(exc, Exception) else RuntimeError(str(exc))


def _add_run_usage(total: dict[str, int], result: Any) -> None:
    """The run's token counts (every model call it made) into ``total``."""
    usage = getattr(getattr(result, "context_wrapper", None), "usage", None)
    if usage is None:
        return
    details = getattr(usage, "input_tokens_details", None)
    add_usage(
        total,
        input_tokens=getattr(usage, "input_tokens", 0),
        output_tokens=getattr(usage, "output_tokens", 0),
        cache_read_tokens=getattr(details, "cached_tokens", 0),
    )


def _field(value: Any, name: str) -> Any:
    """``name`` of an SDK object or of a dict item."""
    return value.get(name) if isinstance(value, Mapping) else getattr(value, name, None)


def _text(value: Any) -> str:
    """A tool's output as text (structured outputs as JSON, never a repr)."""
    if isinstance(value, str):
        return value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        value = dataclasses.asdict(value)
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        value = dump(mode="json")
    if isinstance(value, Sequence) and not isinstance(value, str | bytes):
        value = [_text(v) for v in value]
    return json.dumps(value, default=str)


async def _post(
    tools: AgentToolsProtocol, kind: str, body: JsonObject, *, content: str | None = None
) -> None:
    """Post one event; telemetry never breaks the turn."""
    try:
        await tools.send_event(content or json.dumps(body, default=str), kind, body or None)
    except Exception as exc:
        log.warning("could not post the %s event: %s", kind, exc)
