"""ACPClientAdapter inside a real ``Agent``: the runtime delivers @mentions over the socket,
the adapter prompts scripted ACP agent processes, and the runtime judges each turn.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from acp_helpers import agent_command, calls, run
from bandtest.agents import Human, fast_agent, plain, wait_for
from bandtest.platform import Live, live_platform, room_with

from band.adapters import ACPClientAdapter, ACPClientAdapterConfig
from band.core.turn import MISSING_REPLY
from band.integrations.acp.narration import SESSION_EVENT
from band.workspaces import create_room_workspace_resolver


@pytest.fixture(scope="module")
def plat() -> Iterator[Live]:
    """One local platform for this module's tests (each registers its own agent and room)."""
    yield from live_platform()


class Person(Human):
    """The local person, who also reads the agent's messages and events in order."""

    async def agent_events(self, room: str, aid: str) -> list[tuple[str, str]]:
        return [
            (m["message_type"], plain(m["content"]))
            for m in await self.messages(room)
            if m["sender_id"] == aid
        ]


def scenario(
    plat: Live,
    tmp_path: Path,
    body: Callable[[Person, str, str, ACPClientAdapter], Awaitable[None]],
    command: list[str] | None = None,
    **cfg: Any,
) -> None:
    aid, _, key = plat.register("Coder")
    room = room_with(plat, aid)
    config = ACPClientAdapterConfig(command=command or agent_command(), **cfg)
    adapter = ACPClientAdapter(
        config, workspace_for_room=create_room_workspace_resolver(tmp_path / "ws")
    )

    async def main() -> None:
        person = Person(plat)
        try:
            async with fast_agent(plat, adapter, aid, key):
                await body(person, room, aid, adapter)
        finally:
            await person.aclose()

    run(main(), timeout=90)


def session_events_after(events: list[tuple[str, str]], n: int) -> bool:
    return sum(1 for e in events if e == ("task", SESSION_EVENT)) >= n


def test_mention_is_answered_through_band_send_message(plat: Live, tmp_path: Path) -> None:
    async def body(person: Person, room: str, aid: str, adapter: ACPClientAdapter) -> None:
        assert adapter.rooms.rooms == {}  # no process before the room's first message
        await person.send(room, aid, "[[think On it; plan look|answer; say drafting; reply Hi!]]")

        async def done() -> list[tuple[str, str]] | None:
            events = await person.agent_events(room, aid)
            return events if session_events_after(events, 1) else None

        events = await wait_for(done, timeout=30)
        kinds = [k for k, _ in events]
        assert kinds == ["thought", "task", "tool_call", "text", "tool_result", "task"]
        assert events[0] == ("thought", "On it")
        assert events[1] == ("task", "[pending] look\n[pending] answer")
        assert events[3] == ("text", "Hi!")
        assert not any(c == "drafting" for _, c in events)  # held text dropped: it replied
        assert json.loads(events[2][1])["name"] == "band_send_message"
        # the system context told the agent who asked and how to answer
        workspace = adapter.rooms.room(room).workspace
        prompt = next(c["text"] for c in calls(workspace) if c["method"] == "prompt")
        assert "You are Coder" in prompt and "band_no_reply" in prompt
        assert workspace == str((tmp_path / "ws" / room).resolve())

    scenario(plat, tmp_path, body)


def test_text_only_turn_gets_the_missing_reply_error(plat: Live, tmp_path: Path) -> None:
    async def body(person: Person, room: str, aid: str, adapter: ACPClientAdapter) -> None:
        await person.send(room, aid, "[[say The answer is 42]]")

        async def done() -> list[tuple[str, str]] | None:
            events = await person.agent_events(room, aid)
            return events if ("error", MISSING_REPLY) in events else None

        events = await wait_for(done, timeout=30)
        assert events == [
            ("thought", "The answer is 42"),
            ("task", SESSION_EVENT),
            ("error", MISSING_REPLY),
        ]

    scenario(plat, tmp_path, body)


def test_missing_command_fails_the_first_turn_not_the_start(plat: Live, tmp_path: Path) -> None:
    async def body(person: Person, room: str, aid: str, adapter: ACPClientAdapter) -> None:
        # the agent started fine; the room's first message reports the failure
        await person.send(room, aid, "[[reply never]]")
        generic = "Internal error while processing message; see agent logs."

        async def done() -> list[tuple[str, str]] | None:
            events = await person.agent_events(room, aid)
            return events if ("error", generic) in events else None

        events = await wait_for(done, timeout=30)
        assert ("error", MISSING_REPLY) not in events  # the reported failure completes the turn

    scenario(plat, tmp_path, body, command=[str(tmp_path / "no-such-acp-agent")])


def test_interrupt_sends_session_cancel(plat: Live, tmp_path: Path) -> None:
    async def body(person: Person, room: str, aid: str, adapter: ACPClientAdapter) -> None:
        await person.send(room, aid, "[[sleep 60; reply too late]]")

        async def prompting() -> bool:
            state = adapter.rooms.rooms.get(room)
            return bool(state and any(c["method"] == "prompt" for c in calls(state.workspace)))

        await wait_for(prompting, timeout=30)
        started = time.monotonic()
        await person.control(room, aid, "interrupt")
        workspace = adapter.rooms.room(room).workspace

        async def cancelled() -> bool:
            return any(c["method"] == "cancel" for c in calls(workspace))

        await wait_for(cancelled, timeout=10)
        assert time.monotonic() - started < 10
        await asyncio.sleep(0.5)
        assert ("text", "too late") not in await person.agent_events(room, aid)

    scenario(plat, tmp_path, body)


def test_busy_session_is_retried_without_an_error(plat: Live, tmp_path: Path) -> None:
    async def body(person: Person, room: str, aid: str, adapter: ACPClientAdapter) -> None:
        await person.send(room, aid, "[[busy-once b1; reply after busy]]")

        async def done() -> list[tuple[str, str]] | None:
            events = await person.agent_events(room, aid)
            return events if ("text", "after busy") in events else None

        events = await wait_for(done, timeout=30)
        assert not any(k == "error" for k, _ in events)

    scenario(plat, tmp_path, body)
