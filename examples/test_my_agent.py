"""Testing a model-backed agent offline: ``band dev`` in-process (the ``band_platform`` fixture)
and a scripted model API (``scripted_model``), both from band.testing's pytest plugin, which
pytest loads wherever band-open-sdk is installed. No network, no real model, no key::

    pip install 'band-open-sdk[anthropic]' pytest
    pytest examples/test_my_agent.py

The agent under test is examples/anthropic_agent.py's; the real ``anthropic`` client talks
to the scripted model, which answers each model call with the next scripted turn and records
what the agent sent.
"""

from __future__ import annotations

import json

import pytest
from anthropic_agent import build_adapter

from band.testing import LocalBand, ScriptedModel, TextTurn, ToolTurn


@pytest.fixture
def model(scripted_model: ScriptedModel, monkeypatch: pytest.MonkeyPatch) -> ScriptedModel:
    """The scripted model, with the provider SDKs pointed at it (ANTHROPIC_BASE_URL, ...)."""
    for name, value in scripted_model.env().items():
        monkeypatch.setenv(name, value)
    return scripted_model


def test_the_agent_answers_with_the_model_text(
    band_platform: LocalBand, model: ScriptedModel
) -> None:
    bot = band_platform.run_agent(build_adapter(), name="Helper")
    room = band_platform.room(bot)
    model.script(TextTurn("Hello! How can I help?"))

    assert room.ask(bot, "Hi there").text == "Hello! How can I help?"
    [call] = model.requests
    assert "Hi there" in call.prompt  # what the model was sent
    assert "Answer briefly and kindly." in (call.system or "")
    assert "band_send_message" in call.tool_names


def test_a_tool_reply_is_the_answer(band_platform: LocalBand, model: ScriptedModel) -> None:
    bot = band_platform.run_agent(build_adapter(), name="Helper")
    room = band_platform.room(bot)
    me = band_platform.me
    model.script(
        ToolTurn("band_send_message", {"content": "Sent with a tool", "mentions": [me.id]}),
        TextTurn("I have replied."),  # the model's closing words: not posted a second time
    )

    asked = room.say("Please answer with the tool", mention=bot)
    room.wait_for(lambda _: room.delivery_status(asked, bot) == "processed")
    assert [m.text for m in room.messages_from(bot)] == ["Sent with a tool"]
    # the model's second call got the tool's result: the message went out
    [_, second] = model.requests
    [(_, output)] = second.tool_results
    assert json.loads(output)["success"] is True
