"""``StrandsAdapter`` end to end: a real agent on band dev running the real Strands agent loop,
its ``OpenAIModel`` pointed at band.testing's ScriptedModel over HTTP."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("strands", reason="the [strands] extra is not installed")

from strands import tool
from strands.models.openai import OpenAIModel

from band.adapters import StrandsAdapter, StrandsAdapterConfig
from band.adapters._model import GENERIC_PROVIDER_FAILURE_MESSAGE
from band.core.turn import MISSING_REPLY
from band.core.types import Emit
from band.runtime.capabilities import Capability
from band.runtime.tools import TurnEffect
from band.runtime.tools.custom import declares_turn_effect
from band.testing import LocalBand
from band.testing.scripted_model import ScriptedModel, TextTurn, ToolTurn

from .framework_helpers import (
    act_tool_turn,
    bootstrap_then_two_turns,
    events,
    example_counts_words,
    interrupt_then_answer,
    missing_extra,
    model_error_turn,
    plain_answer,
    script_agent,
    send_message_reply,
    settled,
    start,
)


def _llm(model: ScriptedModel, key: str | None = None) -> OpenAIModel:
    # the framework's own OpenAI model, pointed at the scripted server (no SDK retries: one
    # scripted answer per model call)
    client_args = {
        "api_key": key or model.api_key,
        "base_url": model.openai_base_url,
        "max_retries": 0,
    }
    return OpenAIModel(client_args=client_args, model_id="scripted-model")


def _adapter(model: ScriptedModel, **kw: Any) -> StrandsAdapter:
    return StrandsAdapter(kw.pop("config", None), llm=_llm(model, kw.pop("key", None)), **kw)


def test_a_plain_answer_is_relayed_once(
    scripted_model: ScriptedModel, band_platform: LocalBand
) -> None:
    config = StrandsAdapterConfig(custom_section="Answer in one line.")
    plain_answer(band_platform, scripted_model, _adapter(scripted_model, config=config), "Strandy")


def test_band_send_message_is_the_reply_and_the_closing_text_is_not_relayed(
    scripted_model: ScriptedModel, band_platform: LocalBand
) -> None:
    adapter = _adapter(scripted_model, emit=Emit.TOOL_CALLS)
    send_message_reply(band_platform, scripted_model, adapter, memory=False)


def test_capabilities_and_tool_filters_select_the_band_tools(
    scripted_model: ScriptedModel, band_platform: LocalBand
) -> None:
    scripted_model.script(ToolTurn("band_no_reply", {}))
    adapter = _adapter(
        scripted_model,
        capabilities=[Capability.MEMORY, Capability.TASKS],
        exclude_tools=["band_create_task"],
    )
    bot, room = start(band_platform, adapter)
    mid = room.say("note this", mention=bot)
    settled(room, mid, bot, "processed")
    names = scripted_model.requests[0].tool_names
    assert "band_store_memory" in names and "band_list_tasks" in names
    assert "band_create_task" not in names  # excluded: it never reaches the model
    assert "band_list_contacts" not in names  # not asked for


def test_band_no_reply_ends_the_loop(
    scripted_model: ScriptedModel, band_platform: LocalBand
) -> None:
    scripted_model.script(ToolTurn("band_no_reply", {"reason": "not for me"}))
    bot, room = start(band_platform, _adapter(scripted_model))
    mid = room.say("thanks all", mention=bot)
    settled(room, mid, bot, "processed")
    assert len(scripted_model.requests) == 1  # no model call after the decline
    assert room.messages_from(bot) == [] and room.messages_from(bot, "error") == []


def test_a_custom_tool_declared_act_completes_the_turn(
    scripted_model: ScriptedModel, band_platform: LocalBand
) -> None:
    act_tool_turn(
        band_platform,
        scripted_model,
        lambda t: _adapter(scripted_model, additional_tools=t),
    )
    assert "fileticket" in scripted_model.requests[0].tool_names
    assert [out for _, out in scripted_model.requests[1].tool_results] == ["filed: printer jam"]


@pytest.mark.parametrize("declared", [True, False], ids=["declared-act", "undeclared"])
def test_a_strands_tool_s_declared_effect_is_observed(
    declared: bool, scripted_model: ScriptedModel, band_platform: LocalBand
) -> None:
    restarted: list[str] = []

    def restart_service(name: str) -> str:
        """Restart a service by name."""
        restarted.append(name)
        return f"restarted {name}"

    native = tool(
        declares_turn_effect(TurnEffect.ACT)(restart_service) if declared else restart_service
    )
    scripted_model.script(ToolTurn("restart_service", {"name": "web"}), TextTurn(""))
    adapter = _adapter(scripted_model, additional_tools=[native], emit=Emit.TOOL_CALLS)
    bot, room = start(band_platform, adapter)
    mid = room.say("restart web", mention=bot)
    settled(room, mid, bot, "processed" if declared else "failed")
    assert restarted == ["web"]
    assert "restart_service" in scripted_model.requests[0].tool_names
    [result] = events(room, bot, "tool_result")
    assert result["name"] == "restart_service" and "restarted web" in result["output"]
    errors = [m.content for m in room.messages_from(bot, "error")]
    # the seed: Strands observes a native tool's effect; an undeclared tool only observes
    assert errors == ([] if declared else [MISSING_REPLY])


def test_the_second_turn_sees_the_first_and_history_is_bootstrapped(
    scripted_model: ScriptedModel, band_platform: LocalBand
) -> None:
    bootstrap_then_two_turns(band_platform, scripted_model, _adapter(scripted_model))


@pytest.mark.parametrize("status", [500, 401], ids=["5xx", "401"])
def test_a_model_error_is_the_error_event_with_the_official_failure(
    status: int, scripted_model: ScriptedModel, band_platform: LocalBand
) -> None:
    failure = model_error_turn(
        band_platform, scripted_model, lambda k: _adapter(scripted_model, key=k), "strands", status
    )
    assert failure["message"] == GENERIC_PROVIDER_FAILURE_MESSAGE


def test_an_interrupt_cancels_the_run(
    scripted_model: ScriptedModel, band_platform: LocalBand
) -> None:
    first = TextTurn("too late", delay=60)
    _, _, reply = interrupt_then_answer(
        band_platform, scripted_model, _adapter(scripted_model), first
    )
    assert reply.text == "after the interrupt"


def test_exactly_one_of_model_and_llm(scripted_model: ScriptedModel) -> None:
    with pytest.raises(ValueError, match=r"exactly one of config\.model or llm"):
        StrandsAdapter()
    with pytest.raises(ValueError, match="exactly one"):
        StrandsAdapter(StrandsAdapterConfig(model="us.anthropic.x"), llm=_llm(scripted_model))
    assert StrandsAdapter(StrandsAdapterConfig(model="us.anthropic.x")).llm == "us.anthropic.x"


def test_without_the_extra_the_import_names_it() -> None:
    missing_extra("strands", "StrandsAdapter StrandsAdapterConfig", "strands")


def test_the_in_process_scripted_strands_model_with_parallel_calls_and_usage(
    band_platform: LocalBand,
) -> None:
    from band.testing import ScriptedStrandsModel

    llm = ScriptedStrandsModel(
        [
            [
                ToolTurn("band_get_participants"),
                ToolTurn("band_send_message", {"content": "both ran", "mentions": ["@local"]}),
            ],
            TextTurn("finished"),
        ],
        input_tokens=7,
        output_tokens=3,
    )
    bot, room = start(band_platform, StrandsAdapter(llm=llm, emit=[Emit.TOOL_CALLS, Emit.USAGE]))
    mid = room.say("run both", mention=bot)
    assert room.wait_for_reply(bot, after=mid).text == "both ran"
    settled(room, mid, bot, "processed")
    assert [c["tool_names"][:1] for c in llm.calls] == [["band_send_message"]] * 2
    assert sorted(c["name"] for c in events(room, bot, "tool_call")) == [
        "band_get_participants",
        "band_send_message",
    ]
    [usage] = room.wait_for(lambda _: room.messages_from(bot, "task"))
    assert usage.metadata["band_usage"]["input_tokens"] == 14  # two model calls of 7
    assert [m.text for m in room.messages_from(bot)] == ["both ran"]  # "finished" not relayed


ROOT = Path(__file__).resolve().parents[2]


def test_the_example_answers_through_its_own_tool(
    scripted_model: ScriptedModel, band_platform: LocalBand, tmp_path: Path
) -> None:
    env = scripted_model.env()
    outputs = example_counts_words(
        band_platform, env, scripted_model, "strands_agent.py", "word_count", tmp_path
    )
    assert outputs == ["3"]
    assert "You count words when asked." in (scripted_model.requests[0].system or "")


def test_a_script_written_for_the_official_constructor_runs_unchanged(
    scripted_model: ScriptedModel, band_platform: LocalBand, tmp_path: Path
) -> None:
    scripted_model.script(
        ToolTurn("shout", {"text": "hi"}),
        ToolTurn("fileticket", {"title": "HI"}),
        TextTurn(""),
    )
    script = ROOT / "tests" / "compat" / "scripts" / "strands_dropin.py"
    with script_agent(band_platform, scripted_model.env(), script, tmp_path, "Dropin") as (
        handle,
        room,
    ):
        mid = room.say("file it loudly", mention=handle)
        room.wait_for(lambda _: room.delivery_status(mid, handle) == "processed", timeout=90)
    first = scripted_model.requests[0]
    assert {"shout", "fileticket", "band_store_memory"} <= set(first.tool_names)
    assert "Be brief." in (first.system or "")
    outputs = [out for _, out in scripted_model.requests[2].tool_results]
    assert outputs[-2:] == ["HI", "filed: HI"]
    assert [json.loads(m.content)["name"] for m in room.messages_from(handle, "tool_call")] == [
        "shout",
        "fileticket",
    ]
