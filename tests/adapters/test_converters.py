"""History converters: platform rows (text and tool events) as Anthropic / OpenAI messages."""

from __future__ import annotations

import json
from typing import Any

from band.converters.anthropic import AnthropicHistoryConverter
from band.converters.openai import OpenAIHistoryConverter

INTERRUPTED = "Error: tool execution was interrupted"


def text(sender: str, content: str, kind: str = "User") -> dict[str, Any]:
    return {"message_type": "text", "sender_name": sender, "sender_type": kind, "content": content}


def call(cid: str, name: str, **args: Any) -> dict[str, Any]:
    body = {"name": name, "args": args, "tool_call_id": cid}
    return {"message_type": "tool_call", "sender_name": "Bot", "content": json.dumps(body)}


def result(cid: str, name: str, output: str, is_error: bool = False) -> dict[str, Any]:
    body = {"name": name, "output": output, "tool_call_id": cid, "is_error": is_error}
    return {"message_type": "tool_result", "sender_name": "Bot", "content": json.dumps(body)}


ROWS = [
    text("Ann", "hi bot"),
    call("c1", "band_get_participants"),
    call("c2", "band_lookup_peers", page=1),
    result("c1", "band_get_participants", "[...]"),
    result("c2", "band_lookup_peers", "boom", is_error=True),
    call("c3", "band_send_message", content="hello Ann", mentions=["@ann"]),
    result("c3", "band_send_message", '{"id": "m2"}'),
    text("Bot", "hello Ann", kind="Agent"),  # this agent's own text: its call already holds it
    text("Other Bot", "me too", kind="Agent"),
    {"message_type": "tool_call", "content": "not json"},  # malformed: skipped
    call("c4", "band_no_reply"),  # never answered (the turn broke)
]


def test_anthropic_batches_calls_and_results_and_answers_orphans() -> None:
    conv = AnthropicHistoryConverter()
    conv.set_agent_name("Bot")
    out = conv.convert(ROWS)
    assert out[0] == {"role": "user", "content": "[Ann]: hi bot"}
    assert [b["id"] for b in out[1]["content"]] == ["c1", "c2"] and out[1]["role"] == "assistant"
    assert out[2] == {
        "role": "user",
        "content": [
            {"type": "tool_result", "tool_use_id": "c1", "content": "[...]"},
            {"type": "tool_result", "tool_use_id": "c2", "content": "boom", "is_error": True},
        ],
    }
    assert out[3]["content"][0]["input"] == {"content": "hello Ann", "mentions": ["@ann"]}
    assert out[5] == {"role": "user", "content": "[Other Bot]: me too"}
    assert out[6]["content"][0]["id"] == "c4"
    assert out[7] == {
        "role": "user",
        "content": [
            {"type": "tool_result", "tool_use_id": "c4", "content": INTERRUPTED, "is_error": True}
        ],
    }
    assert len(out) == 8 and not any(m["content"] == "hello Ann" for m in out)


def test_openai_gives_each_call_a_tool_message() -> None:
    conv = OpenAIHistoryConverter("Bot")
    out = conv.convert(ROWS)
    roles = [m["role"] for m in out]
    assert roles == [
        "user", "assistant", "tool", "tool", "assistant", "tool", "user", "assistant", "tool"
    ]  # fmt: skip
    assert [c["id"] for c in out[1]["tool_calls"]] == ["c1", "c2"]
    assert json.loads(out[4]["tool_calls"][0]["function"]["arguments"])["content"] == "hello Ann"
    assert out[3] == {"role": "tool", "tool_call_id": "c2", "content": "boom"}
    assert out[6] == {"role": "user", "content": "[Other Bot]: me too"}
    assert out[8] == {"role": "tool", "tool_call_id": "c4", "content": INTERRUPTED}


def test_without_a_name_nothing_is_taken_for_the_agents_own() -> None:
    out = AnthropicHistoryConverter().convert([text("Bot", "hi", kind="Agent")])
    assert out == [{"role": "user", "content": "[Bot]: hi"}]


def test_openai_keeps_a_reply_between_its_call_and_result_together() -> None:
    """In the room the reply's text lands between band_send_message's call and result."""
    rows = [
        text("Ann", "hi"),
        call("c1", "band_send_message", content="hello Ann", mentions=["@ann"]),
        text("Bot", "hello Ann", kind="Agent"),
        result("c1", "band_send_message", '{"success": true}'),
    ]
    out = OpenAIHistoryConverter("Bot").convert(rows)
    assert [m["role"] for m in out] == ["user", "assistant", "tool"]
    assert out[2] == {"role": "tool", "tool_call_id": "c1", "content": '{"success": true}'}
