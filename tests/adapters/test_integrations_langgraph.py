"""band.integrations.langgraph (band-sdk 6.0.1's helpers) with the real LangGraph and LangChain:
the Band tools it hands out run in a graph of the caller's own on a real local platform, a
compiled graph wrapped as a tool runs as the model calls it, the formatter feeds a graph."""

from __future__ import annotations

import asyncio
import operator
import warnings
from typing import Annotated, Any, TypedDict

import pytest
from bandtest.process import python_ok
from langchain_core.messages import AIMessage, BaseMessage
from langchain_openai import ChatOpenAI
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode

from band.adapters import LangGraphAdapter
from band.core.protocols import AgentToolsProtocol
from band.core.simple_adapter import SimpleAdapter
from band.core.types import AdapterFeatures, Emit, PlatformMessage
from band.integrations.langgraph import (
    MessageFormatter,
    agent_tools_to_langchain,
    default_messages_state_formatter,
    graph_as_tool,
)
from band.runtime.capabilities import Capability
from band.testing import LocalBand, ScriptedModel, TextTurn, ToolTurn

from .framework_helpers import events, settled, start


def _llm(model: ScriptedModel) -> ChatOpenAI:
    return ChatOpenAI(
        model="scripted-model", api_key=model.api_key, base_url=model.openai_base_url, max_retries=0
    )


def _tool_loop(llm: ChatOpenAI, tools: list[Any]) -> Any:
    """A graph of the caller's own: the model, its tool calls, again until it answers."""
    bound = llm.bind_tools(tools)

    async def agent(state: MessagesState) -> dict[str, list[BaseMessage]]:
        return {"messages": [await bound.ainvoke(state["messages"])]}

    def route(state: MessagesState) -> str:
        last = state["messages"][-1]
        return "tools" if isinstance(last, AIMessage) and last.tool_calls else END

    graph = StateGraph(MessagesState)
    graph.add_node("agent", agent)
    graph.add_node("tools", ToolNode(tools))
    graph.add_edge(START, "agent")
    graph.add_conditional_edges("agent", route, ["tools", END])
    graph.add_edge("tools", "agent")
    return graph.compile()


class HelperGraphAdapter(SimpleAdapter[Any]):
    """An adapter written as band-sdk's docs show: its own graph, the helpers' tools and input."""

    SUPPORTED_EMIT = frozenset({Emit.TOOL_CALLS})
    SUPPORTED_CAPABILITIES = frozenset({Capability.MEMORY})

    def __init__(self, llm: ChatOpenAI, formatter: MessageFormatter, **kw: Any) -> None:
        super().__init__(**kw)
        self.llm = llm
        self.formatter = formatter
        self.handed: list[list[str]] = []

    async def on_message(
        self,
        msg: PlatformMessage,
        tools: AgentToolsProtocol,
        history: Any,
        participants_msg: str | None,
        contacts_msg: str | None,
        *,
        is_session_bootstrap: bool,
        room_id: str,
    ) -> None:
        lc_tools = agent_tools_to_langchain(tools, features=self.features)
        self.handed.append([t.name for t in lc_tools])
        graph = _tool_loop(self.llm, lc_tools)
        await graph.ainvoke(self.formatter(msg, msg.sender_name or "someone"))


def test_the_tools_post_a_real_message_from_a_real_graph(
    model: ScriptedModel, band: LocalBand
) -> None:
    model.script(
        ToolTurn("band_send_message", {"content": "hello from the graph", "mentions": ["@local"]}),
        TextTurn("sent"),
    )
    adapter = HelperGraphAdapter(
        _llm(model), default_messages_state_formatter, emit=Emit.TOOL_CALLS
    )
    bot, room = start(band, adapter)
    mid = room.say("please greet", mention=bot)
    reply = room.wait_for_reply(bot, after=mid)
    assert reply.text == "hello from the graph"
    settled(room, mid, bot, "processed")  # the tool's reply counted in the turn
    first, second = model.requests[0], model.requests[1]
    assert first.tool_names == adapter.handed[0]
    assert "band_send_message" in first.tool_names and "band_store_memory" not in first.tool_names
    [(_, prompt)] = [m for m in first.messages if m[0] == "user"]
    assert prompt.startswith("Message from Local Person (User, ID: ")
    assert prompt.endswith("please greet")
    [(_, output)] = second.tool_results
    assert reply.id in output  # the platform's answer went back through the graph
    [call] = events(room, bot, "tool_call")  # the adapter's tool path posted its events
    assert call["name"] == "band_send_message"


def test_features_and_the_deprecated_flags_select_the_tools(
    model: ScriptedModel, band: LocalBand
) -> None:
    seen: list[list[str]] = []

    class Lister(SimpleAdapter[Any]):
        async def on_message(
            self, msg: PlatformMessage, tools: AgentToolsProtocol, *_: Any, **__: Any
        ) -> None:
            seen.append([t.name for t in agent_tools_to_langchain(tools)])
            seen.append(
                [
                    t.name
                    for t in agent_tools_to_langchain(
                        tools,
                        features=AdapterFeatures(
                            capabilities=frozenset({Capability.MEMORY}),
                            exclude_tools=frozenset({"band_no_reply"}),
                        ),
                    )
                ]
            )
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                seen.append(
                    [t.name for t in agent_tools_to_langchain(tools, include_memory_tools=True)]
                )
            assert [w.category for w in caught] == [DeprecationWarning]
            await tools.send_message("listed", [msg.sender_id])

    bot, room = start(band, Lister())
    mid = room.say("list", mention=bot)
    assert room.wait_for_reply(bot, after=mid).text == "listed"
    plain, memory, flagged = seen
    assert "band_send_message" in plain and not any("memor" in n for n in plain)
    assert "band_store_memory" in memory and "band_no_reply" not in memory
    assert "band_store_memory" in flagged and "band_no_reply" in flagged


