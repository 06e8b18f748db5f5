"""``GoogleADKAdapter`` end to end (in the venv ``make test-google-adk`` builds): a real agent
on band dev running the real ADK runner, its Gemini model pointed at band.testing's
ScriptedModel (``GOOGLE_GEMINI_BASE_URL``)."""

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

from band.adapters import GoogleADKAdapter, GoogleADKAdapterConfig
from band.core.types import Emit
from band.runtime.capabilities import Capability
from band.testing import ErrorTurn, LocalBand, ScriptedModel, TextTurn, ToolTurn


def _adapter(**kw: Any) -> GoogleADKAdapter:
    config = GoogleADKAdapterConfig(model="gemini-scripted", max_retries=0, **kw.pop("config", {}))
    return GoogleADKAdapter(config, **kw)


def test_a_plain_answer_and_a_second_turn_in_the_session(
    model: ScriptedModel, band_platform: LocalBand
) -> None:
    model.script(TextTurn("first answer"), TextTurn("second answer"))
    bot, room = start(band_platform, _adapter(config={"custom_section": "Be brief."}), "Adka")
    mid = room.say("first question", mention=bot)
    assert room.wait_for_reply(bot, after=mid).text == "first answer"
    mid = room.say("second question", mention=bot)
    assert room.wait_for_reply(bot, after=mid).text == "second answer"
    first, second = model.requests
    assert first.provider == "gemini" and "Be brief." in (first.system or "")
    assert "band_send_message" in first.tool_names and not any(
        "memor" in n for n in first.tool_names
    )
    texts = " | ".join(text for _, text in second.messages)
    assert "first question" in texts and "first answer" in texts and "second question" in texts


def test_band_send_message_is_the_reply(model: ScriptedModel, band_platform: LocalBand) -> None:
    model.script(
        ToolTurn("band_send_message", {"content": "echo: hello", "mentions": ["@local"]}),
        TextTurn("All done."),
    )
    bot, room = start(band_platform, _adapter(emit=Emit.TOOL_CALLS, capabilities=Capability.TASKS))
    mid = room.say("hello", mention=bot)
    reply = room.wait_for_reply(bot, after=mid)
    settled(room, mid, bot, "processed")
    assert [m.text for m in room.messages_from(bot)] == ["echo: hello"]
    assert "band_list_tasks" in model.requests[0].tool_names
    [result] = events(room, bot, "tool_result")
    assert result["name"] == "band_send_message" and reply.id in result["output"]


def test_a_custom_tool_declared_act_completes_the_turn(
    model: ScriptedModel, band_platform: LocalBand
) -> None:
    act_tool_turn(band_platform, model, lambda t: _adapter(additional_tools=t))


def test_the_history_opens_the_session(model: ScriptedModel, band_platform: LocalBand) -> None:
    handle = band_platform.register_agent("Late")
    room = band_platform.room(handle)
    room.say("remember the code word: tangerine", mention=handle)
    model.script(TextTurn("noted"), TextTurn("tangerine"))
    bot = band_platform.run_agent(_adapter(), handle=handle)
    room.wait_for(lambda _: len(room.messages_from(bot)) >= 1)
    mid = room.say("which code word?", mention=bot)
    assert room.wait_for_reply(bot, after=mid).text == "tangerine"
    assert "tangerine" in " | ".join(text for _, text in model.requests[-1].messages)


@pytest.mark.parametrize("status", [500, 401])
def test_a_model_error_is_the_error_event(
    status: int, model: ScriptedModel, band_platform: LocalBand, monkeypatch: pytest.MonkeyPatch
) -> None:
    if status == 500:
        model.script(ErrorTurn(status=500))
    else:
        monkeypatch.setenv("GOOGLE_API_KEY", "wrong-key")
        monkeypatch.setenv("GEMINI_API_KEY", "wrong-key")
    failed_turn(band_platform, _adapter(), "google_adk")


def test_an_interrupt_cancels_the_run(model: ScriptedModel, band_platform: LocalBand) -> None:
    first = TextTurn("too late", delay=60)
    _, _, reply = interrupt_then_answer(band_platform, model, _adapter(), first)
    assert reply.text == "after the interrupt"


ROOT = Path(__file__).resolve().parents[2]


def test_the_example_answers_through_its_custom_tool(
    model: ScriptedModel, band_platform: LocalBand, tmp_path: Path
) -> None:
    env = model.env()
    [output] = example_counts_words(
        band_platform, env, model, "google_adk_agent.py", "wordcount", tmp_path
    )
    assert "3" in output


def test_a_script_written_for_the_official_constructor_runs_unchanged(
    model: ScriptedModel, band_platform: LocalBand, tmp_path: Path
) -> None:
    model.script(ToolTurn("fileticket", {"title": "printer jam"}), TextTurn(""))
    script = ROOT / "tests" / "compat" / "scripts" / "google_adk_dropin.py"
    with script_agent(band_platform, model.env(), script, tmp_path, "Dropin") as (handle, room):
        mid = room.say("file it", mention=handle)
        room.wait_for(lambda _: room.delivery_status(mid, handle) == "processed", timeout=90)
    first = model.requests[0]
    assert {"fileticket", "band_store_memory"} <= set(first.tool_names)
    assert "Be brief." in (first.system or "")
    calls = [m for m in room.messages_from(handle, "tool_call") if "fileticket" in m.content]
    assert len(calls) == 1
