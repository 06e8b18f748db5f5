"""Runtime tests: real agents against a real local platform over real sockets."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from bandtest.agents import FAST_POLICY, Human, fast_agent, plain, wait_for
from bandtest.platform import Live, RestartablePlatform, restartable_platform, room_with

from band import Agent
from band.core import SimpleAdapter

__all__ = [
    "Echo",
    "FAST_POLICY",
    "agent_in_room",
    "agent_in_rooms",
    "Human",
    "InRoom",
    "fast_agent",
    "in_room",
    "plain",
    "room_with",
    "wait_for",
]


class Echo(SimpleAdapter[Any]):
    """Answers every message with ``echo: <content>``, mentioning its sender."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[str] = []

    async def on_message(
        self, msg, tools, history, participants_msg, contacts_msg, *, is_session_bootstrap, room_id
    ):  # type: ignore[no-untyped-def]
        self.seen.append(msg.id)
        await tools.send_message(f"echo: {msg.content}", mentions=[msg.sender_id])


@pytest.fixture
def platform(tmp_path: Path) -> Iterator[RestartablePlatform]:
    """A restartable local platform on a SQLite file."""
    yield from restartable_platform(tmp_path)


def agent_in_rooms(
    platform: RestartablePlatform, name: str, rooms: int
) -> tuple[Live, str, str, list[str]]:
    """Register agent ``name`` on the running platform and put it in ``rooms`` new rooms.

    Returns (live, agent id, api key, room ids).
    """
    live = platform.running
    aid, _, key = live.register(name)
    return live, aid, key, [room_with(live, aid) for _ in range(rooms)]


def agent_in_room(platform: RestartablePlatform, name: str) -> tuple[Live, str, str, str]:
    """Register agent ``name`` on the running platform and put it in a new room.

    Returns (live, agent id, api key, room id).
    """
    live, aid, key, (rid,) = agent_in_rooms(platform, name, 1)
    return live, aid, key, rid


@dataclass
class InRoom:
    """The person and a registered agent in one room, while a scenario runs."""

    live: Live
    human: Human
    aid: str
    key: str
    rid: str

    def agent(self, adapter: Any, agent_kw: dict[str, Any] | None = None, **session: Any) -> Agent:
        """A fast agent (see ``fast_agent``) as the registered agent."""
        return fast_agent(self.live, adapter, self.aid, self.key, agent_kw, **session)

    async def send(self, text: str) -> str:
        """The person posts ``text`` mentioning the agent; return the message id."""
        return await self.human.send(self.rid, self.aid, text)

    async def reaches(self, mid: str, status: str = "processed") -> None:
        """Wait until the agent's delivery status of ``mid`` is ``status``."""
        # a generous bound: it only ends a failing wait (a loaded 2-core CI host took >10 s once)
        await wait_for(lambda: self.human.status_is(self.rid, mid, self.aid, status), timeout=30)

    async def replies(self, kind: str = "text") -> list[dict[str, Any]]:
        """Messages of type ``kind`` the agent posted in the room."""
        return await self.human.replies(self.rid, self.aid, kind)

    async def texts(self) -> list[str]:
        """Plain texts of the agent's text messages in the room."""
        return [plain(m["content"]) for m in await self.replies()]


def in_room(
    platform: RestartablePlatform, name: str, scenario: Callable[[InRoom], Awaitable[None]]
) -> None:
    """Register agent ``name`` in a new room and run ``scenario`` with the person there."""
    live, aid, key, rid = agent_in_room(platform, name)

    async def run() -> None:
        human = Human(live)
        await scenario(InRoom(live, human, aid, key, rid))
        await human.aclose()

    asyncio.run(run())
