"""One key cannot take every connection: band dev caps the open WebSockets of each API key
(``Limits.max_sockets_per_key``, 100 by default: a person's tabs of the web view; an agent holds
one, a newer connection supersedes it). Past the cap the upgrade is answered 429 with
``retry_after`` (what Band's SDK waits out before retrying); every other client is served."""

from __future__ import annotations

import asyncio
import contextlib
import json

import websockets
from bandtest.platform import Live
from websockets.exceptions import InvalidStatus

from band.serving import Limits

#: the cap of this test's platform, set low so the test opens a handful of sockets, not 100
CAP = 4


def _url(live: Live) -> str:
    return live.ws + "?vsn=2.0.0"


def test_the_default_is_one_a_person_never_meets() -> None:
    assert Limits().max_sockets_per_key == 100
    assert Limits().max_sockets_per_key * 5 <= Limits().max_connections


def test_a_key_at_its_cap_is_refused_while_others_are_served(live: Live) -> None:
    live.app.state.sockets_per_key = CAP
    _, _, agent_key = live.register("Other")
    person = {"x-api-key": live.user_key}

    async def body() -> None:
        async with contextlib.AsyncExitStack() as held:
            for _ in range(CAP):
                await held.enter_async_context(
                    websockets.connect(_url(live), additional_headers=person)
                )
            try:
                async with websockets.connect(_url(live), additional_headers=person):
                    raise AssertionError("a socket past the key's cap was accepted")
            except InvalidStatus as exc:
                refused = exc.response
            assert refused.status_code == 429
            err = json.loads(refused.body or b"{}")["error"]
            assert err["code"] == "too_many_connections" and err["retry_after"] > 0
            # another key's socket and another client's REST call are served meanwhile
            async with websockets.connect(
                _url(live), additional_headers={"x-api-key": agent_key}
            ) as ws:
                await ws.send(json.dumps([None, "1", "phoenix", "heartbeat", {}]))
                reply = json.loads(await asyncio.wait_for(ws.recv(), 30))
                assert reply[3] == "phx_reply" and reply[4]["status"] == "ok"
            room = await asyncio.to_thread(
                live.human, "POST", "/api/v1/me/chats", json={"chat": {"title": "served"}}
            )
            assert room.status_code == 201, room.text
        # the key's sockets closed: the count follows the closes and the key connects again
        fanout = live.app.state.fanout
        deadline = asyncio.get_running_loop().time() + 30
        while fanout.sockets_of(live.app.state.user_id) >= CAP:
            assert asyncio.get_running_loop().time() < deadline, "closed sockets still counted"
            await asyncio.sleep(0.05)
        async with websockets.connect(_url(live), additional_headers=person):
            pass

    asyncio.run(body())
