"""One local platform per test module; agents, rooms and AgentTools bound to them."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import AsyncIterator, Coroutine, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any, TypeVar

import pytest
from bandtest.platform import Live, live_platform, room_with

from band.client.rest import RestClient
from band.runtime.tools import AgentTools

T = TypeVar("T")
_names = itertools.count(1)


@pytest.fixture(scope="module")
def plat() -> Iterator[Live]:
    """A real local Band platform shared by the tests of one module (each makes its own agents)."""
    yield from live_platform()


@dataclass
class Bot:
    """A registered agent."""

    id: str
    handle: str
    key: str
    name: str


@dataclass
class Person:
    """The local person (owner of every room the tests create)."""

    id: str
    handle: str
    name: str


def new_bot(plat: Live, stem: str = "Bot") -> Bot:
    """Register an agent with a unique name."""
    name = f"{stem}{next(_names)}"
    aid, handle, key = plat.register(name)
    return Bot(aid, handle, key, name)


def person(plat: Live) -> Person:
    """The local person's id, handle and name."""
    d = plat.human("GET", "/api/v1/me/profile").json()["data"]
    name = " ".join(x for x in (d.get("first_name"), d.get("last_name")) if x) or d["handle"]
    return Person(d["id"], d["handle"], name)


def new_room(plat: Live, *bots: Bot, admin: Bot | None = None) -> str:
    """A room owned by the local person with ``bots`` in it (and ``admin`` as an admin)."""
    room = room_with(plat, *(b.id for b in bots))
    if admin is not None:
        body = {"participant": {"participant_id": admin.id, "role": "admin"}}
        r = plat.human("POST", f"/api/v1/me/chats/{room}/participants", json=body)
        assert r.status_code == 201, r.text
    return room


def human_messages(plat: Live, room: str) -> list[dict[str, Any]]:
    """Every message and event of ``room`` as the local person sees them, oldest first."""
    r = plat.human("GET", f"/api/v1/me/chats/{room}/messages", params={"page_size": 100})
    assert r.status_code == 200, r.text
    return list(reversed(r.json()["data"]))  # the platform lists newest first


def run(coro: Coroutine[Any, Any, T]) -> T:
    """Run one test coroutine on a fresh event loop."""
    return asyncio.run(coro)


@asynccontextmanager
async def bound(plat: Live, bot: Bot, room: str, **kw: Any) -> AsyncIterator[AgentTools]:
    """AgentTools for ``bot`` in ``room`` over a real RestClient."""
    async with RestClient(bot.key, plat.rest, backoff_base_s=0.01, backoff_max_s=0.02) as rest:
        yield AgentTools(room, rest, agent_id=bot.id, **kw)


async def assert_tool_errors(tools: AgentTools, *cases: tuple[str, dict[str, Any], str]) -> None:
    """Each ``(tool, arguments, message)`` call fails with exactly ``message``."""
    for tool, args, message in cases:
        out = await tools.execute_tool_call_structured(tool, args)
        assert out.error_message == message, (tool, args)
