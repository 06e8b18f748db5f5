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


def _llm(model: ScriptedModel, retries: int = 0) -> OpenAIChatModel:
    client = AsyncOpenAI(api_key=model.api_key, base_url=model.openai_base_url, max_retries=retries)
    return OpenAIChatModel("scripted-model", provider=OpenAIProvider(openai_client=client))


def _adapter(
    model: ScriptedModel, config: PydanticAIAdapterConfig | None = None, **kw: Any
) -> PydanticAIAdapter:
    return PydanticAIAdapter(config, llm=_llm(model, kw.pop("retries", 0)), **kw)


def test_a_plain_answer_is_relayed_as_the_reply(model: ScriptedModel, band: LocalBand) -> None:
    config = PydanticAIAdapterConfig(custom_section="Answer in one line.")
    assert plain_answer(band, model, _adapter(model, config)).provider == "openai-chat"


def test_band_send_message_is_the_reply_and_the_closing_text_is_not_relayed(
    model: ScriptedModel, band: LocalBand
) -> None:
    adapter = _adapter(model, emit=Emit.TOOL_CALLS, capabilities=Capability.MEMORY)
    output, result = send_message_reply(band, model, adapter)
    assert result["output"] == output


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
    no_reply_ends_the_run(band, model, _adapter(model, emit=Emit.USAGE))


def test_the_second_turn_sees_the_first(model: ScriptedModel, band: LocalBand) -> None:
    second_turn_sees_the_first(band, model, _adapter(model))


def test_the_rooms_history_reaches_the_model_on_a_session_bootstrap(
    model: ScriptedModel, band: LocalBand
) -> None:
    history_reaches_the_model(band, model, _adapter(model))


def test_a_5xx_is_retried_by_the_sdk(model: ScriptedModel, band: LocalBand) -> None:
    a_5xx_is_retried(band, model, _adapter(model, retries=2))


def test_a_model_error_is_the_error_event_and_loses_nothing(
    model: ScriptedModel, band: LocalBand
) -> None:
    model.script(ErrorTurn(status=500), ErrorTurn(status=401, message="bad key"))
    bot, room = errors_lose_nothing(band, model, _adapter(model))
    error = room.messages_from(bot, "error")[0]
    assert error.content == GENERIC_PROVIDER_FAILURE_MESSAGE  # the official's failure
    assert error.metadata["failure"]["provider"] == "pydantic_ai"


def test_an_interrupt_cancels_the_running_turn(model: ScriptedModel, band: LocalBand) -> None:
    interrupt_fails_the_turn(band, model, _adapter(model))


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
    interrupt_mid_tool_keeps_the_thread(band, model, lambda t: _adapter(model, additional_tools=t))
