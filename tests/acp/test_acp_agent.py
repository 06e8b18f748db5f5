"""ACPClientAdapter inside a real ``Agent``: the runtime delivers @mentions over the socket,
the adapter prompts scripted ACP agent processes, and the runtime judges each turn.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from acp_helpers import agent_command, calls, run
from bandtest.platform import Live, live_platform, room_with

from band import Agent
from band.adapters import ACPClientAdapter, ACPClientAdapterConfig
from band.core.turn import MISSING_REPLY
from band.integrations.acp.narration import SESSION_EVENT
from band.runtime.agentconfig import AgentConfig
from band.runtime.sessionconfig import SessionConfig
from band.workspaces import create_room_workspace_resolver
from band_sdk_core import SessionPolicy

MENTION = re.compile(r"@\[\[[^\]]+\]\]\s*")
FAST_POLICY = {
    "base_delay_s": 0.05,
    "factor": 2.0,
    "max_delay_s": 0.4,
    "stable_reset_s": 60.0,
    "rapid_disconnect_uptime_s": 0.5,
    "rapid_window_s": 300.0,
    "rapid_first_min_delay_s": 0.05,
    "rapid_second_min_delay_s": 0.1,
    "rapid_cooldown_base_s": 0.2,
    "rapid_cooldown_step_s": 0.1,
    "rapid_cooldown_max_s": 0.4,
    "rapid_threshold": 200,
    "heartbeat_interval_s": 0.5,
    "dead_threshold_s": 2.0,
}


@pytest.fixture(scope="module")
def plat() -> Iterator[Live]:
    """One local platform for this module's tests (each registers its own agent and room)."""
    yield from live_platform()


def agent_for(plat: Live, adapter: ACPClientAdapter, aid: str, key: str) -> Agent:
    return Agent.create(
        adapter=adapter,
        agent_id=aid,
        api_key=key,
        rest_url=plat.rest,
        ws_url=plat.ws,
        config=AgentConfig(session_policy=SessionPolicy(FAST_POLICY)),
        session_config=SessionConfig(idle_resync_seconds=0.3, idle_resync_max_seconds=0.6),
    )


class Person:
    """The local person over the human API (async, so the agent's loop keeps running)."""

    def __init__(self, plat: Live) -> None:
        self.http = httpx.AsyncClient(
            base_url=plat.rest, headers={"X-API-Key": plat.user_key}, timeout=10
        )

    async def say(self, room: str, aid: str, text: str) -> str:
        body = {"message": {"content": text, "mentions": [{"id": aid}]}}
        r = await self.http.post(f"/api/v1/me/chats/{room}/messages", json=body)
        assert r.status_code == 201, r.text
        return str(r.json()["data"]["id"])

    async def rows(self, room: str) -> list[dict[str, Any]]:
        r = await self.http.get(f"/api/v1/me/chats/{room}/messages", params={"page_size": 100})
        assert r.status_code == 200, r.text
        return sorted(r.json()["data"], key=lambda m: (m["inserted_at"], m["id"]))

    async def agent_events(self, room: str, aid: str) -> list[tuple[str, str]]:
        return [
            (m["message_type"], MENTION.sub("", m["content"]))
            for m in await self.rows(room)
            if m["sender_id"] == aid
        ]

    async def control(self, room: str, aid: str, mode: str) -> None:
        body = {"mode": mode, "agent_id": aid}
        r = await self.http.post(f"/api/v1/me/chats/{room}/control", json=body)
        assert r.status_code == 200, r.text


async def wait_for(check: Callable[[], Awaitable[Any]], timeout: float = 30.0) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        result = await check()
        if result:
            return result
        assert time.monotonic() < deadline, f"not met within {timeout}s: {result!r}"
        await asyncio.sleep(0.1)


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
            async with agent_for(plat, adapter, aid, key):
                await body(person, room, aid, adapter)
        finally:
            await person.http.aclose()

    run(main(), timeout=90)


def session_events_after(events: list[tuple[str, str]], n: int) -> bool:
    return sum(1 for e in events if e == ("task", SESSION_EVENT)) >= n


def test_mention_is_answered_through_band_send_message(plat: Live, tmp_path: Path) -> None:
    async def body(person: Person, room: str, aid: str, adapter: ACPClientAdapter) -> None:
        assert adapter.rooms.rooms == {}  # no process before the room's first message
        await person.say(room, aid, "[[think On it; plan look|answer; say drafting; reply Hi!]]")

        async def done() -> list[tuple[str, str]] | None:
            events = await person.agent_events(room, aid)
            return events if session_events_after(events, 1) else None

        events = await wait_for(done)
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
        await person.say(room, aid, "[[say The answer is 42]]")

        async def done() -> list[tuple[str, str]] | None:
            events = await person.agent_events(room, aid)
            return events if ("error", MISSING_REPLY) in events else None

        events = await wait_for(done)
        assert events == [
            ("thought", "The answer is 42"),
            ("task", SESSION_EVENT),
            ("error", MISSING_REPLY),
        ]

    scenario(plat, tmp_path, body)


def test_missing_command_fails_the_first_turn_not_the_start(plat: Live, tmp_path: Path) -> None:
    async def body(person: Person, room: str, aid: str, adapter: ACPClientAdapter) -> None:
        # the agent started fine; the room's first message reports the failure
        await person.say(room, aid, "[[reply never]]")
        generic = "Internal error while processing message; see agent logs."

        async def done() -> list[tuple[str, str]] | None:
            events = await person.agent_events(room, aid)
            return events if ("error", generic) in events else None

        events = await wait_for(done)
        assert ("error", MISSING_REPLY) not in events  # the reported failure completes the turn

    scenario(plat, tmp_path, body, command=[str(tmp_path / "no-such-acp-agent")])


def test_interrupt_sends_session_cancel(plat: Live, tmp_path: Path) -> None:
    async def body(person: Person, room: str, aid: str, adapter: ACPClientAdapter) -> None:
        await person.say(room, aid, "[[sleep 60; reply too late]]")

        async def prompting() -> bool:
            state = adapter.rooms.rooms.get(room)
            return bool(state and any(c["method"] == "prompt" for c in calls(state.workspace)))

        await wait_for(prompting)
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
        await person.say(room, aid, "[[busy-once b1; reply after busy]]")

        async def done() -> list[tuple[str, str]] | None:
            events = await person.agent_events(room, aid)
            return events if ("text", "after busy") in events else None

        events = await wait_for(done)
        assert not any(k == "error" for k, _ in events)

    scenario(plat, tmp_path, body)
