"""``LangGraphAdapter``: a LangGraph agent in a Band room, with the Band tools as LangChain tools.

Two ways to build one (band-sdk 6.0.1's constructor)::

    # simple: a chat model; the adapter builds the tool loop, the checkpointer keeps each
    # room's thread (default: in memory)
    adapter = LangGraphAdapter(llm=ChatOpenAI(model="gpt-5-mini"), checkpointer=InMemorySaver())

    # advanced: your graph, built each turn from the Band tools (or one static graph)
    adapter = LangGraphAdapter(graph_factory=lambda tools: create_agent(llm, tools, ...))

Needs the [langgraph] extra (``langgraph`` and ``langchain-core``); the chat model's own
package (``langchain-openai``, ...) is the application's choice.
"""

from __future__ import annotations

from band._extras import require_module

require_module("langgraph", "LangGraphAdapter")  # an optional dependency: say how to get it

import asyncio  # noqa: E402
import logging  # noqa: E402 -- after the extra check, which names what is missing
import uuid  # noqa: E402
from collections.abc import Callable, Sequence  # noqa: E402
from typing import Any, Unpack  # noqa: E402

from langchain_core.callbacks import BaseCallbackHandler  # noqa: E402
from langchain_core.language_models import BaseChatModel  # noqa: E402
from langchain_core.messages import (  # noqa: E402
    AIMessage,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)
from langchain_core.outputs import LLMResult  # noqa: E402
from langchain_core.runnables import RunnableConfig  # noqa: E402
from langchain_core.tools import BaseTool  # noqa: E402
from langgraph.checkpoint.base import BaseCheckpointSaver  # noqa: E402
from langgraph.checkpoint.memory import InMemorySaver  # noqa: E402
from langgraph.graph import END, START, MessagesState, StateGraph  # noqa: E402
from langgraph.prebuilt import ToolNode  # noqa: E402
from pydantic import PositiveInt  # noqa: E402

from band.converters._events import INTERRUPTED_TOOL_TEXT  # noqa: E402
from band.converters.langchain import LangChainHistoryConverter, LangChainMessages  # noqa: E402
from band.core.protocols import AgentToolsProtocol  # noqa: E402
from band.core.simple_adapter import FeatureKwargs  # noqa: E402
from band.core.types import AdapterFeatures, Emit, PlatformMessage  # noqa: E402
from band.core.wire import JsonValue  # noqa: E402
from band.runtime.prompts import render_system_prompt  # noqa: E402
from band.runtime.tools.custom import CustomToolDef  # noqa: E402

from ._bandtools import BandToolSpec, FrameworkConfig, band_tool_specs, result_text  # noqa: E402
from ._base import FrameworkAdapterBase  # noqa: E402
from ._model import add_usage, empty_usage, post_tool_event, run_tool_call  # noqa: E402

__all__ = ["LangGraphAdapter", "LangGraphAdapterConfig"]

log = logging.getLogger("band.adapters.langgraph")

#: A graph built for one turn from the turn's tools.
GraphFactory = Callable[[list[BaseTool]], Any]


class LangGraphAdapterConfig(FrameworkConfig):
    """Settings of :class:`LangGraphAdapter` (band-sdk 6.0.1's fields).

    ``inject_system_prompt`` None puts the rendered system prompt first in a room's thread
    only for the simple ``llm=`` pattern (``graph=`` / ``graph_factory=`` graphs usually
    bring their own).
    """

    prompt_template: str = "default"
    custom_section: str = ""
    recursion_limit: PositiveInt = 50
    inject_system_prompt: bool | None = None


