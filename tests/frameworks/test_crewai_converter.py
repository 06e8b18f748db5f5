"""``CrewAIHistoryConverter`` on a real room's history (in the venv ``make test-crewai``
builds): the messages are CrewAI's ``LLMMessage``\\s, and CrewAI's own ``LLM`` sends them to
the model (band.testing's scripted model) in order."""

from __future__ import annotations

import json

from adapters.framework_helpers import recorded_history
from crewai import LLM
from crewai.utilities.types import LLMMessage
from pydantic import TypeAdapter

import band.converters
from band.testing import LocalBand, ScriptedModel, TextTurn

CALLS = [
    ("call_0", "band_get_participants", {}),
    ("call_1", "band_send_message", {"mentions": ["@local"]}),
    ("call_2", "band_send_message", {"content": "2 of us here", "mentions": ["@local"]}),
]


def test_the_messages_of_a_real_room(band_platform: LocalBand, model: ScriptedModel) -> None:
    rows, name = recorded_history(band_platform)
    out = band.converters.CrewAIHistoryConverter(agent_name=name).convert(rows)
    messages = TypeAdapter(list[LLMMessage]).validate_python(out)
    assert [m["role"] for m in messages] == ["user"] + ["assistant", "tool"] * 3 + ["user"]
    calls = [c for m in messages for c in m.get("tool_calls") or []]
    assert [
        (c["id"], c["function"]["name"], json.loads(c["function"]["arguments"])) for c in calls
    ] == CALLS
    assert [m.get("tool_call_id") for m in messages if m["role"] == "tool"] == [c[0] for c in CALLS]
    assert str(messages[-1]["content"]).startswith("[Peer]: ")

    model.script(TextTurn("ok"))
    llm = LLM(model="openai/scripted", base_url=model.openai_base_url, api_key=model.api_key)
    assert llm.call(out) == "ok"
    [request] = model.requests
    assert [role for role, _ in request.messages] == [m["role"] for m in messages]
    assert [call_id for call_id, _ in request.tool_results] == [c[0] for c in CALLS]
    assert request.messages[-1][1].startswith("[Peer]: ")
