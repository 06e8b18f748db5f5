"""LangGraphAdapter end to end: LangGraph and LangChain's OpenAI chat model (the real packages),
the model played by the scripted model server, the agent on a real local platform."""

from __future__ import annotations

from typing import Any

from langchain_core.tools import tool
from langchain_openai import ChatOpenAI
from langgraph.checkpoint.memory import InMemorySaver

from band.adapters import LangGraphAdapter, LangGraphAdapterConfig
from band.adapters._model import GENERIC_PROVIDER_FAILURE_MESSAGE
from band.core.turn import MISSING_REPLY
from band.core.types import Emit
from band.runtime.capabilities import Capability
from band.testing import ErrorTurn, LocalBand, ScriptedModel, TextTurn, ToolTurn

from .framework_helpers import (
    a_5xx_is_retried,
    act_tool_turn,
    errors_lose_nothing,
    events,
    history_reaches_the_model,
    interrupt_fails_the_turn,
    interrupt_mid_tool_keeps_the_thread,
    no_reply_ends_the_run,
    plain_answer,
    second_turn_sees_the_first,
    send_message_reply,
    settled,
    start,
)


def _llm(model: ScriptedModel, **kw: Any) -> ChatOpenAI:
    options: dict[str, Any] = {"max_retries": 0, **kw}
    return ChatOpenAI(
        model="scripted-model", api_key=model.api_key, base_url=model.openai_base_url, **options
    )


def test_a_plain_answer_is_relayed_as_the_reply(model: ScriptedModel, band: LocalBand) -> None:
    config = LangGraphAdapterConfig(custom_section="Answer in one line.")
    request = plain_answer(band, model, LangGraphAdapter(config, llm=_llm(model)))
    assert request.provider == "openai-chat"


def test_band_send_message_is_the_reply_and_the_closing_text_is_not_relayed(
    model: ScriptedModel, band: LocalBand
) -> None:
    adapter = LangGraphAdapter(
        llm=_llm(model), emit=Emit.TOOL_CALLS, capabilities=Capability.MEMORY
    )
    output, result = send_message_reply(band, model, adapter)
    assert result["output"] == output


def test_a_custom_tool_declared_act_completes_the_turn(
    model: ScriptedModel, band: LocalBand
) -> None:
    bot, room = act_tool_turn(
        band, model, lambda t: LangGraphAdapter(llm=_llm(model), additional_tools=t)
    )
    assert "fileticket" in model.requests[0].tool_names
    assert [out for _, out in model.requests[1].tool_results] == ["filed: printer jam"]
    assert room.messages_from(bot) == []


def test_a_ready_made_langchain_tool_runs_and_counts_as_observe(
    model: ScriptedModel, band: LocalBand
) -> None:
    @tool
    def forecast(city: str) -> str:
        """The weather forecast for a city."""
        return f"sunny in {city}"

    model.script(ToolTurn("forecast", {"city": "Oslo"}), TextTurn(""))
    adapter = LangGraphAdapter(llm=_llm(model), additional_tools=[forecast], emit=Emit.TOOL_CALLS)
    bot, room = start(band, adapter)
    mid = room.say("weather in Oslo?", mention=bot)
    settled(room, mid, bot, "failed")  # it only observed: the turn owes a reply
    assert [out for _, out in model.requests[1].tool_results] == ["sunny in Oslo"]
    assert [e.content for e in room.messages_from(bot, "error")] == [MISSING_REPLY]
    [call] = events(room, bot, "tool_call")
    [result] = events(room, bot, "tool_result")
    assert call["name"] == "forecast" and call["args"] == {"city": "Oslo"}
    assert result["output"] == "sunny in Oslo"  # the tool's output, not a ToolMessage's repr
    assert result["tool_call_id"] == call["tool_call_id"] and not result["is_error"]


def test_band_no_reply_ends_the_graph_without_another_model_call(
    model: ScriptedModel, band: LocalBand
) -> None:
    no_reply_ends_the_run(band, model, LangGraphAdapter(llm=_llm(model), emit=Emit.USAGE))


def test_the_second_turn_sees_the_first(model: ScriptedModel, band: LocalBand) -> None:
    second_turn_sees_the_first(band, model, LangGraphAdapter(llm=_llm(model)))


def test_the_rooms_history_reaches_the_model_on_a_session_bootstrap(
    model: ScriptedModel, band: LocalBand
) -> None:
    history_reaches_the_model(band, model, LangGraphAdapter(llm=_llm(model)))


def test_a_5xx_is_retried_by_the_sdk(model: ScriptedModel, band: LocalBand) -> None:
    a_5xx_is_retried(band, model, LangGraphAdapter(llm=_llm(model, max_retries=2)))


def test_a_model_error_is_the_error_event_and_loses_nothing(
    model: ScriptedModel, band: LocalBand
) -> None:
    model.script(ErrorTurn(status=500), ErrorTurn(status=401, message="bad key"))
    bot, room = errors_lose_nothing(band, model, LangGraphAdapter(llm=_llm(model)))
    error = room.messages_from(bot, "error")[0]
    assert error.content == GENERIC_PROVIDER_FAILURE_MESSAGE  # the official's failure
    assert error.metadata["failure"]["provider"] == "langgraph"


def test_an_interrupt_cancels_the_running_turn(model: ScriptedModel, band: LocalBand) -> None:
    interrupt_fails_the_turn(
        band, model, LangGraphAdapter(llm=_llm(model), checkpointer=InMemorySaver())
    )


def test_a_graph_factory_gets_the_band_tools(model: ScriptedModel, band: LocalBand) -> None:
    from band.adapters.langgraph import simple_graph

    seen: list[list[str]] = []

    def factory(tools: list[Any]) -> Any:
        seen.append([t.name for t in tools])
        return simple_graph(_llm(model), tools, InMemorySaver())

    model.script(ToolTurn("band_send_message", {"content": "built", "mentions": ["@local"]}))
    model.script(TextTurn(""))
    bot, room = start(band, LangGraphAdapter(graph_factory=factory))
    mid = room.say("hi", mention=bot)
    assert room.wait_for_reply(bot, after=mid).text == "built"
    assert "band_send_message" in seen[0]
    assert model.requests[0].system is None  # graph_factory= graphs bring their own prompt


def test_without_a_model_or_graph_the_constructor_says_what_it_needs() -> None:
    import pytest

    with pytest.raises(ValueError, match="llm="):
        LangGraphAdapter()


def test_an_interrupt_mid_tool_leaves_a_thread_the_model_accepts(
    model: ScriptedModel, band: LocalBand
) -> None:
    interrupt_mid_tool_keeps_the_thread(
        band, model, lambda t: LangGraphAdapter(llm=_llm(model), additional_tools=t)
    )