class BandLangChainTool(BaseTool):
    """A Band platform tool (or ``(InputModel, handler)`` custom tool) as a LangChain tool.

    A call runs through the adapter's tool path (events, the turn's ledger, errors given
    back to the model as text); called with a tool call it answers a ``ToolMessage`` whose
    status says whether the call succeeded.
    """

    band_tools: Any  # the turn's AgentToolsProtocol
    band_custom: list[Any]
    band_features: Any  # AdapterFeatures

    def _run(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(f"{self.name} runs only in an async graph")

    async def ainvoke(
        self, input: str | dict[str, Any] | Any, config: RunnableConfig | None = None, **_: Any
    ) -> Any:
        """Run the call; a tool call (``{"type": "tool_call", ...}``) gets a ``ToolMessage``."""
        call = input if isinstance(input, dict) and input.get("type") == "tool_call" else None
        args: JsonValue = call["args"] if call is not None else input
        call_id = str(call["id"]) if call is not None else f"call_{uuid.uuid4().hex[:24]}"
        run = await run_tool_call(
            self.band_tools, self.band_custom, self.band_features, self.name, args, call_id
        )
        if call is None:
            return run.output
        status = "success" if run.ok else "error"
        return ToolMessage(content=run.output, tool_call_id=call_id, name=self.name, status=status)


def band_langchain_tools(
    tools: AgentToolsProtocol,
    features: AdapterFeatures,
    custom: Sequence[CustomToolDef] = (),
) -> list[BaseTool]:
    """The platform tools the ``capabilities`` select and the custom tools, as LangChain tools."""
    return [
        _tool(spec, tools, features, custom) for spec in band_tool_specs(tools, features, custom)
    ]


def _tool(
    spec: BandToolSpec,
    tools: AgentToolsProtocol,
    features: AdapterFeatures,
    custom: Sequence[CustomToolDef],
) -> BaseTool:
    return BandLangChainTool(
        name=spec.name,
        description=spec.description or spec.name,
        args_schema=spec.parameters,
        band_tools=tools,
        band_custom=list(custom),
        band_features=features,
    )


def declined(messages: Sequence[BaseMessage]) -> bool:
    """Whether the last tool batch was a successful ``band_no_reply`` with every sibling call
    successful (the turn is answered: no further model call)."""
    batch: list[ToolMessage] = []
    for m in reversed(messages):
        if not isinstance(m, ToolMessage):
            break
        batch.append(m)
    return (
        bool(batch)
        and all(m.status == "success" for m in batch)
        and any(m.name == "band_no_reply" for m in batch)
    )


def simple_graph(llm: BaseChatModel, tools: list[BaseTool], checkpointer: Any) -> Any:
    """The ``llm=`` pattern's graph: the model, its tool calls, again until it answers
    (or a successful ``band_no_reply`` ends the turn)."""
    bound = llm.bind_tools(tools) if tools else llm

    async def agent(state: MessagesState) -> dict[str, list[BaseMessage]]:
        return {"messages": [await bound.ainvoke(state["messages"])]}

    def after_agent(state: MessagesState) -> str:
        last = state["messages"][-1]
        return "tools" if isinstance(last, AIMessage) and last.tool_calls else END

    def after_tools(state: MessagesState) -> str:
        return END if declined(state["messages"]) else "agent"

    graph = StateGraph(MessagesState)
    graph.add_node("agent", agent)
    graph.add_node("tools", ToolNode(tools))
    graph.add_edge(START, "agent")
    graph.add_conditional_edges("agent", after_agent, ["tools", END])
    graph.add_conditional_edges("tools", after_tools, ["agent", END])
    return graph.compile(checkpointer=checkpointer)


class _Telemetry(BaseCallbackHandler):
    """One turn's callbacks: the framework's own tools as events, every model call's usage.

    LangChain may call it from a worker thread (a sync tool runs its whole ``invoke`` in an
    executor, its callbacks with it), so the events are handed to the turn's loop and
    posted there one after another, in the order the callbacks came.
    """

    run_inline = True  # called on the loop when the loop calls: no executor hop

    def __init__(self, tools: AgentToolsProtocol, features: AdapterFeatures) -> None:
        self.tools = tools
        self.features = features
        self.usage = empty_usage()
        self._loop = asyncio.get_running_loop()
        self._calls: dict[uuid.UUID, tuple[str, str]] = {}
        self._tail: asyncio.Task[None] | None = None

    def on_tool_start(
        self,
        serialized: dict[str, Any],
        input_str: str,
        *,
        run_id: uuid.UUID,
        inputs: dict[str, Any] | None = None,
        tool_call_id: str | None = None,
        **kwargs: Any,
    ) -> None:
        # Band tools never get here (they post their own events): this is a native tool
        name = str(serialized.get("name") or kwargs.get("name") or "unknown")
        call_id = tool_call_id or str(run_id)
        self._calls[run_id] = (name, call_id)
        args = inputs if inputs is not None else input_str
        self._post("tool_call", {"name": name, "args": args, "tool_call_id": call_id})

    def on_tool_end(self, output: Any, *, run_id: uuid.UUID, **kwargs: Any) -> None:
        failed = isinstance(output, ToolMessage) and output.status == "error"
        self._result(run_id, result_text(output), failed)

    def on_tool_error(self, error: BaseException, *, run_id: uuid.UUID, **kwargs: Any) -> None:
        self._result(run_id, f"Error: {error}", True)

    def _result(self, run_id: uuid.UUID, output: str, is_error: bool) -> None:
        name, call_id = self._calls.pop(run_id, ("unknown", str(run_id)))
        body = {"name": name, "output": output, "tool_call_id": call_id, "is_error": is_error}
        self._post("tool_result", body)

    def _post(self, kind: str, body: dict[str, Any]) -> None:
        if Emit.TOOL_CALLS in self.features.emit:
            self._loop.call_soon_threadsafe(self._chain, kind, body)

    def _chain(self, kind: str, body: dict[str, Any]) -> None:
        """Post after the events before it (on the turn's loop)."""
        previous = self._tail

        async def post() -> None:
            if previous is not None:
                await asyncio.wait({previous})
            await post_tool_event(self.tools, self.features, kind, body)

        self._tail = self._loop.create_task(post())

    async def flush(self) -> None:
        """Wait until every event handed over so far is posted."""
        await asyncio.sleep(0)  # the hand-overs queued before the run returned land first
        if self._tail is not None:
            await asyncio.wait({self._tail})

    def on_llm_end(self, response: LLMResult, **kwargs: Any) -> None:
        for generations in response.generations:
            for generation in generations:
                usage = getattr(getattr(generation, "message", None), "usage_metadata", None)
                if not usage:
                    continue
                details = usage.get("input_token_details") or {}
                add_usage(
                    self.usage,
                    input_tokens=usage.get("input_tokens"),
                    output_tokens=usage.get("output_tokens"),
                    cache_read_tokens=details.get("cache_read"),
                    cache_write_tokens=details.get("cache_creation"),
                )


class LangGraphAdapter(FrameworkAdapterBase[LangChainMessages]):
    """Runs each turn through a LangGraph graph whose thread is the room.

    ``additional_tools`` takes ``(InputModel, handler)`` custom tools (their declared turn
    effects count) and ready-made LangChain tools (they count as ``OBSERVE``: the adapter
    cannot see what they do). The model's closing text is posted to the room when no tool
    replied or declined this turn.
    """

    PROVIDER = "langgraph"

    def __init__(
        self,
        config: LangGraphAdapterConfig | None = None,
        *,
        history_converter: LangChainHistoryConverter | None = None,
        additional_tools: list[Any] | None = None,
        llm: BaseChatModel | None = None,
        checkpointer: BaseCheckpointSaver[Any] | None = None,
        graph_factory: GraphFactory | None = None,
        graph: Any | None = None,
        **features: Unpack[FeatureKwargs],
    ) -> None:
        super().__init__(
            history_converter=history_converter or LangChainHistoryConverter(), **features
        )
        self.config = config or LangGraphAdapterConfig()
        simple = llm is not None and graph_factory is None and graph is None
        if llm is not None and simple:
            chat_model = llm
            saver = checkpointer if checkpointer is not None else InMemorySaver()
            checkpointer = saver
            graph_factory = lambda turn_tools: simple_graph(chat_model, turn_tools, saver)  # noqa: E731
        if graph_factory is None and graph is None:
            raise ValueError(
                "LangGraphAdapter needs llm= (the simple pattern) or graph_factory= / graph="
            )
        self.graph_factory = graph_factory
        self.graph = graph
        self.checkpointer = checkpointer
        custom = [t for t in additional_tools or [] if isinstance(t, tuple)]
        self._take_custom_tools(custom)
        #: ready-made LangChain tools, handed to the graph as they are
        self._native_tools = [t for t in additional_tools or [] if not isinstance(t, tuple)]
        inject = self.config.inject_system_prompt
        self._inject_system_prompt = simple if inject is None else inject
        self._system_prompt = ""
        self._bootstrapped: set[str] = set()

    @property
    def judges_turns(self) -> bool:
        """Always: even a static graph can answer, its closing text is relayed."""
        return True

    async def on_started(self, agent_name: str, agent_description: str) -> None:
        """Render the system prompt once the agent's name and description are known."""
        await super().on_started(agent_name, agent_description)
        self._system_prompt = render_system_prompt(
            agent_name=agent_name,
            agent_description=agent_description,
            custom_section=self.config.custom_section,
            template=self.config.prompt_template,
            features=self.features,
        )

    def tools_for_turn(self, tools: AgentToolsProtocol) -> list[BaseTool]:
        """The turn's LangChain tools: the Band tools, the custom tools, the native tools."""
        band = band_langchain_tools(tools, self.features, self._custom)
        return band + self._native_tools

    async def on_message(
        self,
        msg: PlatformMessage,
        tools: AgentToolsProtocol,
        history: LangChainMessages,
        participants_msg: str | None,
        contacts_msg: str | None,
        *,
        is_session_bootstrap: bool,
        room_id: str,
    ) -> None:
        """One turn: the new message (after the room's history on a bootstrap) into the
        room's thread, the graph run to its end, its closing text relayed if nothing replied."""
        telemetry = _Telemetry(tools, self.features)
        try:
            graph: Any = (
                self.graph_factory(self.tools_for_turn(tools))
                if self.graph_factory is not None
                else self.graph
            )
            messages: list[BaseMessage] = await unanswered_calls(graph, room_id)
            if is_session_bootstrap and room_id not in self._bootstrapped:
                if not await self._thread_has_messages(graph, room_id):
                    if self._inject_system_prompt and self._system_prompt:
                        messages.append(SystemMessage(content=self._system_prompt))
                    messages.extend(history)
            for note in (participants_msg, contacts_msg):
                if note:  # one system message only, first: room changes come as user text
                    messages.append(HumanMessage(content=f"[System]: {note}"))
            messages.append(HumanMessage(content=msg.format_for_llm()))
            config: RunnableConfig = {
                "configurable": {"thread_id": room_id},
                "recursion_limit": self.config.recursion_limit,
                "callbacks": [telemetry],
            }
            state = await graph.ainvoke({"messages": messages}, config=config)
            self._bootstrapped.add(room_id)
            await telemetry.flush()
        except Exception as exc:
            await self._run_failed(tools, room_id, exc)
            raise
        finally:
            await self._send_usage(tools, telemetry.usage)
        await self._close(tools, msg, closing_text(state))

    async def _thread_has_messages(self, graph: Any, room_id: str) -> bool:
        """Whether the graph's checkpointer already holds this room's thread (a restart with
        a persistent checkpointer: the room's history is in it already)."""
        saver = getattr(graph, "checkpointer", None) or self.checkpointer
        if saver is None or saver is True:
            return False
        try:
            found = await saver.aget_tuple({"configurable": {"thread_id": room_id}})
        except Exception:  # a saver that cannot tell: hydrate the history
            log.debug("room %s: the checkpointer cannot be read", room_id, exc_info=True)
            return False
        values = found.checkpoint.get("channel_values", {}) if found is not None else {}
        return bool(values.get("messages"))

    async def on_cleanup(self, room_id: str) -> None:
        """Forget that the room's thread was hydrated (the checkpointer keeps the thread)."""
        self._bootstrapped.discard(room_id)


async def unanswered_calls(graph: Any, room_id: str) -> list[BaseMessage]:
    """Error results for the tool calls a turn interrupted mid-call left in the room's
    thread (a provider refuses a call without its result)."""
    if getattr(graph, "checkpointer", None) is None or not hasattr(graph, "aget_state"):
        return []
    try:
        snapshot = await graph.aget_state({"configurable": {"thread_id": room_id}})
    except Exception:  # a graph that cannot tell: nothing to answer
        log.debug("room %s: the thread's state cannot be read", room_id, exc_info=True)
        return []
    thread = (snapshot.values or {}).get("messages") or []
    answered = {m.tool_call_id for m in thread if isinstance(m, ToolMessage)}
    last_ai = next((m for m in reversed(thread) if isinstance(m, AIMessage)), None)
    if last_ai is None:
        return []
    return [
        ToolMessage(
            content=INTERRUPTED_TOOL_TEXT, tool_call_id=c["id"], name=c["name"], status="error"
        )
        for c in last_ai.tool_calls
        if c["id"] not in answered
    ]


def closing_text(state: object) -> str:
    """The final ``AIMessage``'s text when the run ended on one without tool calls."""
    messages = state.get("messages") if isinstance(state, dict) else None
    if not messages:
        return ""
    last = messages[-1]
    if not isinstance(last, AIMessage) or last.tool_calls:
        return ""
    return last.text.strip() if isinstance(last.text, str) else str(last.content).strip()
