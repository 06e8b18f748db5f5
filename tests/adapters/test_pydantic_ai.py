"""PydanticAIAdapter end to end: Pydantic AI with its OpenAI model (the real packages), the
model played by the scripted model server, the agent on a real local platform."""

from __future__ import annotations

from typing import Any

import pytest
from openai import AsyncOpenAI
from pydantic_ai import RunContext
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider

from band.adapters import PydanticAIAdapter, PydanticAIAdapterConfig
from band.adapters._model import GENERIC_PROVIDER_FAILURE_MESSAGE
from band.core.turn import MISSING_REPLY
from band.core.types import Emit
from band.runtime.capabilities import Capability
from band.runtime.tools import TurnEffect
from band.runtime.tools.custom import declares_turn_effect
from band.testing import ErrorTurn, LocalBand, ScriptedModel, TextTurn, ToolTurn

from .framework_helpers import (
    act_tool_turn,
    errors_lose_nothing,
    events,
    interrupt,
    interrupt_mid_tool,
    settled,
    stalling_tool,
    start,
)


def _llm(model: ScriptedModel, retries: int = 0) -> OpenAIChatModel:
    client = AsyncOpenAI(api_key=model.api_key, base_url=model.openai_base_url, max_retries=retries)
    return OpenAIChatModel("scripted-model", provider=OpenAIProvider(openai_client=client))


def _adapter(
    model: ScriptedModel, config: PydanticAIAdapterConfig | None = None, **kw: Any
) -> PydanticAIAdapter:
    return PydanticAIAdapter(config, llm=_llm(model, kw.pop("retries", 0)), **kw)


def test_a_plain_answer_is_relayed_as_the_reply(model: ScriptedModel, band: LocalBand) -> None:
    model.script(TextTurn("The answer is 42."))
    config = PydanticAIAdapterConfig(custom_section="Answer in one line.")
    bot, room = start(band, _adapter(model, config), name="Sage")
    mid = room.say("what is the answer?", mention=bot)
    assert room.wait_for_reply(bot, after=mid).text == "The answer is 42."
    settled(room, mid, bot, "processed")
    [request] = model.requests
    assert request.provider == "openai-chat" and request.model == "scripted-model"
    assert request.system and "Answer in one line." in request.system and "Sage" in request.system
    assert "what is the answer?" in request.prompt
    assert "band_send_message" in request.tool_names and "band_no_reply" in request.tool_names
    assert not any("memor" in n for n in request.tool_names)  # no capability, no memory tools


def test_band_send_message_is_the_reply_and_the_closing_text_is_not_relayed(
    model: ScriptedModel, band: LocalBand
) -> None:
    model.script(
        ToolTurn("band_send_message", {"content": "echo: hello", "mentions": ["@local"]}),
        TextTurn("All done."),
    )
    adapter = _adapter(model, emit=Emit.TOOL_CALLS, capabilities=Capability.MEMORY)
    bot, room = start(band, adapter)
    mid = room.say("hello", mention=bot)
    reply = room.wait_for_reply(bot, after=mid)
    settled(room, mid, bot, "processed")
    assert [m.text for m in room.messages_from(bot)] == ["echo: hello"]
    assert reply.text == "echo: hello"
    assert "band_store_memory" in model.requests[0].tool_names  # capabilities add their group
    [(call_id, output)] = model.requests[1].tool_results
    assert reply.id in output  # the platform's own answer went back to the model
    [call] = events(room, bot, "tool_call")
    [result] = events(room, bot, "tool_result")
    assert call["name"] == "band_send_message" and call["args"]["content"] == "echo: hello"
    assert result["tool_call_id"] == call["tool_call_id"] == call_id
    assert result["output"] == output and not result["is_error"]


def test_a_custom_tool_declared_act_completes_the_turn(
    model: ScriptedModel, band: LocalBand
) -> None:
    bot, room = act_tool_turn(band, model, lambda t: _adapter(model, additional_tools=t))
    assert "fileticket" in model.requests[0].tool_names
    assert [out for _, out in model.requests[1].tool_results] == ["filed: printer jam"]
    assert room.messages_from(bot) == []


def test_a_native_tool_runs_and_undeclared_it_counts_as_observe(
    model: ScriptedModel, band: LocalBand
) -> None:
    def forecast(city: str) -> str:
        """The weather forecast for a city."""
        return f"sunny in {city}"

    model.script(ToolTurn("forecast", {"city": "Oslo"}), TextTurn(""))
    adapter = _adapter(model, additional_tools=[forecast], emit=Emit.TOOL_CALLS)
    bot, room = start(band, adapter)
    mid = room.say("weather in Oslo?", mention=bot)
    settled(room, mid, bot, "failed")  # it only observed: the turn owes a reply
    assert [out for _, out in model.requests[1].tool_results] == ["sunny in Oslo"]
    assert [e.content for e in room.messages_from(bot, "error")] == [MISSING_REPLY]
    [call] = events(room, bot, "tool_call")
    [result] = events(room, bot, "tool_result")
    assert call["name"] == "forecast" and call["args"] == {"city": "Oslo"}
    assert result["output"] == "sunny in Oslo"  # the tool's output, not a part's repr
    assert result["tool_call_id"] == call["tool_call_id"] and not result["is_error"]


