"""WebSocket tests over real sockets: Phoenix V2 frames, join auth, routing, conflicts."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

import pytest
import websockets
from websockets.exceptions import InvalidStatus

from band.devserver.logs import RedactKeys, redact

from .conftest import Live, room_with
from .payloads import check_payload

Frame = list[Any]


class Client:
    """A tiny Phoenix V2 client."""

    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self.ref = 0
        self.pushes: list[Frame] = []

    async def send(self, join_ref: str | None, topic: str, event: str) -> str:
        """Send a frame and return its ref."""
        self.ref += 1
        ref = str(self.ref)
        jr = ref if join_ref == "new" else join_ref
        await self.ws.send(json.dumps([jr, ref, topic, event, {}]))
        return ref

    async def recv(self, timeout: float = 3) -> Frame:
        """Receive one frame."""
        return json.loads(await asyncio.wait_for(self.ws.recv(), timeout))

    async def reply(self, ref: str) -> Frame:
        """Wait for the phx_reply with ``ref`` (collecting pushes meanwhile)."""
        while True:
            frame = await self.recv()
            if frame[3] == "phx_reply" and frame[1] == ref:
                return frame
            self.pushes.append(frame)

    async def join(self, topic: str) -> dict[str, Any]:
        """Join ``topic`` and return the reply payload."""
        ref = await self.send("new", topic, "phx_join")
        frame = await self.reply(ref)
        assert frame[0] == ref
        return frame[4]

    async def push(self, event: str, timeout: float = 3) -> Frame:
        """Wait for a server push named ``event``."""
        for i, frame in enumerate(self.pushes):
            if frame[3] == event:
                return self.pushes.pop(i)
        while True:
            frame = await self.recv(timeout)
            if frame[3] == event:
                return frame
            self.pushes.append(frame)

    async def pushed(self, event: str) -> dict[str, Any]:
        """Wait for a push named ``event`` whose payload has that event's schema; the payload."""
        frame = await self.push(event)
        check_payload(event, frame[4])
        return dict(frame[4])

    async def nothing(self, event: str, wait: float = 0.3) -> None:
        """Assert no ``event`` push arrives within ``wait`` seconds."""
        assert all(f[3] != event for f in self.pushes)
        with pytest.raises(TimeoutError):
            while True:
                frame = await self.recv(wait)
                assert frame[3] != event, frame


def connect(live: Live, key: str, *, header: bool = True, query: str = "") -> Any:
    """Open a socket for ``key`` (header or api_key query parameter)."""
    url = live.ws + "?vsn=2.0.0" + query
    if header:
        return websockets.connect(url, additional_headers={"x-api-key": key})
    return websockets.connect(url + f"&api_key={key}")


@asynccontextmanager
async def client(live: Live, key: str, **options: Any) -> AsyncIterator[Client]:
    """A Phoenix client on a socket opened for ``key`` (``options`` as for ``connect``)."""
    async with connect(live, key, **options) as ws:
        yield Client(ws)


def run(coro: Callable[[], Awaitable[None]]) -> None:
    """Run an async test body."""
    asyncio.run(coro())


def test_heartbeat_join_leave(live: Live) -> None:
    aid, _, key = live.register("A")
    bid, _, _ = live.register("B")

    async def body() -> None:
        async with client(live, key) as c:
            ref = await c.send(None, "phoenix", "heartbeat")
            assert await c.reply(ref) == [None, ref, "phoenix", "phx_reply",
                                          {"status": "ok", "response": {}}]  # fmt: skip
            for kind in ("agent_control", "agent_rooms", "agent_contacts"):
                assert (await c.join(f"{kind}:{aid}"))["status"] == "ok"
            denied = await c.join(f"agent_rooms:{bid}")
            assert denied == {"status": "error", "response": {"reason": "unauthorized"}}
            assert (await c.join("chat_room:nope"))["status"] == "error"
            assert (await c.join("bogus"))["response"]["reason"] == "invalid topic"
            ref = await c.send("7", f"agent_rooms:{aid}", "phx_leave")
            frame = await c.reply(ref)
            assert frame[0] == "7" and frame[4]["status"] == "ok"

    run(body)


