"""What the agent-framework adapter tests share (tests/adapters and tests/frameworks): an agent
started on the local platform, the waits and reads every scenario uses, the custom tools and
the scenarios every framework runs alike (the model is band.testing's ScriptedModel), and a
script (an example, a drop-in) run as an agent process."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel

from band.adapters._model import GENERIC_PROVIDER_FAILURE_MESSAGE, run_tool_call
from band.core.protocols import AgentToolsProtocol
from band.core.simple_adapter import SimpleAdapter
from band.core.types import Emit, HistoryProvider, PlatformMessage
from band.runtime.sessionconfig import SessionConfig
from band.runtime.tools import TurnEffect
from band.runtime.tools.custom import CustomToolDef, declares_turn_effect
from band.testing import (
    AgentHandle,
    ErrorTurn,
    LocalBand,
    Message,
    ModelRequest,
    Room,
    RunningAgent,
    ScriptedModel,
    TextTurn,
    ToolTurn,
)

#: every wait is on a condition; this only bounds a failing test (two shared cores, SDK retries)
TIMEOUT = 60.0


def start(band: LocalBand, adapter: Any, name: str = "Framework") -> tuple[RunningAgent, Room]:
    """Run ``adapter`` as an agent in a new room; one attempt per message (no retry)."""
    bot = band.run_agent(adapter, name=name, session_config=SessionConfig(max_message_retries=0))
    return bot, band.room(bot)


def settled(
    room: Room, mid: str, bot: RunningAgent, status: str, timeout: float | None = None
) -> None:
    """Wait until the agent's delivery of ``mid`` is ``status``."""
    room.wait_for(lambda _: room.delivery_status(mid, bot) == status, timeout=timeout)


def interrupt(room: Room, bot: RunningAgent) -> None:
    """Interrupt the agent's turn in the room, as the person's room controls do."""
    r = room.person.request(
        "POST", f"/me/chats/{room.id}/control", json={"mode": "interrupt", "agent_id": bot.id}
    )
    assert r.status_code in (200, 202, 204), r.text


def events(room: Room, bot: RunningAgent, kind: str) -> list[dict[str, Any]]:
    """The JSON bodies of the agent's ``kind`` events (``tool_call``, ``tool_result``)."""
    return [json.loads(m.content) for m in room.messages_from(bot, kind)]


def ticket_tool() -> tuple[CustomToolDef, list[str]]:
    """A custom tool declared ``ACT`` (``fileticket``) and the titles it filed."""

    class FileTicketInput(BaseModel):
        """File a support ticket."""

        title: str

    filed: list[str] = []

    @declares_turn_effect(TurnEffect.ACT)
    async def file_ticket(args: FileTicketInput) -> str:
        filed.append(args.title)
        return f"filed: {args.title}"

    return (FileTicketInput, file_ticket), filed


def stalling_tool() -> tuple[CustomToolDef, threading.Event]:
    """A custom tool (``stall``) that never returns, and the event set when it was called."""

    class StallInput(BaseModel):
        """Wait for something that never comes."""

        reason: str = ""

    called = threading.Event()

    async def stall(args: StallInput) -> str:
        called.set()
        await asyncio.Event().wait()  # until the turn is cancelled
        return "never"

    return (StallInput, stall), called


def interrupt_mid_tool(
    band: LocalBand, model: ScriptedModel, adapter: Any, called: threading.Event
) -> list[tuple[str, str]]:
    """Interrupt a turn while its tool runs, then ask again; the messages the model got then."""
    model.script(ToolTurn("stall", {"reason": "slow"}))
    bot, room = start(band, adapter)
    mid = room.say("do the slow thing", mention=bot)
    assert called.wait(TIMEOUT)
    interrupt(room, bot)
    settled(room, mid, bot, "failed")
    model.script(TextTurn("back again"))
    mid = room.say("are you there?", mention=bot)
    assert room.wait_for_reply(bot, after=mid).text == "back again"
    return model.requests[-1].messages


def act_tool_turn(
    band: LocalBand, model: ScriptedModel, adapter_with: Callable[[Sequence[CustomToolDef]], Any]
) -> tuple[RunningAgent, Room]:
    """A custom tool declared ``ACT``, then an empty answer: the tool ran once and the turn is
    processed (it did work) with no error; ``adapter_with(tools)`` builds the adapter."""
    ticket, filed = ticket_tool()
    model.script(ToolTurn("fileticket", {"title": "printer jam"}), TextTurn(""))
    bot, room = start(band, adapter_with([ticket]))
    mid = room.say("the printer is jammed", mention=bot)
    settled(room, mid, bot, "processed")  # did work: no reply owed, no missing-reply error
    assert filed == ["printer jam"]
    assert room.messages_from(bot, "error") == []
    return bot, room


