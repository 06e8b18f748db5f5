"""A room whose ``/context`` runs to many pages: the turn sees its newest rows, and a post is
found however deep it is.

``/context`` lists oldest first, by cursor, 100 rows a page at most. Reading its first page
gave a long room's oldest rows to the model; reading at most 20 pages looked for a lost reply
in the wrong place and called it missing.
"""

from __future__ import annotations

import asyncio
from typing import Any
from unittest.mock import ANY

from bandtest.platform import Live, RestartablePlatform, fill_context, say

from band.client.rest import RestClient, RestResponse
from band.runtime.posts import CONTEXT_PAGE
from band.runtime.rooms.answered import answered_in_attempt, count_posts, reply_landed
from band.runtime.rooms.history import RoomHistory
from band.runtime.sessionconfig import SessionConfig

from .conftest import Human, agent_in_room, fast_agent, wait_for
from .test_rooms import Recorder


class CountingRest(RestClient):
    """A REST client that keeps the query of each ``/context`` page it asked for."""

    def __init__(self, *args: Any, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.context_pages: list[dict[str, Any]] = []

    async def request(self, method: str, url: str, **kw: Any) -> RestResponse:
        if url.endswith("/context"):
            self.context_pages.append(dict(kw.get("params") or {}))
        return await super().request(method, url, **kw)


def _texts(rows: list[dict[str, Any]]) -> list[str]:
    return [str(r["content"]).split("]] ")[-1] for r in rows]


def test_history_is_the_newest_rows_and_a_refresh_reads_on(platform: RestartablePlatform) -> None:
    live, aid, key, rid = agent_in_room(platform, "Longtime")
    fill_context(live, aid, key, rid, 260)

    async def scenario() -> None:
        rest = CountingRest(key, live.rest)
        try:
            history = RoomHistory(rest, rid, SessionConfig(max_context_messages=30))
            rows = await history.for_turn("none", refresh=True)
            assert _texts(rows) == [f"old {n}" for n in range(230, 260)]
            assert len(rest.context_pages) == 3  # 100 + 100 + 60: every page once
            assert all(q["limit"] == CONTEXT_PAGE for q in rest.context_pages)
            for n in range(3):
                await asyncio.to_thread(say, live, rid, f"new {n}", aid)
            rest.context_pages.clear()
            rows = await history.for_turn("none", refresh=True)
            assert _texts(rows) == [f"old {n}" for n in range(233, 260)] + [
                f"new {n}" for n in range(3)
            ]
            # the refresh started at the last page read, not at the room's first
            assert len(rest.context_pages) == 1 and rest.context_pages[0].get("cursor")
            assert _texts(await history.for_turn("none", refresh=True))[-1] == "new 2"
        finally:
            await rest.aclose()

    asyncio.run(scenario())


def test_a_reply_deep_in_a_long_room_is_found(platform: RestartablePlatform) -> None:
    """2,050 rows before the message (more than the 20 pages read before): its reply is
    found, by each of the lookups a replay or a retried post makes, and a second lookup of the
    same message starts at its page."""
    live, aid, key, rid = agent_in_room(platform, "Deep")
    fill_context(live, aid, key, rid, 2050, "thought")
    mid = say(live, rid, "please", aid)
    fill_context(live, aid, key, rid, 1)  # "old 0": the agent's answer, after the message

    async def scenario() -> None:
        rest = CountingRest(key, live.rest)
        try:
            assert await reply_landed(rest, rid, aid, mid, ["old 0"])
            first_walk = len(rest.context_pages)
            assert first_walk == 21  # every page up to the message's
            rest.context_pages.clear()
            assert await count_posts(rest, rid, aid, mid, "old 0") == (1, ANY)
            assert len(rest.context_pages) == 1  # from the message's page on
            assert await answered_in_attempt(rest, rid, aid, mid, None)
            assert not await reply_landed(rest, rid, aid, mid, ["old 1"])
        finally:
            await rest.aclose()

    asyncio.run(scenario())


def test_the_turn_sees_the_newest_history_of_a_long_room(platform: RestartablePlatform) -> None:
    """A real agent joining a room with 150 rows of context: its first turn's history is the
    newest ``max_context_messages`` of them, ending with the message before its own."""
    live, aid, key, rid = agent_in_room(platform, "Joiner")
    fill_context(live, aid, key, rid, 150)

    async def scenario() -> None:
        human = Human(live)
        adapter = Recorder()
        async with fast_agent(live, adapter, aid, key, max_context_messages=20):
            mid = await human.send(rid, aid, "what did you say last?")
            await wait_for(lambda: human.status_is(rid, mid, aid, "processed"))
        await human.aclose()
        (turn,) = adapter.inputs
        expected = await asyncio.to_thread(_context_ids, live, key, rid)
        assert mid in expected
        before = expected[: expected.index(mid)]
        assert turn["history"] == before[-20:]

    asyncio.run(scenario())


def _context_ids(live: Live, key: str, rid: str) -> list[str]:
    """Every ``/context`` row id of the room, oldest first, walked by cursor."""
    ids: list[str] = []
    params: dict[str, Any] = {"limit": 100}
    while True:
        r = live.agent(key, "GET", f"/api/v1/agent/chats/{rid}/context", params=params)
        assert r.status_code == 200, r.text
        body = r.json()
        ids += [m["id"] for m in body["data"]]
        if not body["metadata"]["has_more"]:
            return ids
        params["cursor"] = body["metadata"]["next_cursor"]