def test_query_key_and_bad_key(live: Live) -> None:
    aid, _, key = live.register("A")

    async def body() -> None:
        async with connect(live, key, header=False) as ws:
            assert (await Client(ws).join(f"agent_control:{aid}"))["status"] == "ok"
        with pytest.raises(InvalidStatus) as info:
            async with connect(live, "band_a_bad"):
                pass
        resp = info.value.response
        assert resp.status_code == 401
        assert json.loads(resp.body)["error"]["code"] == "unauthorized"

    run(body)


def test_room_membership_pushes(live: Live) -> None:
    aid, _, key = live.register("A")
    bid, _, _ = live.register("B")

    async def body() -> None:
        async with client(live, key) as c:
            await c.join(f"agent_rooms:{aid}")
            created = await asyncio.to_thread(
                live.agent, key, "POST", "/api/v1/agent/chats", json={"chat": {}}
            )
            own = created.json()["data"]["id"]
            frame = await c.push("room_added")
            assert frame[0] is not None and frame[1] is None and frame[4]["id"] == own
            check_payload("room_added", frame[4])
            r = await asyncio.to_thread(live.human, "POST", "/api/v1/me/chats", json={"chat": {}})
            rid = r.json()["data"]["id"]
            assert (await c.join(f"chat_room:{rid}"))["status"] == "error"
            add = {"participant": {"participant_id": aid}}
            url = f"/api/v1/me/chats/{rid}/participants"
            await asyncio.to_thread(live.human, "POST", url, json=add)
            frame = await c.push("room_added")
            assert frame[4]["id"] == rid
            assert (await c.join(f"chat_room:{rid}"))["status"] == "ok"
            assert (await c.join(f"room_participants:{rid}"))["status"] == "ok"
            add_b = {"participant": {"participant_id": bid}}
            await asyncio.to_thread(live.human, "POST", url, json=add_b)
            frame = await c.push("participant_added")
            assert frame[2] == f"room_participants:{rid}" and frame[4]["id"] == bid
            check_payload("participant_added", frame[4])
            await asyncio.to_thread(live.human, "DELETE", f"{url}/{bid}")
            await c.pushed("participant_removed")
            await asyncio.to_thread(live.human, "DELETE", f"{url}/{aid}")
            assert (await c.pushed("room_removed"))["id"] == rid

    run(body)


def test_message_created_routing(live: Live) -> None:
    aid, _, akey = live.register("A")
    bid, _, bkey = live.register("B")
    r = live.human("POST", "/api/v1/me/chats", json={"chat": {}})
    rid = r.json()["data"]["id"]
    for pid in (aid, bid):
        body = {"participant": {"participant_id": pid}}
        live.human("POST", f"/api/v1/me/chats/{rid}/participants", json=body)

    async def body() -> None:
        async with client(live, akey) as a, client(live, bkey) as b:
            for c in (a, b):
                assert (await c.join(f"chat_room:{rid}"))["status"] == "ok"
            msg = {"message": {"content": "hi A", "mentions": [{"id": aid}]}}
            url = f"/api/v1/me/chats/{rid}/messages"
            sent = await asyncio.to_thread(live.human, "POST", url, json=msg)
            mid = sent.json()["data"]["id"]
            frame = await a.push("message_created")
            payload = frame[4]
            check_payload("message_created", payload)
            assert payload["id"] == mid and payload["chat_room_id"] == rid
            assert payload["metadata"]["mentions"][0]["id"] == aid
            await b.nothing("message_created")
            reply = {"message": {"content": "hi B", "mentions": [{"id": bid}]}}
            agent_url = f"/api/v1/agent/chats/{rid}/messages"
            await asyncio.to_thread(live.agent, akey, "POST", agent_url, json=reply)
            echo = await a.push("message_created")
            assert echo[4]["sender_id"] == aid
            got = await b.push("message_created")
            assert got[4]["sender_id"] == aid
            mark = f"/api/v1/agent/chats/{rid}/messages/{mid}/processing"
            await asyncio.to_thread(live.agent, akey, "POST", mark)
            upd = await a.push("message_updated")
            check_payload("message_updated", upd[4])
            assert upd[4]["metadata"]["delivery_status"][aid]["status"] == "processing"

    run(body)


