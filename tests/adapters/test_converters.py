"""History converters: platform rows (text and tool events) as each framework's messages.

The unit cases feed hand-made rows; the rest convert a real room history (band dev's, as the
runtime hands it to an agent restarted after replying through the platform tools) into the
real framework's message objects, and send them through the framework's own client where it
has one (to band.testing's scripted model, which records what arrived).
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest

import band.converters
from band.converters.anthropic import AnthropicHistoryConverter
from band.converters.openai import OpenAIHistoryConverter
from band.testing import ModelRequest, ScriptedModel, TextTurn, local_band

from .framework_helpers import TIMEOUT, recorded_history

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


# -- a real room's history -------------------------------------------------------------------


@pytest.fixture(scope="module")
def history() -> tuple[list[dict[str, Any]], str]:
    """The rows band dev serves the restarted agent, and its name (recorded once)."""
    with local_band(timeout=TIMEOUT) as band:
        return recorded_history(band)


@pytest.fixture
def rows(history: tuple[list[dict[str, Any]], str]) -> list[dict[str, Any]]:
    return history[0]


@pytest.fixture
def name(history: tuple[list[dict[str, Any]], str]) -> str:
    return history[1]


@pytest.fixture(scope="module")
def scripted() -> Iterator[ScriptedModel]:
    with ScriptedModel() as m:
        yield m


#: The agent's calls in the recorded room, with their ids (the ids its events carry).
CALLS = [
    ("call_0", "band_get_participants", {}),
    ("call_1", "band_send_message", {"mentions": ["@local"]}),
    ("call_2", "band_send_message", {"content": "2 of us here", "mentions": ["@local"]}),
]


def received(scripted: ScriptedModel, send: Any) -> ModelRequest:
    """What the scripted model got when ``send()`` made one call to it."""
    scripted.script(TextTurn("ok"))
    before = len(scripted.requests)
    send()
    [request] = scripted.requests[before:]
    return request


def assert_the_room_arrived(request: ModelRequest) -> None:
    """The provider got the room in order: the question, each call with its result (the
    refused one's error text included), the peer's text; the agent's own text only once (in
    its call's arguments, not as a message)."""
    roles = [role for role, _ in request.messages]
    assert roles == ["user", "assistant", "tool", "assistant", "tool", "assistant", "tool", "user"]
    first, last = request.messages[0][1], request.messages[-1][1]
    assert first.startswith("[Local Person]: ") and first.endswith("who is here?")
    assert last.startswith("[Peer]: ") and last.endswith("me too")
    assert [call_id for call_id, _ in request.tool_results] == ["call_0", "call_1", "call_2"]
    assert "Local Person" in request.tool_results[0][1]
    assert "content: Field required" in request.tool_results[1][1]
    assert '"success": true' in request.tool_results[2][1]
    assert not any("2 of us here" in text for _, text in request.messages)


def test_importing_the_package_imports_no_framework() -> None:
    code = (
        "import sys, band.converters\n"
        "roots = {'langchain_core', 'pydantic_ai', 'agno', 'google', 'strands', 'anthropic',"
        " 'crewai', 'claude_agent_sdk'}\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in roots))\n"
        "print(len(band.converters.__all__))\n"
    )
    done = subprocess.run([sys.executable, "-I", "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["[]", "19"]
    for export in band.converters.__all__:  # each one loads (every extra is in the dev venv)
        assert getattr(band.converters, export) is not None


@pytest.mark.parametrize(
    ("module", "converter", "extra"),
    [
        ("langchain_core", "LangChainHistoryConverter", "langgraph"),
        ("pydantic_ai", "PydanticAIHistoryConverter", "pydantic-ai"),
        ("agno", "AgnoHistoryConverter", "agno"),
    ],
)
def test_a_converter_without_its_framework_names_the_extra(
    module: str, converter: str, extra: str
) -> None:
    code = (
        f"import sys; sys.modules[{module!r}] = None\n"
        "import band.converters\n"
        "band.converters.AnthropicHistoryConverter  # the others still load\n"
        f"from band.converters import {converter}\n"
    )
    done = subprocess.run([sys.executable, "-I", "-c", code], capture_output=True, text=True)
    assert done.returncode == 1
    assert done.stderr == (
        f"error: {converter} needs the [{extra}] extra: pip install 'band-open-sdk[{extra}]'\n"
    )


def test_langchain_messages_of_a_real_room(
    rows: list[dict[str, Any]], name: str, scripted: ScriptedModel
) -> None:
    from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
    from langchain_openai import ChatOpenAI

    out = band.converters.LangChainHistoryConverter(agent_name=name).convert(rows)
    kinds = [HumanMessage, AIMessage, ToolMessage] + [AIMessage, ToolMessage] * 2 + [HumanMessage]
    assert [type(m) for m in out] == kinds
    calls = [m.tool_calls[0] for m in out if isinstance(m, AIMessage)]
    assert [(c["id"], c["name"], c["args"]) for c in calls] == CALLS
    assert [m.tool_call_id for m in out if isinstance(m, ToolMessage)] == [
        "call_0",
        "call_1",
        "call_2",
    ]
    assert isinstance(out[-1].content, str) and out[-1].content.startswith("[Peer]: ")
    llm = ChatOpenAI(base_url=scripted.openai_base_url, api_key=scripted.api_key, model="m")
    assert_the_room_arrived(received(scripted, lambda: llm.invoke(out)))


def test_pydantic_ai_messages_of_a_real_room(rows: list[dict[str, Any]], name: str) -> None:
    from pydantic_ai.messages import (
        ModelMessagesTypeAdapter,
        ModelRequest,
        ModelResponse,
        ToolCallPart,
        ToolReturnPart,
        UserPromptPart,
    )

    out = band.converters.PydanticAIHistoryConverter(name).convert(rows)
    assert [type(m) for m in out] == [ModelRequest] + [ModelResponse, ModelRequest] * 3 + [
        ModelRequest
    ]
    parts = [p for m in out for p in m.parts]
    calls = [p for p in parts if isinstance(p, ToolCallPart)]
    assert [(p.tool_call_id, p.tool_name, p.args) for p in calls] == CALLS
    returns = [p for p in parts if isinstance(p, ToolReturnPart)]
    assert [(p.tool_call_id, p.tool_name) for p in returns] == [(c[0], c[1]) for c in CALLS]
    prompts = [p.content for p in parts if isinstance(p, UserPromptPart)]
    assert len(prompts) == 2 and str(prompts[1]).startswith("[Peer]: ")
    # Pydantic AI's own (de)serializer takes the history as it takes a stored one
    again = ModelMessagesTypeAdapter.validate_json(ModelMessagesTypeAdapter.dump_json(out))
    assert [type(m) for m in again] == [type(m) for m in out]


def test_gemini_contents_of_a_real_room(
    rows: list[dict[str, Any]], name: str, scripted: ScriptedModel
) -> None:
    from google import genai
    from google.genai import types

    out = band.converters.GeminiHistoryConverter(name).convert(rows)
    contents = [types.Content.model_validate(c) for c in out]  # google-genai's own type
    assert [c.role for c in contents] == ["user"] + ["model", "user"] * 3
    calls = [p.function_call for c in contents for p in c.parts or [] if p.function_call]
    assert [(c.id, c.name, c.args) for c in calls] == CALLS
    replies = [p.function_response for c in contents for p in c.parts or [] if p.function_response]
    assert [(r.id, r.name) for r in replies] == [(c[0], c[1]) for c in CALLS]
    last = contents[-1].parts or []  # the peer's text joins the last results (roles alternate)
    assert last[-1].text is not None and last[-1].text.startswith("[Peer]: ")
    client = genai.Client(
        api_key=scripted.api_key, http_options=types.HttpOptions(base_url=scripted.gemini_base_url)
    )
    request = received(
        scripted, lambda: client.models.generate_content(model="gemini-x", contents=out)
    )
    assert [role for role, _ in request.messages][:3] == ["user", "assistant", "tool"]
    assert [call_id for call_id, _ in request.tool_results] == ["call_0", "call_1", "call_2"]
    assert request.messages[-1][1].startswith("[Peer]: ")


def test_anthropic_messages_of_a_real_room(
    rows: list[dict[str, Any]], name: str, scripted: ScriptedModel
) -> None:
    import anthropic

    out = band.converters.AnthropicHistoryConverter(name).convert(rows)
    assert [m["role"] for m in out] == ["user"] + ["assistant", "user"] * 3 + ["user"]
    uses = [b for m in out if m["role"] == "assistant" for b in m["content"]]
    assert [(b["id"], b["name"], b["input"]) for b in uses] == CALLS
    [refused] = [b for m in out for b in m["content"] if isinstance(b, dict) and b.get("is_error")]
    assert refused["tool_use_id"] == "call_1"
    client = anthropic.Anthropic(base_url=scripted.anthropic_base_url, api_key=scripted.api_key)
    send = lambda: client.messages.create(model="m", max_tokens=64, messages=out)  # noqa: E731
    assert_the_room_arrived(received(scripted, send))


def test_strands_messages_of_a_real_room(rows: list[dict[str, Any]], name: str) -> None:
    from strands import Agent

    from band.testing import ScriptedStrandsModel

    out = band.converters.StrandsHistoryConverter(name).convert(rows)
    assert [m["role"] for m in out] == ["user"] + ["assistant", "user"] * 3
    uses = [b["toolUse"] for m in out for b in m["content"] if "toolUse" in b]
    assert [(u["toolUseId"], u["name"], u["input"]) for u in uses] == CALLS
    results = [b["toolResult"] for m in out for b in m["content"] if "toolResult" in b]
    assert [(r["toolUseId"], r["status"]) for r in results] == [
        ("call_0", "success"),
        ("call_1", "error"),
        ("call_2", "success"),
    ]
    # a Strands agent resumes from them: its model gets them, then the new prompt
    before = json.loads(json.dumps(out))  # the agent takes the list over and adds to it
    model = ScriptedStrandsModel([TextTurn("ok")])
    Agent(model=model, messages=out, callback_handler=None)("and now?")
    [call] = model.calls
    given = call["messages"]
    assert given[: len(before)] == before and len(given) == len(before) + 1
    assert given[-1] == {"role": "user", "content": [{"text": "and now?"}]}


def test_agno_messages_of_a_real_room(rows: list[dict[str, Any]], name: str) -> None:
    from agno.models.message import Message

    out = band.converters.AgnoHistoryConverter(name).convert(rows)
    assert all(isinstance(m, Message) for m in out)
    assert [m.role for m in out] == ["user"] + ["assistant", "tool"] * 3 + ["user"]
    calls = [c for m in out for c in m.tool_calls or []]
    assert [
        (c["id"], c["function"]["name"], json.loads(c["function"]["arguments"])) for c in calls
    ] == CALLS
    assert [m.tool_call_id for m in out if m.role == "tool"] == ["call_0", "call_1", "call_2"]
    assert str(out[-1].content).startswith("[Peer]: ")


def test_claude_sdk_state_of_a_real_room(rows: list[dict[str, Any]], name: str) -> None:
    state = band.converters.ClaudeSDKHistoryConverter(name).convert(rows)
    assert state.session_id is None  # no Claude session was recorded in this room
    first, peer = state.lines  # the others' text; the agent's own reply and its events are not
    assert first.startswith("[Local Person]: ") and first.endswith("who is here?")
    assert peer.startswith("[Peer]: ") and peer.endswith("me too")
    assert state.text == f"{first}\n{peer}"
