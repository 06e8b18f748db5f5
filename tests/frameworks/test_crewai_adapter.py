"""``CrewAIAdapter`` end to end (in the venv ``make test-crewai`` builds): a real agent on band
dev running a real crew per turn, CrewAI's OpenAI LLM pointed at band.testing's ScriptedModel
(``OPENAI_BASE_URL``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from adapters.framework_helpers import (
    act_tool_turn,
    events,
    example_counts_words,
    failed_turn,
    interrupt_then_answer,
    script_agent,
    settled,
    start,
)

from band.adapters import CrewAIAdapter, CrewAIAdapterConfig
from band.core.types import Emit
from band.testing import ErrorTurn, LocalBand, ScriptedModel, TextTurn, ToolTurn

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def _no_telemetry(monkeypatch: pytest.MonkeyPatch) -> None:
    """CrewAI's telemetry stays off (no network beyond the scripted model)."""
    monkeypatch.setenv("CREWAI_DISABLE_TELEMETRY", "true")
    monkeypatch.setenv("OTEL_SDK_DISABLED", "true")


def _adapter(**kw: Any) -> CrewAIAdapter:
    config = CrewAIAdapterConfig(model="openai/gpt-5-mini", max_iter=5, **kw.pop("config", {}))
    return CrewAIAdapter(config, **kw)


def test_a_plain_answer_and_a_second_turn(model: ScriptedModel, band_platform: LocalBand) -> None:
    model.script(TextTurn("first answer"), TextTurn("second answer"))
    bot, room = start(band_platform, _adapter(config={"role": "Helper"}), "Crewy")
    mid = room.say("first question", mention=bot)
    assert room.wait_for_reply(bot, after=mid, timeout=60).text == "first answer"
    mid = room.say("second question", mention=bot)
    assert room.wait_for_reply(bot, after=mid, timeout=60).text == "second answer"
    first, second = model.requests[0], model.requests[-1]
    assert "band_send_message" in first.tool_names
    texts = " | ".join(text for _, text in second.messages)
    assert "first question" in texts and "first answer" in texts and "second question" in texts


def test_band_send_message_is_the_reply(model: ScriptedModel, band_platform: LocalBand) -> None:
    model.script(
        ToolTurn("band_send_message", {"content": "echo: hello", "mentions": ["@local"]}),
        TextTurn("All done."),
    )
    bot, room = start(band_platform, _adapter(emit=Emit.TOOL_CALLS))
    mid = room.say("hello", mention=bot)
    reply = room.wait_for_reply(bot, after=mid, timeout=60)
    settled(room, mid, bot, "processed")
    assert [m.text for m in room.messages_from(bot)] == ["echo: hello"]
    [result] = events(room, bot, "tool_result")
    assert result["name"] == "band_send_message" and reply.id in result["output"]


def test_a_custom_tool_declared_act_completes_the_turn(
    model: ScriptedModel, band_platform: LocalBand
) -> None:
    act_tool_turn(band_platform, model, lambda t: _adapter(additional_tools=t))


@pytest.mark.parametrize("status", [500, 401])
def test_a_model_error_is_the_error_event(
    status: int, model: ScriptedModel, band_platform: LocalBand, monkeypatch: pytest.MonkeyPatch
) -> None:
    if status == 500:  # every call (CrewAI and the OpenAI SDK retry)
        model.respond = lambda _: ErrorTurn(status=500)
    else:
        monkeypatch.setenv("OPENAI_API_KEY", "wrong-key")
    failed_turn(band_platform, _adapter(), "crewai", timeout=120)  # after the retries


def test_an_interrupt_cancels_the_run(model: ScriptedModel, band_platform: LocalBand) -> None:
    # the interrupted crew's thread runs on, but its tools do nothing more: no "too late"
    first = ToolTurn("band_send_message", {"content": "too late", "mentions": ["@local"]}, delay=10)
    interrupt_then_answer(band_platform, model, _adapter(), first)


def _script_env(model: ScriptedModel) -> dict[str, str]:
    return {**model.env(), "CREWAI_DISABLE_TELEMETRY": "true", "OTEL_SDK_DISABLED": "true"}


def test_the_example_answers_through_its_custom_tool(
    model: ScriptedModel, band_platform: LocalBand, tmp_path: Path
) -> None:
    env = {**_script_env(model), "CREWAI_MODEL": "openai/gpt-5-mini"}
    outputs = example_counts_words(
        band_platform, env, model, "crewai_agent.py", "wordcount", tmp_path
    )
    assert outputs == ["3"]


def test_a_script_written_for_the_official_constructor_runs_unchanged(
    model: ScriptedModel, band_platform: LocalBand, tmp_path: Path
) -> None:
    model.script(ToolTurn("fileticket", {"title": "printer jam"}), TextTurn("filed it"))
    script = ROOT / "tests" / "compat" / "scripts" / "crewai_dropin.py"
    with script_agent(band_platform, _script_env(model), script, tmp_path, "Dropin") as (
        handle,
        room,
    ):
        mid = room.say("file it", mention=handle)
        room.wait_for(lambda _: room.delivery_status(mid, handle) == "processed", timeout=90)
    first = model.requests[0]
    assert {"fileticket", "band_list_tasks"} <= set(first.tool_names)
    assert any("Be brief." in text for _, text in first.messages) or "Be brief." in (
        first.system or ""
    )