def test_a_native_tools_declared_effect_is_observed(model: ScriptedModel, band: LocalBand) -> None:
    logged: list[str] = []

    @declares_turn_effect(TurnEffect.ACT)
    async def log_visit(ctx: RunContext[Any], visitor: str) -> str:
        """Log a visitor in the guest book."""
        logged.append(f"{visitor} via {type(ctx.deps).__name__}")
        return "logged"

    model.script(ToolTurn("log_visit", {"visitor": "Ann"}), TextTurn(""))
    bot, room = start(band, _adapter(model, additional_tools=[log_visit]))
    mid = room.say("Ann is here", mention=bot)
    settled(room, mid, bot, "processed")  # the effect it declared was recorded: no reply owed
    assert logged == ["Ann via AgentTools"]  # ctx.deps: the turn's Band tools
    assert room.messages_from(bot, "error") == []


def test_band_no_reply_ends_the_run_without_another_model_call(
    model: ScriptedModel, band: LocalBand
) -> None:
    model.script(ToolTurn("band_no_reply", {"reason": "not for me"}))
    bot, room = start(band, _adapter(model, emit=Emit.USAGE))
    mid = room.say("thanks everyone", mention=bot)
    settled(room, mid, bot, "processed")
    assert len(model.requests) == 1
    assert room.messages_from(bot) == [] and room.messages_from(bot, "error") == []
    [usage] = room.wait_for(lambda _: room.messages_from(bot, "task"))
    assert usage.metadata["band_usage"]["input_tokens"] > 0


def test_the_second_turn_sees_the_first(model: ScriptedModel, band: LocalBand) -> None:
    model.script(TextTurn("My name is Sage."), TextTurn("You asked my name."))
    bot, room = start(band, _adapter(model))
    first = room.say("what is your name?", mention=bot)
    room.wait_for_reply(bot, after=first)
    second = room.say("what did I ask?", mention=bot)
    assert room.wait_for_reply(bot, after=second).text == "You asked my name."
    texts = [text for _, text in model.requests[1].messages]
    assert any("what is your name?" in t for t in texts)
    assert ("assistant", "My name is Sage.") in model.requests[1].messages
    assert "what did I ask?" in model.requests[1].prompt


def test_the_rooms_history_reaches_the_model_on_a_session_bootstrap(
    model: ScriptedModel, band: LocalBand
) -> None:
    handle = band.register_agent("Late")
    room = band.room(handle)
    room.say("remember the code word: tangerine", mention=handle)  # before the agent runs
    model.script(ToolTurn("band_no_reply", {}), ToolTurn("band_no_reply", {}))
    bot = band.run_agent(_adapter(model), handle=handle)
    model.wait_for_requests_sync(1)
    mid = room.say("what was the code word?", mention=bot)
    settled(room, mid, bot, "processed")
    texts = [text for role, text in model.requests[-1].messages if role == "user"]
    assert any("tangerine" in t for t in texts) and "code word?" in texts[-1]


def test_a_5xx_is_retried_by_the_sdk(model: ScriptedModel, band: LocalBand) -> None:
    model.script(ErrorTurn(status=503), TextTurn("recovered"))
    bot, room = start(band, _adapter(model, retries=2))
    mid = room.say("hello", mention=bot)
    assert room.wait_for_reply(bot, after=mid).text == "recovered"
    assert [r.status for r in model.requests] == [503, 200]
    assert room.messages_from(bot, "error") == []


def test_a_model_error_is_the_error_event_and_loses_nothing(
    model: ScriptedModel, band: LocalBand
) -> None:
    model.script(ErrorTurn(status=500), ErrorTurn(status=401, message="bad key"))
    bot, room = errors_lose_nothing(band, model, _adapter(model))
    error = room.messages_from(bot, "error")[0]
    assert error.content == GENERIC_PROVIDER_FAILURE_MESSAGE  # the official's failure
    assert error.metadata["failure"]["provider"] == "pydantic_ai"


def test_an_interrupt_cancels_the_running_turn(model: ScriptedModel, band: LocalBand) -> None:
    model.script(TextTurn("too late", delay=120))
    bot, room = start(band, _adapter(model))
    mid = room.say("a long question", mention=bot)
    model.wait_for_requests_sync(1)  # the model call is in flight
    interrupt(room, bot)
    settled(room, mid, bot, "failed")
    assert room.messages_from(bot) == []
    model.script(TextTurn("ready again"))
    mid = room.say("still there?", mention=bot)
    assert room.wait_for_reply(bot, after=mid).text == "ready again"


def test_the_constructor_takes_exactly_one_model() -> None:
    with pytest.raises(ValueError, match="exactly one"):
        PydanticAIAdapter()
    with pytest.raises(ValueError, match="exactly one"):
        PydanticAIAdapter(PydanticAIAdapterConfig(model="test"), llm=_llm_unstarted())


def _llm_unstarted() -> OpenAIChatModel:
    client = AsyncOpenAI(api_key="k", base_url="http://127.0.0.1:9/v1")
    return OpenAIChatModel("m", provider=OpenAIProvider(openai_client=client))


def test_an_interrupt_mid_tool_leaves_a_thread_the_model_accepts(
    model: ScriptedModel, band: LocalBand
) -> None:
    tool_def, called = stalling_tool()
    seen = interrupt_mid_tool(band, model, _adapter(model, additional_tools=[tool_def]), called)
    assert any("do the slow thing" in text for _, text in seen)  # the interrupted message kept
    assert "are you there?" in seen[-1][1]
    # the call it cut off comes back answered as interrupted, so the history stays valid
    results = [text for role, text in seen if role == "tool"]
    assert results and all("tool execution was interrupted" in text for text in results)
