"""``AgnoAdapter`` end to end: a real agent on band dev running a real Agno agent, its
``OpenAIChat`` model pointed at band.testing's ScriptedModel over HTTP."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("agno", reason="the [agno] extra is not installed")

from agno.agent import Agent as AgnoAgent
from agno.models.openai import OpenAIChat

from band.adapters import AgnoAdapter, AgnoAdapterConfig
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

ROOT = Path(__file__).resolve().parents[2]


def _agent(model: ScriptedModel, key: str | None = None, **kw: Any) -> AgnoAgent:
    # Agno's own OpenAI model, pointed at the scripted server (no SDK retries)
    llm = OpenAIChat(
        id="scripted-model",
        api_key=key or model.api_key,
        base_url=model.openai_base_url,
        max_retries=0,
    )
    return AgnoAgent(model=llm, **kw)


def _adapter(model: ScriptedModel, key: str | None = None, tools: Any = None, **kw: Any) -> Any:
    return AgnoAdapter(agent=_agent(model, key, tools=tools), **kw)


def test_a_plain_answer_is_relayed_once(
    scripted_model: ScriptedModel, band_platform: LocalBand
) -> None:
    plain_answer(band_platform, scripted_model, _adapter(scripted_model), "Agnes", None)


def test_band_send_message_is_the_reply_and_the_closing_text_is_not_relayed(
    scripted_model: ScriptedModel, band_platform: LocalBand
) -> None:
    adapter = _adapter(scripted_model, emit=Emit.TOOL_CALLS)
    send_message_reply(band_platform, scripted_model, adapter, memory=False, model_call_id=False)


def test_capabilities_and_tool_filters_select_the_band_tools(
    scripted_model: ScriptedModel, band_platform: LocalBand
) -> None:
    scripted_model.script(ToolTurn("band_no_reply", {}))
    adapter = _adapter(
        scripted_model, capabilities=[Capability.MEMORY], exclude_tools=["band_store_memory"]
    )
    bot, room = start(band_platform, adapter)
    mid = room.say("note this", mention=bot)
    settled(room, mid, bot, "processed")
    names = scripted_model.requests[0].tool_names
    assert "band_list_memories" in names and "band_store_memory" not in names
    assert room.messages_from(bot, "error") == []


def test_a_custom_tool_declared_act_completes_the_turn(
    scripted_model: ScriptedModel, band_platform: LocalBand
) -> None:
    act_tool_turn(
        band_platform,
        scripted_model,
        lambda t: _adapter(scripted_model, additional_tools=t),
    )
    assert [out for _, out in scripted_model.requests[1].tool_results] == ["filed: printer jam"]


def test_an_agno_tool_counts_as_observe_even_when_declared(
    scripted_model: ScriptedModel, band_platform: LocalBand
) -> None:
    restarted: list[str] = []

    @declares_turn_effect(TurnEffect.ACT)
    def restart_service(name: str) -> str:
        """Restart a service by name."""
        restarted.append(name)
        return f"restarted {name}"

    scripted_model.script(ToolTurn("restart_service", {"name": "web"}), TextTurn(""))
    adapter = _adapter(scripted_model, tools=[restart_service], emit=Emit.TOOL_CALLS)
    bot, room = start(band_platform, adapter)
    mid = room.say("restart web", mention=bot)
    settled(room, mid, bot, "failed")
    assert restarted == ["web"]
    assert "restart_service" in scripted_model.requests[0].tool_names
    [result] = events(room, bot, "tool_result")
    assert result["name"] == "restart_service" and result["output"] == "restarted web"
    # the seed: Agno tools count as OBSERVE, so the turn still owed a reply
    assert [m.content for m in room.messages_from(bot, "error")] == [MISSING_REPLY]


def test_the_second_turn_sees_the_first_and_history_is_bootstrapped(
    scripted_model: ScriptedModel, band_platform: LocalBand
) -> None:
    bootstrap_then_two_turns(band_platform, scripted_model, _adapter(scripted_model))


@pytest.mark.parametrize("status", [500, 401], ids=["5xx", "401"])
def test_a_model_error_is_the_error_event_with_the_official_failure(
    status: int, scripted_model: ScriptedModel, band_platform: LocalBand
) -> None:
    failure = model_error_turn(
        band_platform, scripted_model, lambda k: _adapter(scripted_model, key=k), "agno", status
    )
    assert failure["code"] == "ERROR" and failure["message"] == GENERIC_PROVIDER_FAILURE_MESSAGE


def test_an_interrupt_cancels_the_run(
    scripted_model: ScriptedModel, band_platform: LocalBand
) -> None:
    first = TextTurn("too late", delay=60)
    _, _, reply = interrupt_then_answer(
        band_platform, scripted_model, _adapter(scripted_model), first
    )
    assert reply.text == "after the interrupt"


def test_the_example_answers_through_its_own_tool(
    scripted_model: ScriptedModel, band_platform: LocalBand, tmp_path: Path
) -> None:
    env = scripted_model.env()
    outputs = example_counts_words(
        band_platform, env, scripted_model, "agno_agent.py", "word_count", tmp_path
    )
    assert outputs == ["3"]


def test_a_script_written_for_the_official_constructor_runs_unchanged(
    scripted_model: ScriptedModel, band_platform: LocalBand, tmp_path: Path
) -> None:
    scripted_model.script(
        ToolTurn("shout", {"text": "hi"}),
        ToolTurn("band_send_message", {"content": "HI", "mentions": ["@local"]}),
        TextTurn(""),
    )
    script = ROOT / "tests" / "compat" / "scripts" / "agno_dropin.py"
    with script_agent(band_platform, scripted_model.env(), script, tmp_path, "Dropin") as (
        handle,
        room,
    ):
        mid = room.say("say hi loudly", mention=handle)
        assert room.wait_for_reply(handle, after=mid, timeout=90).text == "HI"
    first = scripted_model.requests[0]
    assert {"shout", "band_list_tasks"} <= set(first.tool_names)
    assert [json.loads(m.content)["name"] for m in room.messages_from(handle, "tool_call")] == [
        "shout",
        "band_send_message",
    ]


def test_the_config_takes_no_fields() -> None:
    assert AgnoAdapterConfig() == AgnoAdapterConfig()
    with pytest.raises(ValueError):
        AgnoAdapterConfig(model="x")  # type: ignore[call-arg]


def test_without_the_extra_the_import_names_it() -> None:
    missing_extra("agno", "AgnoAdapter AgnoAdapterConfig", "agno")
