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
from band.core.wire import parse_instant
from band.runtime.context_pages import pages_of
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


async def _read(history: RoomHistory) -> list[str]:
    """The texts of the history a turn gets after a read of the room (no message excluded)."""
    return _texts(await history.for_turn("none", refresh=True))


def _texts(rows: list[dict[str, Any]]) -> list[str]:
    return [str(r["content"]).split("]] ")[-1] for r in rows]


def test_history_is_the_newest_rows_and_a_refresh_reads_on(platform: RestartablePlatform) -> None:
    """The newest ``max_context_messages`` of 260 rows, every page read once; a refresh reads
    on from the last page read. A window wider than that page (150 rows: 91 of them before
    it) stays right when rows handled meanwhile push held ones out: no row lost or repeated."""
    live, aid, key, rid = agent_in_room(platform, "Longtime")
    fill_context(live, aid, key, rid, 260)

    async def scenario() -> None:
        rest = CountingRest(key, live.rest)
        try:
            history = RoomHistory(rest, rid, SessionConfig(max_context_messages=30))
            wide = RoomHistory(rest, rid, SessionConfig(max_context_messages=150))
            assert await _read(history) == [f"old {n}" for n in range(230, 260)]
            assert len(rest.context_pages) == 3  # 100 + 100 + 60: every page once
            assert all(q["limit"] == CONTEXT_PAGE for q in rest.context_pages)
            assert await _read(wide) == [f"old {n}" for n in range(110, 260)]
            for n in range(3):
                await asyncio.to_thread(say, live, rid, f"new {n}", aid)
            rest.context_pages.clear()
            assert await _read(history) == [f"old {n}" for n in range(233, 260)] + [
                f"new {n}" for n in range(3)
            ]
            # the refresh started at the last page read, not at the room's first
            assert len(rest.context_pages) == 1 and rest.context_pages[0].get("cursor")
            # rows handled meanwhile push the oldest held ones out; the next read puts the
            # room's newest back (the handled rows are the room's own, read again)
            for n in range(3, 43):
                sent = await asyncio.to_thread(say, live, rid, f"new {n}", aid)
                for held in (history, wide):
                    held.remember({"id": sent, "content": f"new {n}"})
            assert _texts(history.cached())[0] == "new 12"  # 31 held: 12 to 42
            assert await _read(history) == [f"new {n}" for n in range(13, 43)]
            newest = [f"old {n}" for n in range(153, 260)] + [f"new {n}" for n in range(43)]
            assert await _read(wide) == newest
        finally:
            await rest.aclose()

    asyncio.run(scenario())


def _sent_at(live: Live, rid: str, mid: str) -> str:
    """The ``inserted_at`` of message ``mid`` (among the room's newest 100)."""
    rows = live.human("GET", f"/api/v1/me/chats/{rid}/messages", params={"limit": 100})
    return str(next(m for m in rows.json()["data"] if m["id"] == mid)["inserted_at"])


def test_a_reply_deep_in_a_long_room_is_found(platform: RestartablePlatform) -> None:
    """2,050 rows before the message (more than the 20 pages read before): its reply is
    found, by each of the lookups a replay or a retried post makes; later looks start at the
    page that began before the message; a time that places it wrongly costs a full read."""
    live, aid, key, rid = agent_in_room(platform, "Deep")
    fill_context(live, aid, key, rid, 2050, "thought")
    mid = say(live, rid, "please", aid)
    fill_context(live, aid, key, rid, 1)  # "old 0": the agent's answer, after the message
    sent_at = _sent_at(live, rid, mid)

    async def scenario() -> None:
        rest = CountingRest(key, live.rest)
        try:
            assert await reply_landed(rest, rid, aid, mid, ["old 0"], sent_at)
            assert len(rest.context_pages) == 21  # nothing known yet: every page up to it
            rest.context_pages.clear()
            assert await count_posts(rest, rid, aid, mid, "old 0", "text", sent_at) == (1, ANY)
            assert len(rest.context_pages) == 1  # from the page that began before it
            assert await answered_in_attempt(rest, rid, aid, mid, None, sent_at)
            assert not await reply_landed(rest, rid, aid, mid, ["old 1"], sent_at)
            await asyncio.to_thread(fill_context, live, aid, key, rid, 150, "thought")
            rest.context_pages.clear()
            assert await count_posts(rest, rid, aid, mid, "old 0", "text", sent_at) == (1, ANY)
            assert len(rest.context_pages) == 3  # its page, and the new ones after it
            rest.context_pages.clear()
            # a time after the message: the newest page known is tried, then the whole room
            assert await reply_landed(rest, rid, aid, mid, ["old 0"], "2999-01-01T00:00:00Z")
            assert len(rest.context_pages) == 1 + 21  # (it stops at its reply)
            rest.context_pages.clear()
            assert await reply_landed(rest, rid, aid, mid, ["old 0"])  # no time: from the start
            assert len(rest.context_pages) == 21
        finally:
            await rest.aclose()

    asyncio.run(scenario())


