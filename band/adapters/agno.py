"""``AgnoAdapter``: a user-built Agno agent (agno) in Band rooms.

The adapter runs the ``agent`` it is given (it takes it over: at start it prepends the Band
instructions to its ``description`` and makes its tools per-run, so each room's run gets its
own Band tools beside the agent's own). Needs the ``[agno]`` extra (imported with this
module)::

    from agno.agent import Agent
    from agno.models.openai import OpenAIChat

    adapter = AgnoAdapter(agent=Agent(model=OpenAIChat(id="gpt-5-mini"), tools=[get_forecast]))

As the seed says, the agent's own Agno tools count as ``OBSERVE`` (they neither reply nor
count as work); ``additional_tools`` takes ``(InputModel, handler)`` custom tools, whose
declared effect is recorded, as with the model adapters.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, ClassVar, Unpack

from band._extras import require

require("agno", "AgnoAdapter")  # an optional dependency: say how to get it

from agno.agent import Agent as AgnoAgent  # noqa: E402
from agno.models.message import Message  # noqa: E402
from agno.run.agent import RunOutput  # noqa: E402
from agno.run.base import RunStatus  # noqa: E402
from agno.tools.function import Function  # noqa: E402
from agno.tools.toolkit import Toolkit  # noqa: E402
from agno.utils.callables import ainvoke_callable_factory, is_callable_factory  # noqa: E402

from band.converters.agno import AgnoHistoryConverter, AgnoMessages  # noqa: E402
from band.core.exceptions import ProviderRunError  # noqa: E402
from band.core.protocols import AgentToolsProtocol  # noqa: E402
from band.core.simple_adapter import FeatureKwargs  # noqa: E402
from band.core.types import Emit, PlatformMessage  # noqa: E402
from band.runtime.prompts import render_system_prompt  # noqa: E402
from band.runtime.tools.custom import CustomToolDef  # noqa: E402

from ._bandtools import FrameworkConfig, NativeToolEvents  # noqa: E402
from ._base import FrameworkAdapterBase  # noqa: E402
from ._model import RoomTranscripts, empty_usage  # noqa: E402

__all__ = ["AgnoAdapter", "AgnoAdapterConfig"]


#: The roles kept of a run's messages: Agno's injected system/context messages are not replayed.
_CONVERSATION_ROLES = frozenset({"user", "assistant", "tool"})


class AgnoAdapterConfig(FrameworkConfig):
    """Settings of :class:`AgnoAdapter` (none: the Agno agent holds the model and prompt)."""


@dataclass(frozen=True)
class _Run:
    """The room a run belongs to: its tools, and the native tools' events."""

    tools: AgentToolsProtocol
    events: NativeToolEvents
    band_names: frozenset[str]


#: The run in progress in this task (Agno calls the tool factory and the tools inside it).
_current: ContextVar[_Run | None] = ContextVar("band_agno_run", default=None)