def test_conflict_reject_and_supersede(live: Live) -> None:
    aid, _, key = live.register("A")

    async def body() -> None:
        async with client(live, key) as old:
            await old.join(f"agent_control:{aid}")
            with pytest.raises(InvalidStatus) as info:
                async with connect(live, key, query="&on_conflict=reject"):
                    pass
            assert info.value.response.status_code == 409
            err = json.loads(info.value.response.body)["error"]
            assert err["code"] == "connection_conflict"
            async with connect(live, key) as second:
                frame = await old.push("supersede")
                assert frame[2] == f"agent_control:{aid}"
                check_payload("supersede", frame[4])
                await asyncio.wait_for(old.ws.wait_closed(), 3)
                new = Client(second)
                assert (await new.join(f"agent_control:{aid}"))["status"] == "ok"

    run(body)


def test_query_key_redacted_in_logs() -> None:
    key = "band_a_SECRET-key_123"
    record = logging.LogRecord(
        "uvicorn.error", logging.INFO, __file__, 1, '%s - "WebSocket %s" %s',
        ("127.0.0.1:1", f"/api/v1/socket/websocket?vsn=2.0.0&api_key={key}", "[accepted]"),
        None,
    )  # fmt: skip
    assert RedactKeys().filter(record)
    text = record.getMessage()
    assert key not in text and "api_key=[redacted]" in text
    assert redact(f"key {key} here") == "key band_[redacted] here"


def test_a_frame_too_deep_to_decode_is_dropped_and_the_socket_lives(live: Live) -> None:
    _, _, key = live.register("A")
    deep = '["1", "2", "phoenix", "heartbeat", {"a": ' + "[" * 100_000 + "]" * 100_000 + "}]"

    async def body() -> None:
        async with connect(live, key) as ws:
            await ws.send(deep)  # dropped with a warning, like any malformed frame
            c = Client(ws)
            ref = await c.send(None, "phoenix", "heartbeat")
            assert (await c.reply(ref))[4] == {"status": "ok", "response": {}}

    run(body)


def test_idle_socket_is_closed(live: Live) -> None:
    _, _, key = live.register("A")
    live.app.state.idle_timeout = 0.5

    async def body() -> None:
        async with client(live, key) as c:
            for _ in range(3):  # heartbeats keep it alive
                await asyncio.sleep(0.3)
                await c.reply(await c.send(None, "phoenix", "heartbeat"))
            await asyncio.wait_for(c.ws.wait_closed(), 3)
            assert c.ws.close_code == 1000

    run(body)


def test_access_log_has_one_line_per_join(live: Live, caplog: pytest.LogCaptureFixture) -> None:
    aid, _, key = live.register("A")
    rooms = [room_with(live, aid, title=f"r{i}") for i in range(20)]
    live.app.state.log_joins = True  # band dev --access-log
    caplog.set_level(logging.INFO, logger="band.devserver.joins")

    async def body() -> None:
        async with client(live, key) as c:
            # pipelined, as an agent joining its rooms sends them: served in one burst
            refs = [await c.send("new", f"chat_room:{rid}", "phx_join") for rid in rooms]
            refused = await c.send("new", "chat_room:no-such-room", "phx_join")
            for ref in refs:
                assert (await c.reply(ref))[4]["status"] == "ok"
            assert (await c.reply(refused))[4]["status"] == "error"
            await asyncio.sleep(0.1)  # the burst's record is written after its replies

    run(body)
    lines = [
        line
        for record in caplog.records
        if record.name == "band.devserver.joins"
        for line in record.getMessage().splitlines()
    ]
    # every joined topic once, in the order served; the refused join is not logged
    assert lines == [f"joined agent {aid} chat_room:{rid}" for rid in rooms]