def test_the_history_walk_tells_later_looks_where_pages_begin(
    platform: RestartablePlatform,
) -> None:
    """The turn's history walk (every page, at a room's first turn) notes where each page
    begins: a look for a message deep in the room then reads from its page, not from the
    start."""
    live, aid, key, rid = agent_in_room(platform, "Reader")
    fill_context(live, aid, key, rid, 450, "thought")
    mid = say(live, rid, "please", aid)
    fill_context(live, aid, key, rid, 1)
    sent_at = _sent_at(live, rid, mid)

    async def scenario() -> None:
        rest = CountingRest(key, live.rest)
        try:
            await RoomHistory(rest, rid, SessionConfig()).for_turn("none", refresh=True)
            assert len(rest.context_pages) == 5
            rest.context_pages.clear()
            assert await reply_landed(rest, rid, aid, mid, ["old 0"], sent_at)
            assert len(rest.context_pages) == 1
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


def test_reported_failures_deep_in_a_long_room_stay_failed_after_a_restart(
    platform: RestartablePlatform,
) -> None:
    """Ten failures an earlier run reported with error cards, past 2,050 rows of context, then
    a message sent while the agent was away: after the restart only that message runs (each
    card is found, however deep), and the room's pages are read about once, not once a
    failure (each look starts at the page that began before its message)."""
    live, aid, key, rid = agent_in_room(platform, "Restarted")
    fill_context(live, aid, key, rid, 2050, "thought")
    chat = f"/api/v1/agent/chats/{rid}"
    for n in range(10):
        mid = say(live, rid, f"failing {n}", aid)
        assert live.agent(key, "POST", f"{chat}/messages/{mid}/processing").status_code == 200
        card = {"event": {"content": "the turn failed", "message_type": "error"}}
        assert live.agent(key, "POST", f"{chat}/events", json=card).status_code == 201
        failed = {"error": "RuntimeError: boom"}
        r = live.agent(key, "POST", f"{chat}/messages/{mid}/failed", json=failed)
        assert r.status_code == 200
    away = say(live, rid, "while you were away", aid)

    async def scenario() -> None:
        human = Human(live)
        adapter = Recorder()
        agent = fast_agent(live, adapter, aid, key)
        pages = 0
        request = agent.runtime.rest.request

        async def counting(method: str, url: str, **kw: Any) -> Any:
            nonlocal pages
            pages += url.endswith("/context")
            return await request(method, url, **kw)

        agent.runtime.rest.request = counting  # type: ignore[method-assign]
        async with agent:
            await wait_for(lambda: human.status_is(rid, away, aid, "processed"), timeout=60)
        assert len(adapter.inputs) == 1  # the failures were not run again
        assert len(await human.replies(rid, aid, "error")) == 10  # nor reported again
        # the first look reads the 21 pages up to its message; each later one the page that
        # began before its message (its card is there); the turn's history the last 3 (33 in
        # all; reading the room once a failure was 210 and more)
        assert pages <= 21 + 10 + 3, pages
        await human.aclose()

    asyncio.run(scenario())


def test_a_first_history_walk_from_noted_pages_of_another_size_reads_the_room(
    platform: RestartablePlatform,
) -> None:
    """Page starts noted from a walk of smaller pages (10 rows): one of them back yields
    fewer rows than the turn needs, so the history walk reads the room from its first page
    and still gets the newest rows."""
    live, aid, key, rid = agent_in_room(platform, "Odd")
    fill_context(live, aid, key, rid, 150)

    async def scenario() -> None:
        rest = CountingRest(key, live.rest)
        pages = pages_of(rest)
        params: dict[str, Any] = {"limit": 10}
        url = f"/api/v1/agent/chats/{rid}/context"
        while True:  # a walk of 10-row pages, each page's start noted as the runtime's walks do
            body = (await asyncio.to_thread(live.agent, key, "GET", url, params=params)).json()
            if "cursor" in params:
                pages.note(rid, params["cursor"], parse_instant(body["data"][0]["inserted_at"]))
            if not body["metadata"]["has_more"]:
                break
            params["cursor"] = body["metadata"]["next_cursor"]
        assert pages.start_back(rid, 1) is not None
        try:
            history = RoomHistory(rest, rid, SessionConfig(max_context_messages=30))
            assert await _read(history) == [f"old {n}" for n in range(120, 150)]
            assert len(rest.context_pages) == 1 + 2  # the short start, then the whole room
        finally:
            await rest.aclose()

    asyncio.run(scenario())
