"""The Anthropic and OpenAI adapters, end to end: a real agent on a real local platform, its
model played by a scripted server that the providers' official SDKs reach over HTTP."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from band.adapters.anthropic import AnthropicAdapter, AnthropicAdapterConfig
from band.adapters.openai import OpenAIAdapter, OpenAIAdapterConfig
from band.core.turn import MISSING_REPLY, TURN_FAILURE_PROVIDER
from band.core.types import Emit
from band.runtime.capabilities import Capability
from band.testing import LocalBand, local_band

from .framework_helpers import settled, start, ticket_tool
from .provider import (
    ScriptedProvider,
    anthropic_error,
    anthropic_text,
    anthropic_tool_use,
    openai_text,
    openai_tool_calls,
    scripted_provider,
)


@dataclass(frozen=True)
class Dialect:
    """One provider: how to script it, build its adapter and read what the adapter sent."""

    name: str
    tool_use: Callable[..., Any]
    text: Callable[[str], Any]
    build: Callable[..., Any]
    results: Callable[[dict[str, Any]], list[tuple[str, bool]]]
    tool_names: Callable[[dict[str, Any]], list[str]]
    user_texts: Callable[[dict[str, Any]], list[str]]


def _anthropic_results(body: dict[str, Any]) -> list[tuple[str, bool]]:
    last = body["messages"][-1]
    return [(b["content"], b["is_error"]) for b in last["content"] if b["type"] == "tool_result"]


def _openai_results(body: dict[str, Any]) -> list[tuple[str, bool]]:
    tail = []
    for m in reversed(body["messages"]):
        if m["role"] != "tool":
            break
        tail.append((m["content"], m["content"].startswith(("Error", "Invalid"))))
    return list(reversed(tail))


def _anthropic(provider: ScriptedProvider, **kw: Any) -> AnthropicAdapter:
    config = kw.pop("config", {})
    adapter = AnthropicAdapter(AnthropicAdapterConfig(provider_key="test-key", **config), **kw)
    from anthropic import AsyncAnthropic

    # the official client, pointed at the scripted server (ANTHROPIC_BASE_URL does the same)
    adapter.client = AsyncAnthropic(api_key="test-key", base_url=provider.url, max_retries=0)
    return adapter


def _openai(provider: ScriptedProvider, **kw: Any) -> OpenAIAdapter:
    config = kw.pop("config", {})
    cfg = OpenAIAdapterConfig(provider_key="test-key", base_url=provider.url + "/v1", **config)
    adapter = OpenAIAdapter(cfg, **kw)
    adapter.client = adapter.client.with_options(max_retries=0)
    return adapter


ANTHROPIC = Dialect(
    "anthropic",
    anthropic_tool_use,
    anthropic_text,
    _anthropic,
    _anthropic_results,
    lambda body: [t["name"] for t in body["tools"]],
    lambda body: [m["content"] for m in body["messages"] if isinstance(m["content"], str)],
)
OPENAI = Dialect(
    "openai",
    openai_tool_calls,
    openai_text,
    _openai,
    _openai_results,
    lambda body: [t["function"]["name"] for t in body["tools"]],
    lambda body: [m["content"] for m in body["messages"] if m["role"] == "user"],
)


@pytest.fixture(params=[ANTHROPIC, OPENAI], ids=lambda d: d.name)
def dialect(request: pytest.FixtureRequest) -> Dialect:
    return request.param


@pytest.fixture
def provider() -> Iterator[ScriptedProvider]:
    with scripted_provider() as p:
        yield p


@pytest.fixture
def band() -> Iterator[LocalBand]:
    with local_band() as b:
        yield b


def test_a_mention_is_answered_through_band_send_message(
    dialect: Dialect, provider: ScriptedProvider, band: LocalBand
) -> None:
    provider.script(
        dialect.tool_use(("band_send_message", {"content": "echo: hello", "mentions": ["@local"]})),
        dialect.text("All done."),
    )
    adapter = dialect.build(
        provider,
        config={"model": "scripted-model", "custom_section": "Answer in one line."},
        emit=Emit.TOOL_CALLS,
    )
    bot, room = start(band, adapter, name="Echo")
    mid = room.say("hello", mention=bot)
    reply = room.wait_for_reply(bot, after=mid)
    settled(room, mid, bot, "processed")

    assert reply.text == "echo: hello"
    assert [m.text for m in room.messages_from(bot)] == ["echo: hello"]  # "All done." not relayed
    first, second = provider.requests
    assert first["model"] == "scripted-model"
    assert any("hello" in t for t in dialect.user_texts(first))
    names = dialect.tool_names(first)
    assert "band_send_message" in names and "band_no_reply" in names
    assert not any("memor" in n for n in names)  # no capability asked for, no memory tools
    system = first["system"] if dialect is ANTHROPIC else first["messages"][0]["content"]
    assert "Answer in one line." in system and "Echo" in system
    [(output, is_error)] = dialect.results(second)
    assert not is_error and json.loads(output)["id"] == reply.id  # the platform's own answer
    calls = [json.loads(m.content) for m in room.messages_from(bot, "tool_call")]
    results = [json.loads(m.content) for m in room.messages_from(bot, "tool_result")]
    assert [c["name"] for c in calls] == ["band_send_message"]
    assert calls[0]["args"]["content"] == "echo: hello"
    assert results[0]["tool_call_id"] == calls[0]["tool_call_id"] and not results[0]["is_error"]


def test_capabilities_add_their_tool_groups(
    dialect: Dialect, provider: ScriptedProvider, band: LocalBand
) -> None:
    provider.script(dialect.tool_use(("band_no_reply", {"reason": "nothing to add"})))
    adapter = dialect.build(provider, capabilities=[Capability.MEMORY, Capability.TASKS])
    bot, room = start(band, adapter)
    mid = room.say("note this", mention=bot)
    settled(room, mid, bot, "processed")
    names = dialect.tool_names(provider.requests[0])
    assert "band_store_memory" in names and "band_create_task" in names


def test_band_no_reply_ends_the_turn_without_a_follow_up_call(
    dialect: Dialect, provider: ScriptedProvider, band: LocalBand
) -> None:
    provider.script(dialect.tool_use(("band_no_reply", {"reason": "not for me"})))
    bot, room = start(band, dialect.build(provider))
    mid = room.say("thanks everyone", mention=bot)
    settled(room, mid, bot, "processed")
    assert len(provider.requests) == 1
    assert room.messages_from(bot) == [] and room.messages_from(bot, "error") == []


def test_closing_text_is_relayed_when_no_tool_replied(
    dialect: Dialect, provider: ScriptedProvider, band: LocalBand
) -> None:
    provider.script(dialect.text("The answer is 42."))
    bot, room = start(band, dialect.build(provider))
    mid = room.say("what is the answer?", mention=bot)
    reply = room.wait_for_reply(bot, after=mid)
    settled(room, mid, bot, "processed")
    assert reply.text == "The answer is 42."
    assert room.person.id in [m["id"] for m in reply.raw.get("mentions") or []] or (
        room.person.id in reply.content
    )


def test_a_turn_that_only_observes_gets_the_missing_reply_error(
    dialect: Dialect, provider: ScriptedProvider, band: LocalBand
) -> None:
    provider.script(dialect.tool_use(("band_get_participants", {})), dialect.text(""))
    bot, room = start(band, dialect.build(provider))
    mid = room.say("who is here?", mention=bot)
    settled(room, mid, bot, "failed")
    [(output, is_error)] = dialect.results(provider.requests[1])
    assert not is_error and "Local Person" in output  # the real participants went back
    errors = room.messages_from(bot, "error")
    assert [e.content for e in errors] == [MISSING_REPLY]
    assert errors[0].metadata["failure"]["provider"] == TURN_FAILURE_PROVIDER
    assert room.messages_from(bot) == []


def test_a_failing_tool_call_goes_back_to_the_model(
    dialect: Dialect, provider: ScriptedProvider, band: LocalBand
) -> None:
    provider.script(
        dialect.tool_use(("band_send_message", {"content": "hi", "mentions": ["@nobody"]})),
        dialect.tool_use(("band_send_message", {"content": "hi again", "mentions": ["@local"]})),
        dialect.text(""),
    )
    bot, room = start(band, dialect.build(provider))
    mid = room.say("hi", mention=bot)
    settled(room, mid, bot, "processed")
    [(output, is_error)] = dialect.results(provider.requests[1])
    assert is_error and "nobody" in output
    assert [m.text for m in room.messages_from(bot)] == ["hi again"]


def test_a_custom_tool_runs_and_its_declared_effect_completes_the_turn(
    dialect: Dialect, provider: ScriptedProvider, band: LocalBand
) -> None:
    ticket, filed = ticket_tool()
    provider.script(dialect.tool_use(("fileticket", {"title": "printer jam"})), dialect.text(""))
    adapter = dialect.build(provider, additional_tools=[ticket])
    bot, room = start(band, adapter)
    mid = room.say("the printer is jammed", mention=bot)
    settled(room, mid, bot, "processed")  # did work: no reply owed, no missing-reply error
    assert filed == ["printer jam"]
    assert "fileticket" in dialect.tool_names(provider.requests[0])
    assert dialect.results(provider.requests[1]) == [("filed: printer jam", False)]
    assert room.messages_from(bot, "error") == []


def test_a_provider_error_is_reported_and_fails_the_turn(
    provider: ScriptedProvider, band: LocalBand
) -> None:
    provider.script(anthropic_error(400, "prompt is too long"))
    bot, room = start(band, _anthropic(provider))
    mid = room.say("hello", mention=bot)
    settled(room, mid, bot, "failed")
    errors = room.messages_from(bot, "error")
    assert len(errors) == 1  # the adapter's report; the runtime does not add a second one
    assert errors[0].metadata["failure"]["provider"] == "anthropic"
    assert errors[0].metadata["failure"]["code"] == "400"
    assert "prompt is too long" in errors[0].content


def test_openai_arguments_that_are_not_json_come_back_as_an_error(
    provider: ScriptedProvider, band: LocalBand
) -> None:
    provider.script(
        openai_tool_calls(("band_send_message", "{not json")),
        openai_tool_calls(("band_send_message", {"content": "fixed", "mentions": ["@local"]})),
        openai_text(""),
    )
    bot, room = start(band, _openai(provider))
    mid = room.say("hi", mention=bot)
    settled(room, mid, bot, "processed")
    tool_msgs = [m for m in provider.requests[1]["messages"] if m["role"] == "tool"]
    assert tool_msgs[-1]["content"] == "Error: the tool arguments must be a JSON object"
    assert [m.text for m in room.messages_from(bot)] == ["fixed"]


def test_usage_is_posted_as_a_task_event_when_asked(
    dialect: Dialect, provider: ScriptedProvider, band: LocalBand
) -> None:
    provider.script(dialect.tool_use(("band_no_reply", {})))
    bot, room = start(band, dialect.build(provider, emit=Emit.USAGE))
    mid = room.say("hi", mention=bot)
    settled(room, mid, bot, "processed")
    [event] = room.wait_for(lambda _: room.messages_from(bot, "task"))
    usage = event.metadata["band_usage"]
    assert usage["input_tokens"] > 0 and usage["output_tokens"] > 0


def test_the_history_of_a_room_reaches_the_model_on_the_first_turn(
    dialect: Dialect, provider: ScriptedProvider, band: LocalBand
) -> None:
    handle = band.register_agent("Late")
    room = band.room(handle)
    room.say("remember the code word: tangerine", mention=handle)  # before the agent runs
    provider.script(
        dialect.tool_use(("band_no_reply", {})), dialect.tool_use(("band_no_reply", {}))
    )
    adapter = dialect.build(provider)
    bot = band.run_agent(adapter, handle=handle)
    room.wait_for(lambda _: len(provider.requests) >= 1)
    mid = room.say("what was the code word?", mention=bot)
    settled(room, mid, bot, "processed")
    texts = dialect.user_texts(provider.requests[-1])
    assert any("tangerine" in t for t in texts) and "code word?" in texts[-1]


def test_the_sdks_are_imported_only_when_an_adapter_is_built() -> None:
    code = (
        "import sys; sys.modules['anthropic'] = None; sys.modules['openai'] = None\n"
        "import band.adapters.anthropic as a, band.adapters.openai as o\n"
        "a.AnthropicAdapterConfig(); o.OpenAIAdapterConfig()\n"
        "for build in (a.AnthropicAdapter, o.OpenAIAdapter):\n"
        "    try:\n"
        "        build()\n"
        "    except ImportError as exc:\n"
        "        print(exc)\n"
    )
    # -I: the installed package (with its compiled core), not the checkout the test runs in
    done = subprocess.run(
        [sys.executable, "-I", "-c", code], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.splitlines() == [
        "AnthropicAdapter needs the [anthropic] extra: pip install 'band-open-sdk[anthropic]'",
        "OpenAIAdapter needs the [openai] extra: pip install 'band-open-sdk[openai]'",
    ]


@pytest.mark.parametrize(
    ("variable", "suffix", "build", "reply"),
    [
        ("ANTHROPIC_BASE_URL", "", AnthropicAdapter, anthropic_tool_use),
        ("OPENAI_BASE_URL", "/v1", OpenAIAdapter, openai_tool_calls),
    ],
    ids=["anthropic", "openai"],
)
def test_an_unchanged_adapter_follows_the_sdks_base_url_variable(
    variable: str,
    suffix: str,
    build: Callable[[], Any],
    reply: Callable[..., Any],
    provider: ScriptedProvider,
    band: LocalBand,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(variable, provider.url + suffix)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    provider.script(reply(("band_send_message", {"content": "via env", "mentions": ["@local"]})))
    provider.script(anthropic_text("") if variable.startswith("ANTHROPIC") else openai_text(""))
    bot, room = start(band, build())
    mid = room.say("hi", mention=bot)
    assert room.wait_for_reply(bot, after=mid).text == "via env"
    settled(room, mid, bot, "processed")
    assert len(provider.requests) == 2


def test_the_package_exports_the_model_adapters() -> None:
    import band.adapters

    assert band.adapters.AnthropicAdapter is AnthropicAdapter
    assert band.adapters.OpenAIAdapterConfig is OpenAIAdapterConfig
    assert {"AnthropicAdapter", "OpenAIAdapter"} <= set(band.adapters.__all__)


def test_configs_are_frozen_keep_the_key_out_of_repr_and_refuse_unknown_fields() -> None:
    cfg = AnthropicAdapterConfig(provider_key="sk-secret")
    assert "sk-secret" not in repr(cfg) and "sk-secret" not in repr(
        OpenAIAdapterConfig(provider_key="sk-secret")
    )
    assert (cfg.model, cfg.max_tokens, cfg.include_base_instructions) == (
        "claude-sonnet-5-5",
        4096,
        True,
    )
    with pytest.raises(ValueError, match="temperature"):
        AnthropicAdapterConfig(temperature=0.2)  # type: ignore[call-arg]
    with pytest.raises(ValueError):
        AnthropicAdapterConfig(max_tokens=0)
    with pytest.raises(ValueError):
        cfg.model = "other"


def test_a_unit_test_with_the_fake_tools(dialect: Dialect, provider: ScriptedProvider) -> None:
    """The pattern for an adapter unit test: FakeAgentTools instead of a platform."""
    import asyncio
    from datetime import UTC, datetime

    from band.core.types import PlatformMessage
    from band.testing import FakeAgentTools

    provider.script(
        dialect.tool_use(("band_send_message", {"content": "hi Ann", "mentions": ["@ann"]})),
        dialect.text("sent it"),
    )
    adapter = dialect.build(provider, emit=Emit.TOOL_CALLS)
    tools = FakeAgentTools(participants=[{"id": "u1", "name": "Ann", "handle": "ann"}])
    msg = PlatformMessage("m1", "r1", "hello", "u1", "User", "Ann", "text", {}, datetime.now(UTC))

    async def turn() -> None:
        await adapter.on_started("Unit", "a unit-tested agent")
        await adapter.on_message(
            msg, tools, [], None, None, is_session_bootstrap=True, room_id="r1"
        )

    asyncio.run(turn())
    assert tools.tool_calls == [
        {"tool_name": "band_send_message", "arguments": {"content": "hi Ann", "mentions": ["@ann"]}}
    ]
    assert tools.turn.replied and tools.messages_sent == []  # "sent it" is not relayed
    assert [e["message_type"] for e in tools.events_sent] == ["tool_call", "tool_result"]
    assert "[Ann]: hello" in dialect.user_texts(provider.requests[0])
