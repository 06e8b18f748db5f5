"""``OpenAIAgentsAdapter`` end to end: the real OpenAI Agents SDK (``openai-agents``) running an
agent on band dev, its model played by band.testing.ScriptedModel over the Responses API
(and Chat Completions), no mock of the SDK."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from agents import Agent as SDKAgent
from agents import GuardrailFunctionOutput, function_tool, input_guardrail
from pydantic import BaseModel

from band.adapters import OpenAIAgentsAdapter, OpenAIAgentsAdapterConfig
from band.core.turn import TurnEffect
from band.core.types import Emit
from band.runtime.capabilities import Capability
from band.runtime.sessionconfig import SessionConfig
from band.runtime.tools.custom import declares_turn_effect
from band.testing import (
    ErrorTurn,
    LocalBand,
    Room,
    RunningAgent,
    ScriptedModel,
    TextTurn,
    ToolTurn,
    local_band,
)

REPLY = {"content": "Hello from the agents SDK", "mentions": ["@local"]}


@pytest.fixture
def band() -> Iterator[LocalBand]:
    # waits of 30 s: each turn starts an SDK run on two cores shared with other tests
    with local_band(timeout=30) as b:
        yield b


def build(model: ScriptedModel, retries: int = 0, **kw: Any) -> OpenAIAgentsAdapter:
    config = kw.pop("config", {})
    cfg = OpenAIAgentsAdapterConfig(
        model="scripted", provider_key=model.api_key, base_url=model.openai_base_url, **config
    )
    adapter = OpenAIAgentsAdapter(cfg, **kw)
    adapter.client = adapter.client.with_options(max_retries=retries)
    return adapter


def start(
    band: LocalBand, adapter: OpenAIAgentsAdapter, retries: int = 0
) -> tuple[RunningAgent, Room]:
    bot = band.run_agent(
        adapter, name="Agents", session_config=SessionConfig(max_message_retries=retries)
    )
    return bot, band.room(bot)


def settled(room: Room, mid: str, bot: RunningAgent, status: str) -> None:
    room.wait_for(lambda _: room.delivery_status(mid, bot) == status)


def events(room: Room, bot: RunningAgent, kind: str) -> list[dict[str, Any]]:
    return [json.loads(m.content) for m in room.messages_from(bot, kind)]


def test_a_plain_reply_is_the_closing_text(scripted_model: ScriptedModel, band: LocalBand) -> None:
    scripted_model.script(TextTurn("Plain answer"))
    adapter = build(scripted_model, config={"custom_section": "Be brief."}, emit=Emit.USAGE)
    bot, room = start(band, adapter)
    mid = room.say("hello", mention=bot)
    reply = room.wait_for_reply(bot, after=mid)
    settled(room, mid, bot, "processed")
    assert reply.text == "Plain answer"
    [call] = scripted_model.requests
    assert call.provider == "openai-responses" and call.stream and call.model == "scripted"
    assert "Be brief." in (call.system or "") and "hello" in call.prompt
    assert "band_send_message" in call.tool_names and "band_no_reply" in call.tool_names
    assert not any("memor" in n for n in call.tool_names)  # no capability, no memory tools
    [usage] = room.wait_for(lambda _: room.messages_from(bot, "task"))
    assert usage.metadata["band_usage"]["input_tokens"] > 0


def test_a_band_tool_reply_is_the_answer_once(
    scripted_model: ScriptedModel, band: LocalBand
) -> None:
    scripted_model.script(ToolTurn("band_send_message", REPLY), TextTurn("I replied."))
    bot, room = start(band, build(scripted_model, emit=Emit.TOOL_CALLS))
    mid = room.say("hi", mention=bot)
    settled(room, mid, bot, "processed")
    assert [m.text for m in room.messages_from(bot)] == ["Hello from the agents SDK"]
    [call] = events(room, bot, "tool_call")
    [result] = events(room, bot, "tool_result")
    assert call["name"] == "band_send_message" and call["args"]["content"] == REPLY["content"]
    assert result["tool_call_id"] == call["tool_call_id"] and not result["is_error"]
    assert json.loads(result["output"])["success"] is True  # the tool's output, not a repr
    [(call_id, output)] = scripted_model.requests[1].tool_results
    assert call_id == call["tool_call_id"] and json.loads(output)["success"] is True


def test_capabilities_add_their_tool_groups(scripted_model: ScriptedModel, band: LocalBand) -> None:
    scripted_model.script(ToolTurn("band_no_reply", {}))
    adapter = build(scripted_model, capabilities=[Capability.MEMORY, Capability.TASKS])
    bot, room = start(band, adapter)
    settled(room, room.say("note this", mention=bot), bot, "processed")
    names = scripted_model.requests[0].tool_names
    assert "band_store_memory" in names and "band_create_task" in names


def test_band_no_reply_ends_the_turn_without_a_follow_up_call(
    scripted_model: ScriptedModel, band: LocalBand
) -> None:
    scripted_model.script(ToolTurn("band_no_reply", {"reason": "not for me"}))
    bot, room = start(band, build(scripted_model))
    mid = room.say("thanks all", mention=bot)
    settled(room, mid, bot, "processed")
    assert len(scripted_model.requests) == 1
    assert room.messages_from(bot) == [] and room.messages_from(bot, "error") == []


class FileTicket(BaseModel):
    """File a support ticket."""

    title: str


def test_a_custom_tool_with_turn_effect_act_completes_the_turn(
    scripted_model: ScriptedModel, band: LocalBand
) -> None:
    filed: list[str] = []

    @declares_turn_effect(TurnEffect.ACT)
    async def file_ticket(args: FileTicket) -> str:
        filed.append(args.title)
        return f"filed: {args.title}"

    scripted_model.script(ToolTurn("fileticket", {"title": "printer jam"}), TextTurn(""))
    adapter = build(scripted_model, additional_tools=[(FileTicket, file_ticket)])
    bot, room = start(band, adapter)
    mid = room.say("the printer is jammed", mention=bot)
    settled(room, mid, bot, "processed")  # did work: no reply owed, no missing-reply error
    assert filed == ["printer jam"]
    assert "fileticket" in scripted_model.requests[0].tool_names
    assert [out for _, out in scripted_model.requests[1].tool_results] == ["filed: printer jam"]
    assert room.messages_from(bot, "error") == [] and room.messages_from(bot) == []


def test_a_native_tool_observes_and_its_result_event_carries_its_output(
    scripted_model: ScriptedModel, band: LocalBand
) -> None:
    @function_tool
    def weather(city: str) -> dict[str, Any]:
        """The weather in a city."""
        return {"city": city, "sky": "clear"}

    scripted_model.script(
        [ToolTurn("weather", {"city": "Oslo"}), ToolTurn("band_get_participants", {})],
        TextTurn("Clear in Oslo"),
    )
    agent = SDKAgent(name="Forecaster", instructions="Know the weather.", tools=[weather])
    bot, room = start(band, build(scripted_model, agent=agent, emit=Emit.TOOL_CALLS))
    mid = room.say("weather in Oslo?", mention=bot)
    settled(room, mid, bot, "processed")
    # only observing tools ran: the closing text is the reply
    assert [m.text for m in room.messages_from(bot)] == ["Clear in Oslo"]
    first = scripted_model.requests[0]
    assert first.tool_names[0] == "weather" and "band_send_message" in first.tool_names
    assert "Know the weather." in (first.system or "")
    calls = {c["name"]: c for c in events(room, bot, "tool_call")}
    results = {r["tool_call_id"]: r for r in events(room, bot, "tool_result")}
    assert calls["weather"]["args"] == {"city": "Oslo"}
    native = results[calls["weather"]["tool_call_id"]]
    assert json.loads(native["output"]) == {"city": "Oslo", "sky": "clear"}
    assert "Local Person" in results[calls["band_get_participants"]["tool_call_id"]]["output"]


def test_a_second_turn_sees_the_first(scripted_model: ScriptedModel, band: LocalBand) -> None:
    scripted_model.script(
        ToolTurn(
            "band_send_message", {"content": "The code word is tangerine", "mentions": ["@local"]}
        ),
        TextTurn(""),
        TextTurn("It was tangerine"),
    )
    bot, room = start(band, build(scripted_model))
    first = room.say("pick a code word", mention=bot)
    settled(room, first, bot, "processed")
    assert room.ask(bot, "what was it?").text == "It was tangerine"
    last = scripted_model.requests[-1]
    asked = [text for role, text in last.messages if role == "user"]
    assert any("pick a code word" in t for t in asked) and "what was it?" in last.prompt
    # the first turn's band_send_message call and its result went back with the history
    assert "The code word is tangerine" in json.dumps(last.body)
    assert any(json.loads(out)["success"] for _, out in last.tool_results)


def test_room_history_reaches_the_model_on_a_session_bootstrap(
    scripted_model: ScriptedModel, band: LocalBand
) -> None:
    handle = band.register_agent("Late")
    room = band.room(handle)
    room.say("remember the code word: mango", mention=handle)  # before the agent runs
    scripted_model.script(ToolTurn("band_no_reply", {}), ToolTurn("band_no_reply", {}))
    bot = band.run_agent(build(scripted_model), handle=handle)
    scripted_model.wait_for_requests_sync(1)
    mid = room.say("and the code word?", mention=bot)
    settled(room, mid, bot, "processed")
    texts = [text for role, text in scripted_model.requests[-1].messages if role == "user"]
    assert any("mango" in t for t in texts) and "code word?" in texts[-1]


def test_a_5xx_is_retried_by_the_sdk_then_answered(
    scripted_model: ScriptedModel, band: LocalBand
) -> None:
    scripted_model.script(ErrorTurn(status=503, retry_after=0.1), TextTurn("After a retry"))
    bot, room = start(band, build(scripted_model, retries=2))
    assert room.ask(bot, "hi").text == "After a retry"
    assert [r.status for r in scripted_model.requests] == [503, 200]
    assert room.messages_from(bot, "error") == []


def test_a_5xx_is_an_error_event_and_the_message_is_not_lost(
    scripted_model: ScriptedModel, band: LocalBand
) -> None:
    scripted_model.script(ErrorTurn(status=500, message="upstream broke"), TextTurn("Recovered"))
    bot, room = start(band, build(scripted_model), retries=2)  # the runtime runs it again
    mid = room.say("hi", mention=bot)
    reply = room.wait_for_reply(bot, after=mid)
    settled(room, mid, bot, "processed")
    assert reply.text == "Recovered"
    [error] = room.messages_from(bot, "error")
    failure = error.metadata["failure"]
    assert failure["provider"] == "openai_agents" and failure["code"] == "500"
    assert "upstream broke" in error.content
    assert "hi" in scripted_model.requests[1].prompt  # the same message, run again


def test_a_401_is_an_error_event(scripted_model: ScriptedModel, band: LocalBand) -> None:
    adapter = build(scripted_model)
    adapter.client = adapter.client.with_options(api_key="wrong-key")
    bot, room = start(band, adapter)
    mid = room.say("hi", mention=bot)
    settled(room, mid, bot, "failed")
    [error] = room.messages_from(bot, "error")
    assert error.metadata["failure"]["provider"] == "openai_agents"
    assert error.metadata["failure"]["code"] == "401"
    assert scripted_model.requests[0].status == 401 and scripted_model.remaining == 0


def test_an_interrupt_cancels_the_run_mid_turn(
    scripted_model: ScriptedModel, band: LocalBand
) -> None:
    scripted_model.script(TextTurn("partial", hold=120), TextTurn("Next answer"))
    bot, room = start(band, build(scripted_model))
    mid = room.say("take your time", mention=bot)
    scripted_model.wait_for_requests_sync(1)
    r = room.person.request(
        "POST", f"/me/chats/{room.id}/control", json={"mode": "interrupt", "agent_id": bot.id}
    )
    assert r.status_code == 200, r.text
    settled(room, mid, bot, "failed")
    assert room.messages_from(bot) == []  # the held text was never relayed
    assert room.ask(bot, "still there?").text == "Next answer"  # the model call was cut


def test_handoffs_pass_through_with_the_band_tools(
    scripted_model: ScriptedModel, band: LocalBand
) -> None:
    billing = SDKAgent(name="Billing", instructions="You handle invoices.")
    triage = SDKAgent(name="Triage", instructions="Route questions.", handoffs=[billing])
    scripted_model.script(
        ToolTurn("transfer_to_billing", {}),
        ToolTurn("band_send_message", {"content": "Billing here", "mentions": ["@local"]}),
        TextTurn(""),
    )
    bot, room = start(band, build(scripted_model, agent=triage))
    mid = room.say("my invoice is wrong", mention=bot)
    settled(room, mid, bot, "processed")
    assert [m.text for m in room.messages_from(bot)] == ["Billing here"]
    first, second = scripted_model.requests[:2]
    assert "transfer_to_billing" in first.tool_names
    assert "You handle invoices." in (second.system or "")
    assert "band_send_message" in second.tool_names  # the handoff target has Band's tools


def test_an_input_guardrail_tripwire_is_reported(
    scripted_model: ScriptedModel, band: LocalBand
) -> None:
    @input_guardrail
    async def no_secrets(ctx: Any, agent: Any, given: Any) -> GuardrailFunctionOutput:
        return GuardrailFunctionOutput(
            output_info="secret", tripwire_triggered="secret" in str(given)
        )

    scripted_model.script(TextTurn("should not be relayed"))
    agent = SDKAgent(name="Guarded", input_guardrails=[no_secrets])
    bot, room = start(band, build(scripted_model, agent=agent))
    mid = room.say("tell me the secret", mention=bot)
    settled(room, mid, bot, "processed")
    [error] = room.messages_from(bot, "error")
    assert error.metadata["failure"]["code"] == "input_guardrail"
    assert "no_secrets" in error.content
    assert room.messages_from(bot) == []


def test_chat_completions_api_works_too(scripted_model: ScriptedModel, band: LocalBand) -> None:
    scripted_model.script(ToolTurn("band_send_message", REPLY), TextTurn("done"))
    bot, room = start(band, build(scripted_model, config={"api": "chat_completions"}))
    assert room.ask(bot, "hi").text == REPLY["content"]
    assert scripted_model.requests[0].provider == "openai-chat"


def test_the_adapter_is_exported_lazily_and_names_its_extra() -> None:
    code = (
        "import sys; sys.modules['agents'] = None\n"
        "import band.adapters as a\n"
        "try:\n"
        "    a.OpenAIAgentsAdapter()\n"
        "except ImportError as e:\n"
        "    print(e)\n"
    )
    out = subprocess.run(
        [sys.executable, "-Ic", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == (
        "OpenAIAgentsAdapter needs the [openai-agents] extra: "
        "pip install 'band-open-sdk[openai-agents]'"
    )


def test_reasoning_is_posted_as_a_thought(scripted_model: ScriptedModel, band: LocalBand) -> None:
    scripted_model.script(TextTurn("Forty-two", thinking="Adding six and thirty-six"))
    bot, room = start(band, build(scripted_model, emit=Emit.THOUGHTS))
    assert room.ask(bot, "what is 6 + 36?").text == "Forty-two"
    [thought] = room.wait_for(lambda _: room.messages_from(bot, "thought"))
    assert thought.content == "Adding six and thirty-six"


def test_a_restarted_agent_gets_its_own_tool_calls_back_from_the_room(
    scripted_model: ScriptedModel, band: LocalBand
) -> None:
    handle = band.register_agent("Keeper")
    room = band.room(handle)
    scripted_model.script(
        ToolTurn("band_send_message", {"content": "Noted: blue", "mentions": ["@local"]}),
        TextTurn(""),
    )
    first = band.run_agent(build(scripted_model, emit=Emit.TOOL_CALLS), handle=handle)
    settled(room, room.say("my colour is blue", mention=first), first, "processed")
    first.stop()
    scripted_model.script(TextTurn("Blue"))
    again = band.run_agent(build(scripted_model), handle=handle)
    assert room.ask(again, "my colour?").text == "Blue"
    # the room's history, as Responses items: the question, the call, its recorded result
    items = scripted_model.requests[-1].body["input"]
    [call] = [i for i in items if i.get("type") == "function_call"]
    assert call["name"] == "band_send_message"
    assert json.loads(call["arguments"])["content"] == "Noted: blue"
    [output] = [i for i in items if i.get("type") == "function_call_output"]
    assert output["call_id"] == call["call_id"] and json.loads(output["output"])["success"]
