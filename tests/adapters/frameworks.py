"""What the framework adapters' end-to-end tests share: the local platform, the scripted model,
an agent started on them, waits on a message's delivery, an interrupt, and a custom tool."""

from __future__ import annotations

import asyncio
import json
import threading
from typing import Any

from pydantic import BaseModel

from band.runtime.sessionconfig import SessionConfig
from band.runtime.tools import TurnEffect
from band.runtime.tools.custom import CustomToolDef, declares_turn_effect
from band.testing import LocalBand, Room, RunningAgent, ScriptedModel, TextTurn, ToolTurn

#: every wait is on a condition; this only bounds a failing test (two shared cores, SDK retries)
TIMEOUT = 60.0


def start(band: LocalBand, adapter: Any, name: str = "Helper") -> tuple[RunningAgent, Room]:
    """Run ``adapter`` as an agent and open a room with it; a failed turn is not run again,
    so each test sees one attempt."""
    bot = band.run_agent(adapter, name=name, session_config=SessionConfig(max_message_retries=0))
    return bot, band.room(bot)


def settled(room: Room, mid: str, bot: RunningAgent, status: str) -> None:
    """Wait until message ``mid``'s delivery to ``bot`` is ``status``."""
    room.wait_for(lambda _: room.delivery_status(mid, bot) == status)


def interrupt(room: Room, bot: RunningAgent) -> None:
    """The person interrupts the agent's running turn in the room (``agent.control``)."""
    body = {"mode": "interrupt", "agent_id": bot.id}
    r = room.person.request("POST", f"/me/chats/{room.id}/control", json=body)
    assert r.status_code < 300, r.text


def events(room: Room, bot: RunningAgent, kind: str) -> list[dict[str, Any]]:
    """The bodies of the ``tool_call`` / ``tool_result`` events ``bot`` posted."""
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
