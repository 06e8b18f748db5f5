"""What the human tools send: query filters and bodies, recorded on the way to the real platform."""

from __future__ import annotations

import asyncio
import contextlib
import json
from datetime import UTC, datetime
from typing import Any

import httpx
from bandtest.platform import Live
from mcp_harness import room_with

from band.client.errors import NotFoundError
from band.client.rest import RestClient
from band.mcp import human_tools as h


class Recorder(httpx.AsyncBaseTransport):
    """Forwards every request to the platform and keeps a copy."""

    def __init__(self) -> None:
        self.inner = httpx.AsyncHTTPTransport()
        self.requests: list[httpx.Request] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        return await self.inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self.inner.aclose()


def record(plat: Live, call: Any) -> list[httpx.Request]:
    """Run ``call(HumanTools)`` against the platform; the requests it made."""
    rec = Recorder()

    async def go() -> None:
        async with RestClient(plat.user_key, plat.rest, transport=rec) as rest:
            await call(h.HumanTools(rest))

    asyncio.run(go())
    return rec.requests


def test_filters_reach_the_query(plat: Live) -> None:
    room = room_with(plat)
    since = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)

    async def calls(t: h.HumanTools) -> None:
        await t.run(
            h.TOOLS["band_list_my_chat_messages"],
            h.ListMyChatMessages(chat_id=room, message_type="text", since=since, page_size=5),
        )
        await t.run(
            h.TOOLS["band_list_my_peers"],
            h.ListMyPeers(not_in_chat=room, peer_type="Agent", page=2),
        )
        await t.run(
            h.TOOLS["band_list_user_memories"],
            h.ListUserMemories(memory_type="semantic", status="all"),
        )
        await t.run(
            h.TOOLS["band_list_sent_contact_requests"], h.ListSentContactRequests(status="all")
        )

    reqs = record(plat, calls)
    queries = [dict(r.url.params) for r in reqs]
    assert queries[0] == {
        "message_type": "text",
        "since": "2026-01-02T03:04:05+00:00",
        "page_size": "5",
    }
    assert queries[1] == {"not_in_chat": room, "type": "Agent", "page": "2"}
    assert queries[2] == {"type": "semantic", "status": "all"}
    assert queries[3] == {"status": "all"}


def test_bodies(plat: Live) -> None:
    aid, _, _ = plat.register("Body")
    room = room_with(plat, aid)

    async def calls(t: h.HumanTools) -> None:
        await t.run(
            h.TOOLS["band_send_my_chat_message"],
            h.SendMyChatMessage(chat_id=room, content="hey", recipients="body"),
        )
        with contextlib.suppress(NotFoundError):  # no such contact: only the body matters
            await t.run(
                h.TOOLS["band_remove_my_contact"], h.RemoveMyContact(contact_id="c-1", handle="@x")
            )
        await t.run(h.TOOLS["band_create_my_chat_room"], h.CreateMyChatRoom())

    reqs = record(plat, calls)
    bodies = [json.loads(r.content) for r in reqs if r.method != "GET"]
    assert bodies[0] == {"message": {"content": "hey", "mentions": [{"id": aid, "name": "Body"}]}}
    # contact_id wins when both are given
    assert bodies[1] == {"contact_id": "c-1"}
    assert bodies[2] == {"chat": {}}
    # the participant list was read (all pages) before the send
    assert reqs[0].method == "GET" and reqs[0].url.path.endswith(f"/me/chats/{room}/participants")
    assert all("X-API-Key" in r.headers for r in reqs)
