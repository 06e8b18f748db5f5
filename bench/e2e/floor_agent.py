"""The e2e bench's floor: the fewest Python steps that answer a message over Band's wire protocol.

Not an SDK and not for use: it answers the bench's happy path only (no reconnect, no retry, no
backlog drain, no exactly-once bookkeeping, no validation, no tools, no history). What it does
is what any Band agent must do per answered message, written by hand on raw asyncio protocols:

- read the ``message_created`` push of the person's message from the socket (a WebSocket frame
  parsed by hand, the payload by msgspec; every other push is dropped on a byte search);
- ``POST .../processing``, ``POST .../messages`` (the echo), ``POST .../processed``, one after
  the other, on a keep-alive HTTP/1.1 connection of the room's, each answer sized by its
  Content-Length.

Its CPU per answered message (``run.py --only floor,flooruv``) is what the protocol costs in
Python on this machine: the socket reads and writes, the loop's wakeups, three requests and
four pushes. An SDK's figure over it is what the SDK adds. Started by the harness like
echo_agent.py (``BAND_E2E_AGENT_ID``, ``BAND_E2E_AGENT_KEY``, ``BAND_REST_URL``,
``BAND_WS_URL``); uvloop unless ``BAND_UVLOOP=0``.
"""

from __future__ import annotations

import asyncio
import base64
import os
import struct
import sys
from collections.abc import Coroutine
from typing import Any, cast
from urllib.parse import urlsplit

import msgspec

DECODE = msgspec.json.Decoder().decode
ENCODE = msgspec.json.Encoder().encode


#: One read buffer for the process (one loop, one read at a time): asyncio's loop would
#: otherwise hand a plain Protocol each read as a fresh 256 KiB ``bytes``. The same as
#: band.client.reads.BufferedReads, written again on purpose: importing it imports ``band``
#: (about 226 modules, the SDK and its core), which the floor must not carry.
READ = memoryview(bytearray(64 * 1024))


class Reads(asyncio.BufferedProtocol):
    """Reads into ``READ``, each passed on to ``data_received`` as ``bytes``."""

    def data_received(self, data: bytes) -> None:
        raise NotImplementedError

    def get_buffer(self, sizehint: int) -> memoryview:
        return READ

    def buffer_updated(self, nbytes: int) -> None:
        self.data_received(READ[:nbytes].tobytes())


class Http(Reads):
    """One keep-alive HTTP/1.1 connection: one request at a time, answers sized by length."""

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.buf = bytearray()
        self.start = 0  # where the answer's body starts, once its head is read
        self.want = -1  # the answer's total size, once its head is read
        self.status = 0
        self.done: asyncio.Future[tuple[int, bytes]] | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)  # uvloop's is not a subclass

    def data_received(self, data: bytes) -> None:
        buf = self.buf
        buf += data
        if self.want < 0:
            end = buf.find(b"\r\n\r\n")
            if end < 0:
                return
            head = bytes(buf[:end]).lower()
            self.status = int(head[9:12])
            at = head.find(b"content-length:")
            size = int(head[at + 15 : head.find(b"\r\n", at)]) if at >= 0 else 0
            self.start = end + 4
            self.want = self.start + size
        if len(buf) >= self.want:
            body = bytes(buf[self.start : self.want])
            del buf[: self.want]
            self.want = -1
            done, self.done = self.done, None
            if done is not None:
                done.set_result((self.status, body))

    def connection_lost(self, exc: Exception | None) -> None:
        if self.done is not None and not self.done.done():
            self.done.set_exception(ConnectionError("the platform closed the connection"))

    def send(self, request: bytes) -> asyncio.Future[tuple[int, bytes]]:
        """Write ``request``; the future is the answer's status and body."""
        assert self.transport is not None
        self.done = asyncio.get_running_loop().create_future()
        self.transport.write(request)
        return self.done


