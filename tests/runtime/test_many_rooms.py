"""An agent in more rooms than band-sdk reads (50 pages of 100): every room is served.

band-sdk stops its room listing at 50 pages, and ``band dev`` lists rooms oldest first, so an
agent in 5,000+ rooms never hears from its newest ones. The room rows here are written by
``band dev``'s own store (as its API would write them, in one transaction: 5,050 rooms over
HTTP would take most of a minute), then the platform serves them and a real agent starts.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable, Iterator
from pathlib import Path

import pytest
from bandtest.agents import Human, fast_agent, plain, wait_for
from bandtest.platform import RestartablePlatform, restartable_platform, room_with

from band import PlatformMessage
from band.core import AgentToolsProtocol, SimpleAdapter
from band.devserver.store.db import Store
from band.devserver.store.principal import Principal
from band.runtime import runtime as runtime_module

MANY = 5_050  # 51 pages of 100: one page more than band-sdk reads


class Echo(SimpleAdapter[object]):
    """Answers ``echo: <text>``."""

    async def on_message(
        self,
        msg: PlatformMessage,
        tools: AgentToolsProtocol,
        history: object,
        participants_msg: str | None,
        contacts_msg: str | None,
        *,
        is_session_bootstrap: bool,
        room_id: str,
    ) -> None:
        await tools.send_message(f"echo: {plain(msg.content)}", mentions=[msg.sender_id])


@pytest.fixture
def platform(tmp_path: Path) -> Iterator[RestartablePlatform]:
    yield from restartable_platform(tmp_path)


def fill(platform: RestartablePlatform, aid: str, count: int) -> list[str]:
    """``count`` rooms of the local person with agent ``aid`` in each, written while the
    platform is stopped; their ids, oldest first."""
    platform.stop()
    store = Store(platform.db_path)
    try:
        person, _ = store.ensure_local_user(platform.user_key)
        me = Principal("user", person.id, person.name)
        ids = []
        with store.transaction():
            for n in range(count):
                room = store.create_room(me, f"room {n}", None)
                store.add_participant(room.id, person.id, aid, "member")
                ids.append(room.id)
    finally:
        store.db.close()
    platform.start()
    return ids


async def answered(human: Human, rid: str, aid: str, text: str) -> bool:
    """Whether the agent answered ``text`` in the room (Echo says ``echo: <text>``)."""
    return any(plain(m["content"]) == f"echo: {text}" for m in await human.replies(rid, aid))


async def until_answered(human: Human, rid: str, aid: str, text: str) -> None:
    """Wait (a minute at the most) for the agent's answer to ``text`` in the room."""
    await wait_for(lambda: answered(human, rid, aid, text), timeout=60)


#: Heartbeats that wait out a busy start (see below).
PATIENT = {"heartbeat_interval_s": 5.0, "dead_threshold_s": 60.0}


def test_an_agent_in_5050_rooms_joins_and_answers_its_newest(
    platform: RestartablePlatform, caplog: pytest.LogCaptureFixture
) -> None:
    live = platform.running
    aid, _, key = live.register("Busy")
    rooms = fill(platform, aid, MANY)
    newest, oldest, later = rooms[-1], rooms[0], rooms[-2]

    async def scenario() -> None:
        human = Human(live)
        try:
            # waiting before the agent starts: the newest room is past band-sdk's 50 pages
            await human.send(newest, aid, "in the newest room")
            await human.send(oldest, aid, "in the oldest room")
            # 5,050 joins queue ahead of a heartbeat's reply: a loaded 2-core host answered
            # it past the fast policy's 2 s (the socket was dropped mid-start, a heartbeat
            # matter this test is not about)
            async with fast_agent(live, Echo(), aid, key, policy=PATIENT) as agent:
                assert len(agent.runtime.rooms) == MANY
                await until_answered(human, newest, aid, "in the newest room")
                await until_answered(human, oldest, aid, "in the oldest room")
                # a live message in a room past the 50 pages too
                await human.send(later, aid, "live")
                await until_answered(human, later, aid, "live")
            assert len(await human.replies(newest, aid)) == 1
        finally:
            await human.aclose()

    with caplog.at_level(logging.WARNING, "band.runtime"):
        asyncio.run(scenario())
    assert "pages of rooms" not in caplog.text  # nothing was cut


def test_a_listing_cut_at_the_page_bound_warns_and_a_reconnect_keeps_later_rooms(
    platform: RestartablePlatform, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the bound made small: 2 pages of 3 rooms, so 8 rooms overflow it
    monkeypatch.setattr(runtime_module, "ROOM_PAGE_SIZE", 3)
    monkeypatch.setattr(runtime_module, "MAX_ROOM_PAGES", 2)
    live = platform.running
    aid, _, key = live.register("Bounded")
    listed = [room_with(live, aid, title=f"r{n}") for n in range(8)]

    async def scenario() -> None:
        human = Human(live)
        try:
            async with fast_agent(live, Echo(), aid, key) as agent:
                runtime = agent.runtime
                assert set(runtime.rooms) == set(listed[:6])  # the pages read, oldest first
                assert "the platform lists 3 pages of rooms for this agent" in caplog.text
                assert "only the first 2 (6 rooms) are joined" in caplog.text
                # a room the agent is added to while running is joined from its push
                late = await asyncio.to_thread(room_with, live, aid, title="late")
                joined = runtime.subscriptions.subscribed_rooms
                await wait_for(lambda: late in joined(), timeout=30)
                # a reconnect lists the rooms again, cut again: ``late`` is past the pages
                # read, not gone, and stays
                synced = asyncio.Event()
                sync_rooms = runtime._sync_rooms

                async def sync_then_tell(known: Iterable[str] = ()) -> None:
                    await sync_rooms(known)
                    synced.set()

                monkeypatch.setattr(runtime, "_sync_rooms", sync_then_tell)
                assert await asyncio.to_thread(platform.close_socket, aid)
                await asyncio.wait_for(synced.wait(), 60)
                assert late in runtime.rooms
                await human.send(late, aid, "after the reconnect")
                await until_answered(human, late, aid, "after the reconnect")
        finally:
            await human.aclose()

    with caplog.at_level(logging.WARNING, "band.runtime"):
        asyncio.run(scenario())