def failed_turn(
    band: LocalBand, adapter: Any, provider: str, timeout: float | None = None
) -> tuple[RunningAgent, Room, dict[str, Any]]:
    """A message whose turn the model's error broke: the delivery is failed, one error event
    with the official's generic text names ``provider``, no reply; its failure metadata."""
    bot, room = start(band, adapter)
    mid = room.say("hello", mention=bot)
    settled(room, mid, bot, "failed", timeout=timeout)
    [error] = room.wait_for(lambda _: room.messages_from(bot, "error"))
    failure: dict[str, Any] = error.metadata["failure"]
    assert failure["provider"] == provider
    assert error.content == GENERIC_PROVIDER_FAILURE_MESSAGE
    assert room.messages_from(bot) == []
    return bot, room, failure


def errors_lose_nothing(
    band: LocalBand, model: ScriptedModel, adapter: Any
) -> tuple[RunningAgent, Room]:
    """Two turns broken by the model (a 500, then a 401 whose body stays in the log), then a
    third that is answered with both failed turns in its thread; the first error is left to
    the caller (providers report a 5xx differently)."""
    bot, room = start(band, adapter)
    mid = room.say("first question", mention=bot)
    settled(room, mid, bot, "failed")
    mid = room.say("second question", mention=bot)
    settled(room, mid, bot, "failed")
    errors = room.messages_from(bot, "error")
    assert len(errors) == 2 and "bad key" not in errors[1].content  # internals stay in the log
    assert errors[1].content == GENERIC_PROVIDER_FAILURE_MESSAGE  # a client error: generic
    assert errors[1].metadata["failure"]["code"] is None
    model.script(TextTurn("both answered"))
    mid = room.say("third question", mention=bot)
    assert room.wait_for_reply(bot, after=mid).text == "both answered"
    texts = [text for _, text in model.requests[-1].messages]
    assert any("first question" in t for t in texts)  # the failed turns stay in the thread
    assert any("second question" in t for t in texts)
    return bot, room


