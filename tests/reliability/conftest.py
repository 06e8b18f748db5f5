"""Fault tests: real agents, the real local platform, real sockets; faults injected around them."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from bandtest import agents
from bandtest.agents import plain
from bandtest.platform import Live, RestartablePlatform, restartable_platform

from band import Agent
from band.core import SimpleAdapter

from .faultproxy import FaultProxy


def agent_on(
    live: Live,
    adapter: SimpleAdapter[Any],
    aid: str,
    key: str,
    *,
    rest: str | None = None,
    **kw: Any,
) -> Agent:
    """An agent on ``live`` (REST through ``rest`` when given) with fast reconnects and resyncs."""
    return agents.fast_agent(live, adapter, aid, key, rest=rest, **kw)


class Echo(SimpleAdapter[Any]):
    """Answers ``echo: <content>``; with ``gate`` set, its first turn waits for it."""

    def __init__(self, gated: bool = False) -> None:
        super().__init__()
        self.seen: list[str] = []
        self.gate = asyncio.Event()
        self.entered = asyncio.Event()
        if not gated:
            self.gate.set()

    async def on_message(
        self, msg, tools, history, participants_msg, contacts_msg, *, is_session_bootstrap, room_id
    ):  # type: ignore[no-untyped-def]
        self.seen.append(msg.id)
        self.entered.set()
        await self.gate.wait()
        await tools.send_message(f"echo: {msg.content}", mentions=[msg.sender_id])


class Human(agents.Human):
    """The local person, with the batch checks the fault tests use."""

    async def reply_texts(self, rid: str, aid: str, kind: str = "text") -> list[str]:
        """Plain texts of the agent's messages of type ``kind``."""
        return [plain(m["content"]) for m in await self.replies(rid, aid, kind)]

    async def statuses(self, rid: str, aid: str, mids: list[str]) -> list[str | None]:
        """The agent's delivery status of each of ``mids``."""
        rows = {m["id"]: m for m in await self.messages(rid)}
        return [
            ((rows.get(mid) or {}).get("metadata") or {})
            .get("delivery_status", {})
            .get(aid, {})
            .get("status")
            for mid in mids
        ]

    async def settled(self, rid: str, aid: str, mids: list[str], status: str = "processed") -> bool:
        """Whether every one of ``mids`` has reached ``status``."""
        return all(s == status for s in await self.statuses(rid, aid, mids))


async def wait_for(
    check: Callable[[], Awaitable[Any] | Any], *, timeout: float = 15.0, interval: float = 0.05
) -> Any:
    """``bandtest.agents.wait_for`` with the longer default a fault needs to clear."""
    return await agents.wait_for(check, timeout=timeout, interval=interval)


async def answered_once(human: Human, rid: str, aid: str, texts: list[str]) -> None:
    """After a quiet moment (a duplicate would land in it): exactly one echo per text."""
    await asyncio.sleep(0.6)
    assert sorted(await human.reply_texts(rid, aid)) == sorted(f"echo: {t}" for t in texts)


@pytest.fixture
def platform(tmp_path: Path) -> Iterator[RestartablePlatform]:
    """A restartable local platform on a SQLite file."""
    yield from restartable_platform(tmp_path)


@pytest.fixture
def proxy(platform: RestartablePlatform) -> Iterator[FaultProxy]:
    """A fault-injecting proxy in front of the platform's REST API."""
    assert platform.live is not None
    fp = FaultProxy(platform.live.rest).start()
    try:
        yield fp
    finally:
        fp.close()
