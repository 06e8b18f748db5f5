"""SimpleAdapter: feature negotiation errors, history conversion, start-up hooks."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from typing import Any

import pytest

from band.core import (
    AgentInput,
    BandConfigError,
    Emit,
    HistoryProvider,
    PlatformMessage,
    SimpleAdapter,
)
from band.core.input_adapter import InputAdapter
from band.core.turn import Turn
from band.runtime.capabilities import Capability


class Plain(SimpleAdapter[Any]):
    async def on_message(self, *args: Any, **kwargs: Any) -> None:
        return None


class Chatty(Plain):
    SUPPORTED_EMIT = frozenset({Emit.THOUGHTS, Emit.USAGE})
    SUPPORTED_CAPABILITIES = frozenset({Capability.MEMORY})


def test_features_default_and_errors() -> None:
    assert Plain().features.emit == frozenset() and Plain().capabilities == frozenset()
    assert Chatty().emit == {Emit.THOUGHTS, Emit.USAGE}  # everything supported by default
    assert Chatty(emit=Emit.USAGE).emit == {Emit.USAGE}
    assert Chatty(capabilities=[Capability.MEMORY]).capabilities == {Capability.MEMORY}
    with pytest.raises(BandConfigError) as err:
        Chatty(emit=[Emit.TOOL_CALLS, Emit.TASK_EVENTS])
    assert str(err.value) == (
        "Chatty does not support emit kind(s): task_events, tool_calls; supported: thoughts, usage"
    )
    with pytest.raises(BandConfigError) as err:
        Plain(capabilities=[Capability.MEMORY])
    assert str(err.value) == ("Plain does not support capability/-ies: memory; supported: (none)")
    with pytest.raises(BandConfigError, match="invalid Emit value"):
        Chatty(emit=["loud"])  # type: ignore[list-item]
    with pytest.raises(TypeError):
        Plain(foo=1)  # type: ignore[call-arg]


class Upper:
    """A history converter: contents upper-cased."""

    def __init__(self) -> None:
        self.agent_name = ""

    def set_agent_name(self, name: str) -> None:
        self.agent_name = name

    def convert(self, raw: list[dict[str, Any]]) -> list[str]:
        return [str(r["content"]).upper() for r in raw]


class Records(SimpleAdapter[list[str]]):
    def __init__(self, converter: Upper) -> None:
        super().__init__(history_converter=converter)
        self.calls: list[tuple[Any, ...]] = []

    async def on_message(
        self, msg, tools, history, participants_msg, contacts_msg, *, is_session_bootstrap, room_id
    ):  # type: ignore[no-untyped-def]
        self.calls.append((msg.id, history, participants_msg, is_session_bootstrap, room_id))


def test_on_event_converts_history_and_passes_everything() -> None:
    converter = Upper()
    adapter = Records(converter)
    msg = PlatformMessage(
        id="m1",
        room_id="r1",
        content="hi",
        sender_id="u1",
        sender_type="User",
        sender_name=None,
        message_type="text",
        metadata={},
        created_at=datetime.now(UTC),
    )
    assert msg.format_for_llm() == "[User]: hi"

    class Tools:
        turn = Turn()

    inp = AgentInput(
        msg=msg,
        tools=Tools(),  # type: ignore[arg-type]
        history=HistoryProvider([{"content": "earlier"}]),
        participants_msg="## Current Participants",
        contacts_msg=None,
        is_session_bootstrap=True,
        room_id="r1",
    )

    async def scenario() -> None:
        await adapter.startup("Echo", "echoes")
        await adapter.on_event(inp)

    asyncio.run(scenario())
    assert adapter.agent_name == "Echo" and converter.agent_name == "Echo"
    assert adapter.calls == [("m1", ["EARLIER"], "## Current Participants", True, "r1")]


class Whole(InputAdapter):
    """Takes each turn as one input; its subclass below still overrides on_message."""

    def __init__(self) -> None:
        super().__init__()
        self.inputs: list[AgentInput] = []

    async def on_input(self, inp: AgentInput) -> None:
        self.inputs.append(inp)


class Tagged(Whole):
    """band-sdk style: an override of on_message that calls super()."""

    async def on_message(self, msg, tools, history, *args, **kwargs):  # type: ignore[no-untyped-def]
        self.seen = msg.id
        await super().on_message(msg, tools, history, *args, **kwargs)


def test_an_input_adapter_gets_the_turn_whole_through_on_message() -> None:
    msg = PlatformMessage("m2", "r2", "hi", "u1", "User", None, "text", {}, datetime.now(UTC))
    history = HistoryProvider([{"content": "earlier"}])
    inp = AgentInput(msg, Turn(), history, None, "## Contacts", False, "r2")  # type: ignore[arg-type]
    adapter = Tagged()
    asyncio.run(adapter.on_event(inp))  # the runtime's call: the override runs, then on_input
    assert adapter.seen == "m2"
    [got] = adapter.inputs
    assert (got.msg, got.history, got.participants_msg, got.contacts_msg) == (
        msg,
        history,
        None,
        "## Contacts",
    )
    assert (got.is_session_bootstrap, got.room_id) == (False, "r2")
    with pytest.raises(TypeError, match="on_input"):
        InputAdapter()  # type: ignore[abstract]
