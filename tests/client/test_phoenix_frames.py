"""PhoenixClient's frame reading against a real websockets server that frames pushes every way
the protocol allows: extended lengths, a frame split across writes, several frames in one
write, pings, fragments, binary frames, text that is not UTF-8 and a close."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

from bandtest.agents import FAST_POLICY, wait_for
from websockets.asyncio.server import ServerConnection, serve

from band.client.phoenix import PhoenixClient, _PushConnection
from band_sdk_core import SessionPolicy

TOPIC = "chat_room:r1"
#: Fast reconnects; heartbeats far apart (the server here answers only the join).
POLICY = SessionPolicy(
    {
        **FAST_POLICY,
        "max_delay_s": 0.2,
        "rapid_cooldown_max_s": 0.2,
        "heartbeat_interval_s": 30.0,
        "dead_threshold_s": 90.0,
    }
)

Script = Callable[[ServerConnection, str], Awaitable[None]]


def frame(opcode: int, payload: bytes, *, fin: bool = True) -> bytes:
    """One unmasked server frame, its length in the shortest of the three encodings."""
    first = (0x80 if fin else 0) | opcode
    size = len(payload)
    if size < 126:
        return bytes([first, size]) + payload
    if size < 1 << 16:
        return bytes([first, 126]) + size.to_bytes(2, "big") + payload
    return bytes([first, 127]) + size.to_bytes(8, "big") + payload


def push(join_ref: str, n: int, pad: int = 0) -> bytes:
    """A ``message_created`` push numbered ``n`` (``pad`` characters of text make it longer)."""
    body = {"n": n, "text": "é" * pad}
    return json.dumps([join_ref, None, TOPIC, "message_created", body]).encode()


class Server:
    """A websockets server that answers one join, then runs ``script`` on the connection."""

    def __init__(self, script: Script) -> None:
        self.script = script
        self.connections = 0
        self.close_codes: list[int | None] = []
        self.done = asyncio.Event()

    async def handle(self, ws: ServerConnection) -> None:
        self.connections += 1
        if self.connections > 1:  # a reconnect after the script: only counted
            await ws.wait_closed()
            return
        join_ref, ref, topic, event, _ = json.loads(await ws.recv())
        assert (topic, event) == (TOPIC, "phx_join")
        reply = [join_ref, ref, topic, "phx_reply", {"status": "ok", "response": {}}]
        await ws.send(json.dumps(reply))
        await self.script(ws, join_ref)
        await ws.wait_closed()
        received = ws.protocol.close_rcvd  # what the client's close frame said
        self.close_codes.append(received.code if received else None)
        self.done.set()


@asynccontextmanager
async def session(script: Script) -> AsyncIterator[tuple[Server, PhoenixClient, list[Any]]]:
    """A client joined to ``TOPIC`` on a server running ``script``; its pushes' payloads."""
    server = Server(script)
    pushes: list[Any] = []
    async with serve(server.handle, "127.0.0.1", 0) as ws_server:
        port = ws_server.sockets[0].getsockname()[1]
        phx = PhoenixClient(f"ws://127.0.0.1:{port}/socket/websocket", api_key="k", policy=POLICY)
        await phx.connect()
        try:
            await phx.join(TOPIC, lambda event, payload: pushes.append(payload))
            yield server, phx, pushes
        finally:
            await phx.close()


def numbers(pushes: list[Any]) -> list[int]:
    return [p["n"] for p in pushes]


def direct(phx: PhoenixClient) -> bool:
    ws = phx._ws
    assert isinstance(ws, _PushConnection)
    return ws._direct


def test_pushes_of_every_length_and_split_across_writes_arrive_in_order() -> None:
    parts: list[bytes] = []

    async def script(ws: ServerConnection, join_ref: str) -> None:
        # three frames in one write: 7-bit, 16-bit and 64-bit lengths (UTF-8 text)
        ws.transport.write(
            frame(1, push(join_ref, 1))
            + frame(1, push(join_ref, 2, pad=500))
            + frame(1, push(join_ref, 3, pad=40_000))
        )
        # one frame cut inside its header, then inside its payload
        whole = frame(1, push(join_ref, 4, pad=300))
        parts.extend([whole[:1], whole[1:3], whole[3:100], whole[100:]])
        for part in parts:
            ws.transport.write(part)
            await asyncio.sleep(0.02)  # separate writes, most likely separate reads
        ws.transport.write(frame(1, push(join_ref, 5)))

    async def scenario() -> None:
        async with session(script) as (_, phx, pushes):
            await wait_for(lambda: len(pushes) == 5)
            assert numbers(pushes) == [1, 2, 3, 4, 5]
            assert len(pushes[2]["text"]) == 40_000
            assert direct(phx)

    asyncio.run(scenario())


def test_a_ping_is_answered_and_direct_reading_goes_on() -> None:
    async def script(ws: ServerConnection, join_ref: str) -> None:
        ws.transport.write(frame(1, push(join_ref, 1)))
        pong = await ws.ping(b"are you there")
        await asyncio.wait_for(pong, 10)  # the client answered the ping
        ws.transport.write(frame(1, push(join_ref, 2)))

    async def scenario() -> None:
        async with session(script) as (_, phx, pushes):
            await wait_for(lambda: len(pushes) == 2)
            assert numbers(pushes) == [1, 2]
            assert direct(phx)

    asyncio.run(scenario())


def test_fragmented_and_binary_frames_go_websockets_way_in_order() -> None:
    async def script(ws: ServerConnection, join_ref: str) -> None:
        text = push(join_ref, 2).decode()
        ws.transport.write(
            frame(1, push(join_ref, 1))
            + frame(1, text[:10].encode(), fin=False)  # one message in three fragments
            + frame(0, text[10:20].encode(), fin=False)
            + frame(0, text[20:].encode())
            + frame(2, push(join_ref, 3))  # a binary frame
            + frame(1, push(join_ref, 4))
        )

    async def scenario() -> None:
        async with session(script) as (_, phx, pushes):
            await wait_for(lambda: len(pushes) == 4)
            assert numbers(pushes) == [1, 2, 3, 4]
            assert not direct(phx)  # the reader task takes every frame after a fragment

    asyncio.run(scenario())


def test_text_that_is_not_utf8_fails_the_connection_after_the_pushes_before_it() -> None:
    async def script(ws: ServerConnection, join_ref: str) -> None:
        ws.transport.write(frame(1, push(join_ref, 1)) + frame(1, b'["\xff"]'))

    async def scenario() -> None:
        async with session(script) as (server, phx, pushes):
            await asyncio.wait_for(server.done.wait(), 10)
            assert server.close_codes == [1007]  # invalid data, as websockets answers it
            assert numbers(pushes) == [1]
            await wait_for(lambda: phx.connections == 2)  # and the session reconnects

    asyncio.run(scenario())


def test_a_close_from_the_server_is_answered_and_the_session_reconnects() -> None:
    async def script(ws: ServerConnection, join_ref: str) -> None:
        ws.transport.write(frame(1, push(join_ref, 1)))
        await ws.close(1012, "restarting")

    async def scenario() -> None:
        async with session(script) as (server, phx, pushes):
            await asyncio.wait_for(server.done.wait(), 10)
            assert server.close_codes == [1012]  # the client echoed the close
            assert numbers(pushes) == [1]
            await wait_for(lambda: phx.connections == 2 and server.connections == 2)

    asyncio.run(scenario())