class AgnoAdapter(FrameworkAdapterBase[AgnoMessages]):
    """Runs the given Agno agent once per turn, the room's Band tools bound for the run."""

    PROVIDER = "agno"
    SUPPORTED_EMIT: ClassVar[frozenset[Emit]] = frozenset(
        {Emit.TOOL_CALLS, Emit.THOUGHTS, Emit.USAGE}
    )

    def __init__(
        self,
        config: AgnoAdapterConfig | None = None,
        *,
        history_converter: AgnoHistoryConverter | None = None,
        agent: AgnoAgent,
        session_id_factory: Callable[[str], str] = lambda room_id: room_id,
        additional_tools: Sequence[CustomToolDef] | None = None,
        **features: Unpack[FeatureKwargs],
    ) -> None:
        super().__init__(history_converter=history_converter or AgnoHistoryConverter(), **features)
        self.config = config or AgnoAdapterConfig()
        self._given = agent
        self._agent: AgnoAgent | None = None
        self._session_id_factory = session_id_factory
        self._take_custom_tools(additional_tools)
        self._user_tools: list[Any] | Callable[..., Any] = []
        self._history: RoomTranscripts[Message] = RoomTranscripts()
        self._agno_history = False

    @property
    def agent(self) -> AgnoAgent | None:
        """The Agno agent the adapter runs (set when the agent starts)."""
        return self._agent

    async def on_started(self, agent_name: str, agent_description: str) -> None:
        """Take the agent over: per-run tools, the tool hook, the Band instructions."""
        await super().on_started(agent_name, agent_description)
        agent = self._given
        self._agent = agent
        # Agno replays its own stored history when it has a database to keep it in
        self._agno_history = bool(
            getattr(agent, "add_history_to_context", False) and getattr(agent, "db", None)
        )
        tools: Any = agent.tools
        if tools is None:
            self._user_tools = []
        elif is_callable_factory(tools, excluded_types=(Toolkit, Function)):
            self._user_tools = tools
        else:
            self._user_tools = list(tools)
        agent.tools = self._room_tools  # type: ignore[assignment]  # a per-run factory
        agent.cache_callables = False
        agent.tool_hooks = [*(agent.tool_hooks or []), self._tool_hook]
        guidance = render_system_prompt(
            agent_name=agent_name,
            agent_description=agent_description or "An AI assistant",
            features=self.features,
        )
        agent.description = f"{guidance}\n\n{agent.description}" if agent.description else guidance

    async def _room_tools(self, run_context: Any = None) -> list[Any]:
        """The run's tools: the agent's own, then the room's Band tools."""
        if callable(self._user_tools):
            resolved = await ainvoke_callable_factory(self._user_tools, self._agent, run_context)
            own = list(resolved or [])
        else:
            own = list(self._user_tools)
        run = _current.get()
        if run is None:  # outside a turn there is no room to bind Band tools to
            return own
        return [*own, *self._band_functions(run.tools)]

    def _band_functions(self, tools: AgentToolsProtocol) -> list[Function]:
        """The Band tools as Agno functions (their schemas as given, not re-derived)."""
        functions = []
        for spec in self._band_specs(tools):

            async def call(_name: str = spec.name, **arguments: Any) -> str:
                run = _current.get()
                if run is None:
                    return f"Error: {_name} was called outside a Band turn"
                result = await self._run_band_tool(run.tools, _name, arguments, _call_id())
                return result.output

            functions.append(
                Function(
                    name=spec.name,
                    description=spec.description,
                    parameters=spec.parameters,
                    entrypoint=call,
                    skip_entrypoint_processing=True,
                )
            )
        return functions

    async def _tool_hook(
        self, function_name: str, function_call: Callable[..., Any], arguments: dict[str, Any]
    ) -> Any:
        """Around every tool call: the events of the agent's own tools (they observe)."""
        run = _current.get()
        if run is None or function_name in run.band_names:
            return await function_call(**arguments)
        call_id = _call_id()
        await run.events.called(function_name, arguments, call_id)
        try:
            result = await function_call(**arguments)
        except Exception as exc:
            await run.events.finished(function_name, f"Error: {exc}", call_id, ok=False)
            raise
        await run.events.finished(function_name, _output(result), call_id, ok=True)
        return result

    async def on_message(
        self,
        msg: PlatformMessage,
        tools: AgentToolsProtocol,
        history: AgnoMessages,
        participants_msg: str | None,
        contacts_msg: str | None,
        *,
        is_session_bootstrap: bool,
        room_id: str,
    ) -> None:
        """One turn: the room's transcript and the message to the Agno agent."""
        agent = self._agent
        if agent is None:
            raise RuntimeError("AgnoAdapter was used before the agent started")
        if self._agno_history:
            messages: list[Message] = []
        else:
            messages = list(self._history.for_turn(room_id, history, is_session_bootstrap))
        for note in (participants_msg, contacts_msg):
            if note:
                messages.append(Message(role="user", content=f"[System]: {note}"))
        messages.append(Message(role="user", content=msg.format_for_llm()))
        names = frozenset(s.name for s in self._band_specs(tools))
        # the agent's own tools record no effect: Agno tools count as OBSERVE (the seed)
        run = _Run(tools, NativeToolEvents(tools, self.features), names)
        token = _current.set(run)
        usage = empty_usage()
        try:
            try:
                output = await agent.arun(
                    input=messages, session_id=self._session_id_factory(room_id)
                )
                if output.status == RunStatus.error:  # Agno returns a failed run as data
                    raise ProviderRunError(RunStatus.error.value, str(output.content or "")[:500])
            except Exception as exc:
                code = exc.code if isinstance(exc, ProviderRunError) else None
                await self._run_failed(tools, room_id, exc, code)
                raise
            usage = _usage(output)
            if output.messages:
                self._history[room_id] = [
                    m for m in output.messages if m.role in _CONVERSATION_ROLES
                ]
            if Emit.THOUGHTS in self.features.emit and output.reasoning_content:
                await tools.send_event(str(output.reasoning_content), "thought")
            text = output.content if isinstance(output.content, str) else ""
            await self._close(tools, msg, text.strip())
        finally:
            _current.reset(token)
            await self._send_usage(tools, usage)

    async def on_cleanup(self, room_id: str) -> None:
        """Forget the room's transcript."""
        self._history.pop(room_id, None)


def _call_id() -> str:
    return f"call_{uuid.uuid4().hex[:24]}"


def _output(result: Any) -> str:
    """A tool's result as the model reads it (a ``ToolResult``'s content, else the value)."""
    content = getattr(result, "content", result)
    if content is None or isinstance(content, str):
        return content or ""
    return json.dumps(content, default=str)


def _usage(output: RunOutput) -> dict[str, int]:
    """The run's aggregated token counts."""
    usage = empty_usage()
    metrics = getattr(output, "metrics", None)
    for key in usage:
        value = getattr(metrics, key, 0)
        usage[key] = value if isinstance(value, int) else 0
    return usage
