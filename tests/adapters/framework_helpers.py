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

from band.adapters._model import GENERIC_PROVIDER_FAILURE_MESSAGE
from band.runtime.sessionconfig import SessionConfig
from band.runtime.tools import TurnEffect
from band.runtime.tools.custom import CustomToolDef, declares_turn_effect
from band.testing import (
    AgentHandle,
    LocalBand,
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