class Sum(TypedDict):
    a: int
    b: int
    result: int


class Notes(TypedDict):
    note: str
    notes: Annotated[list[str], operator.add]


def _calculator() -> Any:
    graph = StateGraph(Sum)
    graph.add_node("add", lambda s: {"result": int(s["a"]) + int(s["b"])})
    graph.add_edge(START, "add")
    graph.add_edge("add", END)
    return graph.compile(checkpointer=InMemorySaver())


def _notebook(saver: InMemorySaver) -> Any:
    graph = StateGraph(Notes)
    graph.add_node("keep", lambda s: {"notes": [s["note"]]})
    graph.add_edge(START, "keep")
    graph.add_edge("keep", END)
    return graph.compile(checkpointer=saver)


def test_a_wrapped_graph_answers_the_models_call_in_a_room(
    model: ScriptedModel, band: LocalBand
) -> None:
    calc = graph_as_tool(
        _calculator(),
        name="calculator",
        description="Adds two numbers",
        input_schema={"a": "the first number", "b": "the second number"},
        result_formatter=lambda state: f"Result: {state['result']}",
    )
    assert calc.name == "calculator" and "Adds two numbers" in calc.description
    assert set(calc.args) == {"a", "b"} and "the first number" in str(calc.args["a"])
    model.script(ToolTurn("calculator", {"a": 2, "b": 3}), TextTurn("2 + 3 = 5"))
    bot, room = start(band, LangGraphAdapter(llm=_llm(model), additional_tools=[calc]))
    mid = room.say("what is 2 + 3?", mention=bot)
    assert room.wait_for_reply(bot, after=mid).text == "2 + 3 = 5"
    assert "calculator" in model.requests[0].tool_names
    assert [out for _, out in model.requests[1].tool_results] == ["Result: 5"]


async def _call(tool: Any, thread: str, **args: Any) -> str:
    call = {"type": "tool_call", "id": "call_1", "name": tool.name, "args": args}
    message = await tool.ainvoke(call, config={"configurable": {"thread_id": thread}})
    return str(message.content)


def test_isolated_calls_forget_shared_calls_remember() -> None:
    asyncio.run(_isolated_then_shared())


async def _isolated_then_shared() -> None:
    saver = InMemorySaver()
    formatter = lambda state: state["notes"]  # noqa: E731
    isolated = graph_as_tool(
        _notebook(saver), "notebook", "Keeps notes", {"note": "a note"}, formatter
    )
    assert await _call(isolated, "room-1", note="one") == '[\n  "one"\n]'
    assert await _call(isolated, "room-1", note="two") == '[\n  "two"\n]'
    threads = {c.config["configurable"]["thread_id"] for c in saver.list(None)}
    assert len(threads) == 2 and all(t.startswith("subgraph:notebook:room-1:") for t in threads)
    assert all(len(t.rsplit(":", 1)[1]) == 8 for t in threads)

    shared = graph_as_tool(
        _notebook(InMemorySaver()),
        "notebook",
        "Keeps notes",
        {"note": "a note"},
        lambda state: ",".join(state["notes"]),
        isolate_thread=False,
    )
    assert await _call(shared, "room-2", note="one") == "one"
    assert await _call(shared, "room-2", note="two") == "one,two"
    assert await _call(shared, "room-3", note="three") == "three"  # another room, another thread


def test_without_a_formatter_the_state_is_the_answer_and_errors_propagate() -> None:
    asyncio.run(_state_and_errors())


async def _state_and_errors() -> None:
    tool = graph_as_tool(_calculator(), "calc", "Adds", {"a": "first", "b": "second"})
    assert await _call(tool, "r", a=1, b=2) == str({"a": 1, "b": 2, "result": 3})
    with pytest.raises(ValueError):
        await _call(tool, "r", a="x", b=2)  # the graph's own failure reaches the caller
    for name, description, schema in (("", "d", {"a": "x"}), ("n", "", {"a": "x"}), ("n", "d", {})):
        with pytest.raises(ValueError):
            graph_as_tool(_calculator(), name, description, schema)


def test_the_default_formatter_feeds_a_messages_state_graph() -> None:
    from datetime import UTC, datetime

    msg = PlatformMessage(
        id="m1",
        room_id="r1",
        content="hi there",
        sender_id="u-1",
        sender_type="User",
        sender_name="Ada",
        message_type="text",
        metadata={},
        created_at=datetime.now(UTC),
    )
    state = default_messages_state_formatter(msg, "Ada Lovelace")
    assert state == {
        "messages": [
            {"role": "user", "content": "Message from Ada Lovelace (User, ID: u-1): hi there"}
        ]
    }
    graph = StateGraph(MessagesState)
    graph.add_node("echo", lambda s: {"messages": [AIMessage(content=s["messages"][-1].content)]})
    graph.add_edge(START, "echo")
    out = graph.compile().invoke(state)
    assert out["messages"][-1].content.endswith("hi there")


def test_without_langgraph_the_import_is_one_line() -> None:
    code = (
        "import sys; sys.modules['langgraph'] = None\n"
        "try:\n    import band.integrations.langgraph\n"
        "except ImportError as exc:\n    print(exc)\n"
    )
    done = python_ok(code, timeout=120)
    assert done.stdout.splitlines() == [
        "band.integrations.langgraph needs the [langgraph] extra: "
        "pip install 'band-open-sdk[langgraph]'"
    ]
