"""GeminiAdapter end to end: Google's Gen AI SDK (the real package) pointed at the scripted model
server's Gemini API, the agent on a real local platform."""

from __future__ import annotations

import json
from typing import Any

from google import genai
from google.genai import types

from band.adapters import GeminiAdapter, GeminiAdapterConfig
from band.core.types import Emit
from band.runtime.capabilities import Capability
from band.testing import ErrorTurn, LocalBand, ScriptedModel

from .framework_helpers import (
    a_5xx_is_retried,
    act_tool_turn,
    errors_lose_nothing,
    history_reaches_the_model,
    interrupt_fails_the_turn,
    interrupt_mid_tool_keeps_the_thread,
    no_reply_ends_the_run,
    plain_answer,
    second_turn_sees_the_first,
    send_message_reply,
)


def _adapter(
    model: ScriptedModel, config: GeminiAdapterConfig | None = None, **kw: Any
) -> GeminiAdapter:
    retries = kw.pop("retries", 0)
    base = config or GeminiAdapterConfig(model="scripted-model")
    config = base.model_copy(update={"max_retries": retries, "retry_base_delay_s": 0.0})
    adapter = GeminiAdapter(config, **kw)
    options = types.HttpOptions(base_url=model.gemini_base_url)
    adapter.client = genai.Client(api_key=model.api_key, http_options=options)
    return adapter


def test_a_plain_answer_is_relayed_as_the_reply(model: ScriptedModel, band: LocalBand) -> None:
    config = GeminiAdapterConfig(model="scripted-model", custom_section="Answer in one line.")
    assert plain_answer(band, model, _adapter(model, config)).provider == "gemini"


def test_band_send_message_is_the_reply_and_the_closing_text_is_not_relayed(
    model: ScriptedModel, band: LocalBand
) -> None:
    adapter = _adapter(model, emit=Emit.TOOL_CALLS, capabilities=Capability.MEMORY)
    output, result = send_message_reply(band, model, adapter)
    # Gemini's function_response carries the output under "output"
    assert result["output"] == json.loads(output)["output"]


def test_a_custom_tool_declared_act_completes_the_turn(
    model: ScriptedModel, band: LocalBand
) -> None:
    bot, room = act_tool_turn(band, model, lambda t: _adapter(model, additional_tools=t))
    assert "fileticket" in model.requests[0].tool_names
    [(_, out)] = model.requests[1].tool_results
    assert json.loads(out) == {"output": "filed: printer jam"}
    assert room.messages_from(bot) == []


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
    model.script(
        ErrorTurn(status=500, message="overloaded"), ErrorTurn(status=401, message="bad key")
    )
    bot, room = errors_lose_nothing(band, model, _adapter(model))
    error = room.messages_from(bot, "error")[0]
    failure = error.metadata["failure"]  # a server error: its status and message, as official
    assert failure["provider"] == "gemini" and "500" in error.content
    assert failure["code"] and failure["detail"] == "overloaded"


def test_an_interrupt_cancels_the_running_turn(model: ScriptedModel, band: LocalBand) -> None:
    interrupt_fails_the_turn(band, model, _adapter(model))


def test_an_interrupt_mid_tool_leaves_a_thread_the_model_accepts(
    model: ScriptedModel, band: LocalBand
) -> None:
    interrupt_mid_tool_keeps_the_thread(band, model, lambda t: _adapter(model, additional_tools=t))
