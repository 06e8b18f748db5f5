"""A replayed message looks for its earlier reply by exact text, after the message only."""

from __future__ import annotations

import asyncio
from unittest.mock import ANY

from bandtest.platform import RestartablePlatform, room_with, say

from band.client.rest import RestClient
from band.core.wire import MessageRow, decode_as
from band.runtime.rooms.answered import (
    answered_in_attempt,
    attempt_started,
    count_posts,
    is_post_of,
    posted_by,
    reply_landed,
    sent_text,
)
from band.runtime.tools import AgentTools


def test_reply_is_found_by_exact_text_after_its_message(platform: RestartablePlatform) -> None:
    live = platform.live
    assert live is not None
    aid, _, key = live.register("Replayer")
    rid = room_with(live, aid)
    people = live.agent(key, "GET", f"/api/v1/agent/chats/{rid}/participants").json()["data"]
    me = next(p["id"] for p in people if p["id"] != aid)  # the human who made the room

    def agent_says(text: str) -> None:
        body = {"message": {"content": text, "mentions": [{"id": me}]}}
        r = live.agent(key, "POST", f"/api/v1/agent/chats/{rid}/messages", json=body)
        assert r.status_code == 201, r.text

    def human_says(text: str) -> str:
        return say(live, rid, text, aid)

    agent_says("ok")  # before the message: never its reply
    mid = human_says("please do it")
    agent_says("ok, done")

    async def scenario() -> None:
        rest = RestClient(key, live.rest)
        try:
            assert not await reply_landed(rest, rid, aid, mid, ["ok"])
            assert await reply_landed(rest, rid, aid, mid, ["ok, done"])
            assert await reply_landed(rest, rid, aid, mid, ["  ok, done \n", "other"])
            assert not await reply_landed(rest, rid, aid, mid, ["done"])
            assert not await reply_landed(rest, rid, aid, mid, ["", "  "])
            assert not await reply_landed(rest, rid, "someone-else", mid, ["ok, done"])
        finally:
            await rest.aclose()

    asyncio.run(scenario())


def test_stored_mention_tokens_are_not_part_of_the_text() -> None:
    assert sent_text("@[[a-1]] @[[b-2]] hello there") == "hello there"
    assert sent_text("hello @[[a-1]]") == "hello @[[a-1]]"  # only the platform's prefix
    row = MessageRow(id="m", content="@[[h-1]] ok", sender_id="agent", message_type="text")
    assert is_post_of(row, "agent", ["ok"])
    assert not is_post_of(row, "agent", ["o"])
    assert not is_post_of(row, "other", ["ok"])
    event = MessageRow(id="e", content="ok", sender_id="agent", message_type="error")
    assert not is_post_of(event, "agent", ["ok"])


def test_posted_by_reads_the_tools_record(platform: RestartablePlatform) -> None:
    live = platform.live
    assert live is not None
    aid, _, key = live.register("Poster")
    rid = room_with(live, aid)

    async def scenario() -> None:
        rest = RestClient(key, live.rest)
        try:
            tools = AgentTools(rid, rest, agent_id=aid)
            assert posted_by(tools) == []
            participants = await tools.get_participants()
            human = next(p for p in participants if p.get("id") != aid)
            await tools.send_message("first", mentions=[human["id"]])
            assert posted_by(tools) == ["first"]
            assert posted_by(object()) == []  # tools that keep no record: nothing known
        finally:
            await rest.aclose()

    asyncio.run(scenario())


def test_answered_in_attempt_reads_the_open_attempt(platform: RestartablePlatform) -> None:
    """A re-served message counts as answered by an agent text written after its open attempt
    started (not one written before); without an attempt time, by an agent text after the
    message and before the room's next message to the agent. Posts are counted by content."""
    live = platform.live
    assert live is not None
    aid, _, key = live.register("Restarted")
    rid = room_with(live, aid)
    people = live.agent(key, "GET", f"/api/v1/agent/chats/{rid}/participants").json()["data"]
    me = next(p["id"] for p in people if p["id"] != aid)

    def agent_says(text: str, kind: str = "text") -> None:
        if kind == "text":
            body = {"message": {"content": text, "mentions": [{"id": me}]}}
            r = live.agent(key, "POST", f"/api/v1/agent/chats/{rid}/messages", json=body)
        else:
            body = {"event": {"content": text, "message_type": kind}}
            r = live.agent(key, "POST", f"/api/v1/agent/chats/{rid}/events", json=body)
        assert r.status_code == 201, r.text

    def human_says(text: str) -> str:
        return say(live, rid, text, aid)

    def row(mid: str) -> MessageRow:
        r = live.agent(key, "GET", f"/api/v1/agent/chats/{rid}/messages/next")
        assert r.status_code == 200 and r.json()["data"]["id"] == mid, r.text
        return decode_as(MessageRow, r.json()["data"])

    first = human_says("first")
    agent_says("an answer to an earlier turn, written after the message")  # before the mark
    r = live.agent(key, "POST", f"/api/v1/agent/chats/{rid}/messages/{first}/processing")
    assert r.status_code == 200, r.text
    started = attempt_started(row(first), aid)
    assert started is not None

    async def scenario() -> None:
        rest = RestClient(key, live.rest)
        try:
            # written before the attempt started: not this turn's answer
            assert not await answered_in_attempt(rest, rid, aid, first, started)
            agent_says("thinking", "thought")  # an event is no answer
            assert not await answered_in_attempt(rest, rid, aid, first, started)
            agent_says("echo: first")
            assert await answered_in_attempt(rest, rid, aid, first, started)
            assert await count_posts(rest, rid, aid, first, "echo: first") == (1, ANY)
            assert (await count_posts(rest, rid, aid, first, "thinking", "thought"))[0] == 1
            assert (await count_posts(rest, rid, aid, first, "thinking"))[0] == 0
            # no attempt time: the agent's first text after the message decides
            assert await answered_in_attempt(rest, rid, aid, first, None)
            second = human_says("second")
            assert not await answered_in_attempt(rest, rid, aid, second, None)
            third = human_says("third")  # the room's next message came before any answer
            agent_says("echo: third")
            assert not await answered_in_attempt(rest, rid, aid, second, None)
            assert await answered_in_attempt(rest, rid, aid, third, None)
        finally:
            await rest.aclose()

    asyncio.run(scenario())
    # a message with no open attempt has no attempt time
    assert attempt_started(MessageRow(id="m", metadata={}), aid) is None