class Floor:
    """The agent: a socket for pushes, keep-alive connections per room for its requests."""

    def __init__(self, agent_id: str, key: str, rest: str, ws: str) -> None:
        self.agent_id = agent_id
        self.key = key
        url = urlsplit(rest)
        self.host, self.port = url.hostname or "127.0.0.1", url.port or 80
        self.ws = urlsplit(ws)
        self.head = f"Host: {self.host}:{self.port}\r\nX-API-Key: {key}\r\n".encode()
        self.lines: dict[str, list[Http]] = {}  # each room's idle connections
        self.transport: asyncio.Transport | None = None
        self.ref = 0
        self.joined: set[str] = set()
        self.answered: set[str] = set()
        self.replies: dict[str, asyncio.Future[None]] = {}
        self.tasks: set[asyncio.Task[None]] = set()

    async def request(self, room: str, method: bytes, path: str, body: bytes = b"") -> bytes:
        """One request on an idle connection of the room's (else a new one); the answer's body."""
        idle = self.lines.setdefault(room, [])  # a room's requests may overlap (push, /next)
        line = idle.pop() if idle else None
        if line is None or line.transport is None or line.transport.is_closing():
            loop = asyncio.get_running_loop()
            _, line = await loop.create_connection(Http, self.host, self.port)
        status, answer = await line.send(
            method
            + b" /api/v1"
            + path.encode()
            + b" HTTP/1.1\r\n"
            + self.head
            + b"Content-Type: application/json\r\nContent-Length: "
            + str(len(body)).encode()
            + b"\r\n\r\n"
            + body
        )
        idle.append(line)
        if status >= 400:
            raise RuntimeError(f"{method.decode()} {path}: {status} {answer[:300]!r}")
        return answer

    def send_frame(self, text: bytes, first: int = 0x81) -> None:
        """A masked frame, text unless ``first`` (FIN and opcode) says otherwise (the mask is
        random per frame, as RFC 6455 asks of a client)."""
        assert self.transport is not None
        mask = os.urandom(4)
        size = len(text)
        if size < 126:
            head = struct.pack("!BB", first, 0x80 | size)
        elif size < 65536:
            head = struct.pack("!BBH", first, 0x80 | 126, size)
        else:
            head = struct.pack("!BBQ", first, 0x80 | 127, size)
        key = int.from_bytes((mask * (size // 4 + 1))[:size], "big")
        masked = (int.from_bytes(text, "big") ^ key).to_bytes(size, "big") if size else b""
        self.transport.write(head + mask + masked)

    def join(self, topic: str) -> asyncio.Future[None]:
        """Send the topic's join; the future is its answer."""
        self.ref += 1
        ref = str(self.ref)
        self.replies[ref] = asyncio.get_running_loop().create_future()
        self.send_frame(ENCODE([ref, ref, topic, "phx_join", {}]))
        return self.replies[ref]

    async def join_room(self, room: str) -> None:
        """Join the room's topic once, then answer what it holds already (pushed before)."""
        if room in self.joined:
            return
        self.joined.add(room)
        await self.join(f"chat_room:{room}")
        body = await self.request(room, b"GET", f"/agent/chats/{room}/messages/next")
        if body:  # 204: nothing waits
            await self.answer(room, DECODE(body)["data"])

    def spawn(self, work: Coroutine[Any, Any, None]) -> None:
        """Run ``work`` as a task (kept until done; its failure is printed)."""
        task = asyncio.get_running_loop().create_task(work)
        self.tasks.add(task)
        task.add_done_callback(self.done)

    def done(self, task: asyncio.Task[None]) -> None:
        """Forget a finished task; print what failed."""
        self.tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            print(f"floor agent: {task.exception()!r}", file=sys.stderr, flush=True)

    def on_frame(self, text: bytes) -> None:
        """A push: the person's message starts its answer; a new room is joined; else dropped."""
        if b'"message_created"' in text:
            _, _, topic, _, m = DECODE(text)
            if m["sender_type"] == "Agent" and m["sender_id"] == self.agent_id:
                return  # our own echo
            self.spawn(self.answer(topic[10:], m))
        elif b'"phx_reply"' in text:
            reply = self.replies.pop(DECODE(text)[1], None)
            if reply is not None:
                reply.set_result(None)
        elif b'"room_added"' in text:
            self.spawn(self.join_room(DECODE(text)[4]["id"]))

    async def answer(self, room: str, m: dict[str, Any]) -> None:
        """Mark the message processing, post the echo, mark it processed."""
        mid = m["id"]
        if mid in self.answered:  # pushed and served by /next both
            return
        self.answered.add(mid)
        base = f"/agent/chats/{room}/messages"
        await self.request(room, b"POST", f"{base}/{mid}/processing")
        mention = {"id": m["sender_id"]}
        text = {"message": {"content": f"echo: {m['content']}", "mentions": [mention]}}
        await self.request(room, b"POST", base, ENCODE(text))
        await self.request(room, b"POST", f"{base}/{mid}/processed")

    async def run(self) -> None:
        """Connect, join the agent's rooms, answer until the process is stopped."""
        loop = asyncio.get_running_loop()
        frames = Frames(self)
        host = self.ws.hostname or self.host
        await loop.create_connection(lambda: frames, host, self.ws.port or 80)
        await frames.upgraded
        await self.join(f"agent_rooms:{self.agent_id}")
        listed = DECODE(await self.request("", b"GET", "/agent/chats?page_size=100"))
        for room in listed["data"]:
            self.spawn(self.join_room(room["id"]))
        while True:  # the platform drops a socket without heartbeats
            await asyncio.sleep(25)
            self.ref += 1
            self.send_frame(ENCODE([None, str(self.ref), "phoenix", "heartbeat", {}]))


class Frames(Reads):
    """The socket: the upgrade, then unmasked server frames handed to ``Floor.on_frame``."""

    def __init__(self, floor: Floor) -> None:
        self.floor = floor
        self.buf = bytearray()
        self.upgraded: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        floor = self.floor
        floor.transport = transport = cast(asyncio.Transport, transport)
        ws = floor.ws
        nonce = base64.b64encode(os.urandom(16)).decode()
        transport.write(
            f"GET {ws.path}?vsn=2.0.0&agent_id={floor.agent_id} HTTP/1.1\r\n"
            f"Host: {ws.hostname}:{ws.port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Key: {nonce}\r\nSec-WebSocket-Version: 13\r\n"
            f"x-api-key: {floor.key}\r\n\r\n".encode()
        )

    def data_received(self, data: bytes) -> None:
        buf = self.buf
        buf += data
        if not self.upgraded.done():
            end = buf.find(b"\r\n\r\n")
            if end < 0:
                return
            if not buf.startswith(b"HTTP/1.1 101"):
                self.upgraded.set_exception(RuntimeError(bytes(buf[:200]).decode()))
                return
            del buf[: end + 4]
            self.upgraded.set_result(None)
        on_frame = self.floor.on_frame
        while len(buf) >= 2:
            size = buf[1] & 0x7F
            at = 2
            if size == 126:
                if len(buf) < 4:
                    return
                size, at = int.from_bytes(buf[2:4], "big"), 4
            elif size == 127:
                if len(buf) < 10:
                    return
                size, at = int.from_bytes(buf[2:10], "big"), 10
            if len(buf) < at + size:
                return
            opcode = buf[0] & 0x0F
            payload = bytes(buf[at : at + size])
            del buf[: at + size]
            if opcode == 1:
                on_frame(payload)
            elif opcode == 9:  # uvicorn pings every 20 s and closes a socket that never pongs
                self.floor.send_frame(payload, first=0x8A)
            elif opcode == 8:  # the platform closed the socket: the harness stops this process
                assert self.floor.transport is not None
                self.floor.transport.close()
                return


def main() -> None:
    """Run the floor agent with the harness's environment."""
    floor = Floor(
        os.environ["BAND_E2E_AGENT_ID"],
        os.environ["BAND_E2E_AGENT_KEY"],
        os.environ["BAND_REST_URL"],
        os.environ["BAND_WS_URL"],
    )
    if os.environ.get("BAND_UVLOOP") != "0":
        import uvloop

        uvloop.run(floor.run())
    else:
        asyncio.run(floor.run())


if __name__ == "__main__":
    main()