def import_without(module: str, names: str) -> list[str]:
    """What ``from band.adapters import <names>`` says with ``module`` not importable (in a
    fresh interpreter on the installed package), one line per failed import."""
    code = (
        f"import sys; sys.modules[{module!r}] = None\n"
        f"for name in {names.split()!r}:\n"
        "    try:\n"
        "        exec(f'from band.adapters import {name}')\n"
        "    except ImportError as exc:\n"
        "        print(exc)\n"
    )
    done = subprocess.run(
        [sys.executable, "-I", "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout.splitlines()


@contextmanager
def script_agent(
    band: LocalBand, env: dict[str, str], script: Path, cwd: Path, name: str
) -> Iterator[tuple[AgentHandle, Room]]:
    """Run ``script`` (an example or a drop-in script) as a registered agent, and its room
    with the person; stopped on leaving. Its key is in ``cwd/agent_config.yaml`` under
    ``my_agent`` and in ``AID``/``AKEY``, the platform's URLs and ``env`` (the scripted
    model's variables) in its environment."""
    handle = band.register_agent(name)
    config = {"my_agent": {"agent_id": handle.id, "api_key": handle.api_key}}
    (cwd / "agent_config.yaml").write_text(yaml.safe_dump(config))
    keep = {k: v for k, v in os.environ.items() if not k.startswith(("BAND_", "OPENAI_"))}
    keep.update(env, AID=handle.id, AKEY=handle.api_key)
    keep.update(BAND_REST_URL=band.rest_url, BAND_WS_URL=band.ws_url)
    keep.pop("PYTHONPATH", None)
    with open(cwd / "stderr.log", "w") as stderr:
        proc = subprocess.Popen(
            [sys.executable, "-I", str(script)],
            cwd=cwd,
            env=keep,
            stdout=subprocess.DEVNULL,
            stderr=stderr,
            text=True,
        )
        try:
            yield handle, band.room(handle)
        finally:
            _stop(proc)


def _stop(proc: subprocess.Popen[str]) -> None:
    """Terminate a started script and wait for it."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(30)


# -- the scenarios every framework adapter runs alike (the caller builds the adapter and
# checks what its framework does its own way)


def plain_answer(
    band: LocalBand,
    model: ScriptedModel,
    adapter: Any,
    name: str = "Sage",
    section: str | None = "Answer in one line.",
) -> ModelRequest:
    """A plain answer is relayed as the one reply; the one model request, its system prompt
    with the agent's ``name`` and the adapter's custom ``section``, and the chat tools only."""
    model.script(TextTurn("The answer is 42."))
    bot, room = start(band, adapter, name=name)
    mid = room.say("what is the answer?", mention=bot)
    assert room.wait_for_reply(bot, after=mid).text == "The answer is 42."
    settled(room, mid, bot, "processed")
    assert [m.text for m in room.messages_from(bot)] == ["The answer is 42."]
    [request] = model.requests
    assert request.model == "scripted-model"
    assert request.system and name in request.system
    assert section is None or section in request.system
    assert any("what is the answer?" in text for role, text in request.messages if role == "user")
    assert "band_send_message" in request.tool_names and "band_no_reply" in request.tool_names
    assert not any("memor" in n for n in request.tool_names)  # no capability, no memory tools
    return request


def send_message_reply(
    band: LocalBand,
    model: ScriptedModel,
    adapter: Any,
    memory: bool = True,
    model_call_id: bool = True,
) -> tuple[str, dict[str, Any]]:
    """``band_send_message`` is the reply and the closing text is not relayed; ``adapter`` has
    ``Emit.TOOL_CALLS`` (and ``Capability.MEMORY`` unless not ``memory``); the events carry
    the model's call id (unless not ``model_call_id``: the framework names calls its own way).
    The output the model got back and the ``tool_result`` event's body."""
    model.script(
        ToolTurn("band_send_message", {"content": "echo: hello", "mentions": ["@local"]}),
        TextTurn("All done."),
    )
    bot, room = start(band, adapter)
    mid = room.say("hello", mention=bot)
    reply = room.wait_for_reply(bot, after=mid)
    settled(room, mid, bot, "processed")
    assert [m.text for m in room.messages_from(bot)] == ["echo: hello"]
    assert reply.text == "echo: hello"
    assert memory == ("band_store_memory" in model.requests[0].tool_names)  # capabilities
    [(call_id, output)] = model.requests[1].tool_results
    assert reply.id in output  # the platform's own answer went back to the model
    [call] = events(room, bot, "tool_call")
    [result] = events(room, bot, "tool_result")
    assert call["name"] == "band_send_message" and call["args"]["content"] == "echo: hello"
    assert result["tool_call_id"] == call["tool_call_id"]
    assert not model_call_id or call["tool_call_id"] == call_id
    assert not result["is_error"]
    assert reply.id in result["output"]  # the tool's output, not a framework object's repr
    return output, result


def no_reply_ends_the_run(band: LocalBand, model: ScriptedModel, adapter: Any) -> None:
    """``band_no_reply`` ends the turn without another model call; ``adapter`` has
    ``Emit.USAGE``, so the turn's token usage is posted."""
    model.script(ToolTurn("band_no_reply", {"reason": "not for me"}))
    bot, room = start(band, adapter)
    mid = room.say("thanks everyone", mention=bot)
    settled(room, mid, bot, "processed")
    assert len(model.requests) == 1
    assert room.messages_from(bot) == [] and room.messages_from(bot, "error") == []
    [usage] = room.wait_for(lambda _: room.messages_from(bot, "task"))
    assert usage.metadata["band_usage"]["input_tokens"] > 0


def second_turn_sees_the_first(band: LocalBand, model: ScriptedModel, adapter: Any) -> None:
    """The second turn's request carries the first question and answer."""
    model.script(TextTurn("My name is Sage."), TextTurn("You asked my name."))
    bot, room = start(band, adapter)
    first = room.say("what is your name?", mention=bot)
    room.wait_for_reply(bot, after=first)
    second = room.say("what did I ask?", mention=bot)
    assert room.wait_for_reply(bot, after=second).text == "You asked my name."
    texts = [text for _, text in model.requests[1].messages]
    assert any("what is your name?" in t for t in texts)
    assert ("assistant", "My name is Sage.") in model.requests[1].messages
    assert "what did I ask?" in model.requests[1].prompt


def history_reaches_the_model(band: LocalBand, model: ScriptedModel, adapter: Any) -> None:
    """A message the room had before the agent ran reaches the model on the session bootstrap."""
    handle = band.register_agent("Late")
    room = band.room(handle)
    room.say("remember the code word: tangerine", mention=handle)  # before the agent runs
    model.script(ToolTurn("band_no_reply", {}), ToolTurn("band_no_reply", {}))
    bot = band.run_agent(adapter, handle=handle)
    model.wait_for_requests_sync(1)
    mid = room.say("what was the code word?", mention=bot)
    settled(room, mid, bot, "processed")
    texts = [text for role, text in model.requests[-1].messages if role == "user"]
    assert any("tangerine" in t for t in texts) and "code word?" in texts[-1]


def a_5xx_is_retried(band: LocalBand, model: ScriptedModel, adapter: Any) -> None:
    """A 503 the SDK retries (``adapter`` allows it) is no failure: the retry answers."""
    model.script(ErrorTurn(status=503), TextTurn("recovered"))
    bot, room = start(band, adapter)
    mid = room.say("hello", mention=bot)
    assert room.wait_for_reply(bot, after=mid).text == "recovered"
    assert [r.status for r in model.requests] == [503, 200]
    assert room.messages_from(bot, "error") == []


def interrupt_fails_the_turn(band: LocalBand, model: ScriptedModel, adapter: Any) -> None:
    """An interrupt during the model call fails the turn with no reply; the next is answered."""
    model.script(TextTurn("too late", delay=120))
    bot, room = start(band, adapter)
    mid = room.say("a long question", mention=bot)
    model.wait_for_requests_sync(1)  # the model call is in flight
    interrupt(room, bot)
    settled(room, mid, bot, "failed")
    assert room.messages_from(bot) == []
    model.script(TextTurn("ready again"))
    mid = room.say("still there?", mention=bot)
    assert room.wait_for_reply(bot, after=mid).text == "ready again"


def interrupt_mid_tool_keeps_the_thread(
    band: LocalBand, model: ScriptedModel, adapter_with: Callable[[Sequence[CustomToolDef]], Any]
) -> None:
    """After an interrupt mid-tool the next request keeps the interrupted message, and the
    call it cut off comes back answered as interrupted, so the history stays valid."""
    tool_def, called = stalling_tool()
    seen = interrupt_mid_tool(band, model, adapter_with([tool_def]), called)
    assert any("do the slow thing" in text for _, text in seen)  # the interrupted message kept
    assert "are you there?" in seen[-1][1]
    results = [text for role, text in seen if role == "tool"]
    assert results and all("tool execution was interrupted" in text for text in results)


def interrupt_then_answer(
    band: LocalBand, model: ScriptedModel, adapter: Any, first: Any
) -> tuple[RunningAgent, Room, Message]:
    """An interrupt while the model is on ``first`` (a slow turn) ends the turn; the next
    message is answered "after the interrupt", and ``first``'s text is never posted."""
    model.script(first, TextTurn("after the interrupt"))
    bot, room = start(band, adapter)
    mid = room.say("take your time", mention=bot)
    room.wait_for(lambda _: len(model.requests) >= 1)  # the model call is in flight
    interrupt(room, bot)
    room.wait_for(lambda _: room.delivery_status(mid, bot) not in (None, "processing", "pending"))
    mid = room.say("are you there?", mention=bot)
    reply = room.wait_for_reply(bot, after=mid, timeout=90)
    assert "too late" not in [m.text for m in room.messages_from(bot)]
    return bot, room, reply


def bootstrap_then_two_turns(band: LocalBand, model: ScriptedModel, adapter: Any) -> None:
    """The room's earlier message opens the session, then two turns: the last request has
    the earlier message, the first turn and the new question last."""
    handle = band.register_agent("Late")
    room = band.room(handle)
    room.say("remember the code word: tangerine", mention=handle)  # before the agent runs
    model.script(TextTurn("noted"), TextTurn("first answer"), TextTurn("second answer"))
    bot = band.run_agent(adapter, handle=handle)
    room.wait_for(lambda _: len(room.messages_from(bot)) >= 1)  # the backlog turn answered
    mid = room.say("first question", mention=bot)
    room.wait_for_reply(bot, after=mid)
    mid = room.say("second question", mention=bot)
    assert room.wait_for_reply(bot, after=mid).text == "second answer"
    last = model.requests[-1].messages
    texts = " | ".join(text for _, text in last)
    assert "tangerine" in texts and "first question" in texts and "first answer" in texts
    assert last[-1][0] == "user" and "second question" in last[-1][1]


def example_counts_words(
    band: LocalBand, env: dict[str, str], model: ScriptedModel, example: str, tool: str, cwd: Path
) -> list[str]:
    """``examples/<example>`` counts the words of a message with its own tool ``tool`` and
    answers through ``band_send_message``; the outputs the model got back from the tool."""
    model.script(
        ToolTurn(tool, {"text": "one two three"}),
        ToolTurn("band_send_message", {"content": "3 words", "mentions": ["@local"]}),
        TextTurn("done"),
    )
    script = Path(__file__).resolve().parents[2] / "examples" / example
    with script_agent(band, env, script, cwd, "Counter") as (handle, room):
        mid = room.say("count: one two three", mention=handle)
        assert room.wait_for_reply(handle, after=mid, timeout=90).text == "3 words"
    return [out for _, out in model.requests[1].tool_results]


def missing_extra(module: str, names: str, extra: str) -> None:
    """Without ``module`` importing each of ``names`` (the first the adapter) says one line:
    the extra to install."""
    adapter = names.split()[0]
    line = f"{adapter} needs the [{extra}] extra: pip install 'band-open-sdk[{extra}]'"
    assert import_without(module, names) == [line] * len(names.split())


def model_error_turn(
    band: LocalBand,
    model: ScriptedModel,
    adapter_with_key: Callable[[str | None], Any],
    provider: str,
    status: int,
) -> dict[str, Any]:
    """A 500 from the model (scripted) or a 401 (a wrong key: the server refuses any key but
    its own) is the failed turn of :func:`failed_turn`; after the 500 nothing is lost, the
    next message is answered. The failure metadata."""
    if status == 500:
        model.script(ErrorTurn(status=500, message="upstream broke"))
    bot, room, failure = failed_turn(
        band, adapter_with_key(None if status == 500 else "wrong-key"), provider
    )
    if status == 500:
        model.script(TextTurn("back again"))
        mid = room.say("again", mention=bot)
        assert room.wait_for_reply(bot, after=mid).text == "back again"
    return failure


class _Recorder(SimpleAdapter[HistoryProvider]):
    """An agent without a model: each turn records the message and the raw history the
    runtime hands over, then makes ``calls`` through the platform tools (their events posted
    when ``emit``, as a model adapter's are)."""

    SUPPORTED_EMIT = frozenset({Emit.TOOL_CALLS})

    def __init__(self, calls: Sequence[tuple[str, dict[str, Any]]] = (), emit: bool = True) -> None:
        super().__init__(emit=Emit.TOOL_CALLS if emit else ())
        self.calls = list(calls)
        self.turns: dict[str, list[dict[str, Any]]] = {}
        self.turned = threading.Condition()

    async def on_message(
        self,
        msg: PlatformMessage,
        tools: AgentToolsProtocol,
        history: HistoryProvider,
        participants_msg: str | None,
        contacts_msg: str | None,
        *,
        is_session_bootstrap: bool,
        room_id: str,
    ) -> None:
        for n, (name, args) in enumerate(self.calls):
            await run_tool_call(tools, [], self.features, name, args, f"call_{n}")
        with self.turned:
            self.turns[msg.id] = list(history.raw)
            self.turned.notify_all()


def recorded_history(band: LocalBand) -> tuple[list[dict[str, Any]], str]:
    """A real room history and the agent whose it is, as band dev serves it to the runtime
    after a restart: the person's question; the agent's ``band_get_participants`` call, a
    ``band_send_message`` refused for its missing content (an error result) and one that
    replies "2 of us here" (its text lands between call and result); then, while the agent is
    stopped, a peer agent's "me too" and the person's "what did you say?", both mentioning
    it. The rows the restarted agent's turn on the last one got."""
    bot_handle = band.register_agent("Bot")
    peer_handle = band.register_agent("Peer")
    room = band.room(bot_handle, peer_handle)
    calls = [
        ("band_get_participants", {}),
        ("band_send_message", {"mentions": ["@local"]}),
        ("band_send_message", {"content": "2 of us here", "mentions": ["@local"]}),
    ]
    bot = band.run_agent(_Recorder(calls), handle=bot_handle)
    mid = room.say("who is here?", mention=bot)
    settled(room, mid, bot, "processed")
    bot.stop()
    reply = ("band_send_message", {"content": "me too", "mentions": ["@local/bot"]})
    peer = band.run_agent(_Recorder([reply], emit=False), handle=peer_handle)
    mid = room.say("anyone else?", mention=peer)
    settled(room, mid, peer, "processed")
    peer.stop()
    last = room.say("what did you say?", mention=bot_handle)
    again = _Recorder([("band_no_reply", {})])
    band.run_agent(again, handle=bot_handle)  # the stopped agent's messages come on start
    with again.turned:
        assert again.turned.wait_for(lambda: last in again.turns, TIMEOUT)
    return again.turns[last], bot_handle.name
