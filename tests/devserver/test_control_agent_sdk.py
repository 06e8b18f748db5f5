"""Agent-wide agent.control end to end with this SDK's runtime: one push parks every room."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any

from band import Agent
from band.core import SimpleAdapter
from band.runtime.agentconfig import AgentConfig
from band.runtime.sessionconfig import SessionConfig

from .conftest import Live, room_with


class Echo(SimpleAdapter[Any]):
    """Echoes each message; records interrupts per room."""

    def __init__(self) -> None:
        super().__init__()
        self.interrupts: list[tuple[str, str]] = []

    async def on_message(
        self, msg, tools, history, participants_msg, contacts_msg, *, is_session_bootstrap, room_id
    ):  # type: ignore[no-untyped-def]
        await tools.send_message(f"echo: {msg.content}", mentions=[msg.sender_id])

    async def on_interrupt(self, room_id: str, mode: str) -> None:
        self.interrupts.append((room_id, mode))


async def _until(check: Callable[[], Awaitable[Any]], timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not await check():
        assert time.monotonic() < deadline, "condition not met in time"
        await asyncio.sleep(0.05)


def test_agent_wide_stop_parks_every_room_and_play_resumes(live: Live) -> None:
    aid, _, key = live.register("WideEcho")
    rooms = [room_with(live, aid), room_with(live, aid)]

    async def human(method: str, path: str, **kw: Any) -> Any:
        r = await asyncio.to_thread(live.human, method, path, **kw)
        assert r.status_code in (200, 201), r.text
        return r.json()["data"]

    async def say(rid: str, text: str) -> str:
        msg = {"message": {"content": text, "mentions": [{"id": aid}]}}
        return str((await human("POST", f"/api/v1/me/chats/{rid}/messages", json=msg))["id"])

    async def status(rid: str, mid: str) -> str | None:
        rows = await human("GET", f"/api/v1/me/chats/{rid}/messages", params={"limit": 100})
        [m] = [m for m in rows if m["id"] == mid]
        return m["metadata"]["delivery_status"].get(aid, {}).get("status")  # type: ignore[no-any-return]

    async def replies(rid: str) -> list[str]:
        rows = await human("GET", f"/api/v1/me/chats/{rid}/messages", params={"limit": 100})
        return [m["content"] for m in rows if m["sender_id"] == aid and m["message_type"] == "text"]

    async def scenario() -> None:
        adapter = Echo()
        agent = Agent.create(
            adapter=adapter,
            agent_id=aid,
            api_key=key,
            rest_url=live.rest,
            ws_url=live.ws,
            config=AgentConfig(),
            session_config=SessionConfig(idle_resync_seconds=0.3, idle_resync_max_seconds=0.6),
        )
        async with agent:
            warm = await say(rooms[0], "warm")
            await _until(lambda: _eq(status(rooms[0], warm), "processed"))

            await human("POST", f"/api/v1/me/agents/{aid}/control", json={"mode": "stop"})
            await _until(
                lambda: _true(sorted(adapter.interrupts) == sorted((r, "stop") for r in rooms))
            )
            parked = [await say(r, f"parked {i}") for i, r in enumerate(rooms)]
            await asyncio.sleep(0.8)  # idle resyncs run while stopped: nothing is answered
            for rid, mid in zip(rooms, parked, strict=True):
                assert await status(rid, mid) == "delivered"

            await human("POST", f"/api/v1/me/agents/{aid}/control", json={"mode": "play"})
            for rid, mid in zip(rooms, parked, strict=True):
                await _until(lambda rid=rid, mid=mid: _eq(status(rid, mid), "processed"))
        assert sum("parked 0" in c for c in await replies(rooms[0])) == 1
        assert sum("parked 1" in c for c in await replies(rooms[1])) == 1

    asyncio.run(scenario())


async def _true(value: bool) -> bool:
    return value


async def _eq(value: Awaitable[Any], expected: Any) -> bool:
    return await value == expected
