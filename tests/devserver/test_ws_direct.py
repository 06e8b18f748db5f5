"""The socket pushes' send path (``band.serving.ws.DirectSendProtocol`` and the fan-out) over
real WebSockets: the bytes a raw client reads, order under backpressure, a socket that goes
away, permessage-deflate. Each wire test runs on band dev served with the direct send and with
uvicorn's plain ``websockets-sansio`` (the app's ASGI send): both must put the same bytes on
the wire."""

from __future__ import annotations

import asyncio
import base64
import json
import os
import socket
import struct
import threading
import time
from collections.abc import Callable, Coroutine, Iterator
from concurrent.futures import Future
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, TypeVar

import httpx
import msgspec
import pytest
import uvicorn
import websockets
from websockets.frames import OP_CLOSE, OP_TEXT, Close, Frame

from band.core.wire import ReplyPayload, encode_frame
from band.devserver.app import create_app
from band.devserver.socket import fanout as fanout_module
from band.devserver.socket.fanout import Connection, Fanout, _encode_ref, push_tail
from band.serving import guarded_config
from band.serving.ws import DIRECT_SEND, DirectSendProtocol

from .conftest import room_with, say

T = TypeVar("T")
PROTOCOLS = {"direct": DirectSendProtocol, "asgi": "websockets-sansio"}


@dataclass
class Served:
    """band dev served from a thread; ``call`` runs a coroutine on its event loop."""

    app: Any
    rest: str
    port: int
    loop: asyncio.AbstractEventLoop
    http: httpx.Client
    direct: bool  # served with DirectSendProtocol

    def call(self, make: Callable[[], Coroutine[Any, Any, T]], timeout: float = 30) -> T:
        """Run ``make()`` on the server's loop and return its result."""
        return asyncio.run_coroutine_threadsafe(make(), self.loop).result(timeout)

    def start(self, make: Callable[[], Coroutine[Any, Any, T]]) -> Future[T]:
        """Start ``make()`` on the server's loop."""
        return asyncio.run_coroutine_threadsafe(make(), self.loop)

    def human(self, method: str, path: str, **kw: Any) -> httpx.Response:
        """Call the human API with the local user key."""
        headers = {"X-API-Key": self.app.state.user_key}
        return self.http.request(method, self.rest + path, headers=headers, **kw)

    def register(self, name: str) -> tuple[str, str]:
        """Register an agent; (id, api key)."""
        body = {"agent": {"name": name, "description": f"{name} agent"}}
        r = self.human("POST", "/api/v1/me/agents/register", json=body)
        assert r.status_code == 201, r.text
        data = r.json()["data"]
        return data["agent"]["id"], data["credentials"]["api_key"]

    @property
    def fanout(self) -> Fanout:
        """The app's connection registry."""
        fanout: Fanout = self.app.state.fanout
        return fanout


@contextmanager
def serving(ws: Any) -> Iterator[Served]:
    """band dev (in-memory DB) on a free 127.0.0.1 port with WebSocket protocol ``ws``."""
    app = create_app()
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(guarded_config(app, log_level="warning", ws=ws, lifespan="on"))
    loops: list[asyncio.AbstractEventLoop] = []

    async def serve() -> None:
        loops.append(asyncio.get_running_loop())
        await server.serve(sockets=[sock])

    thread = threading.Thread(target=asyncio.run, args=(serve(),), daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        assert time.monotonic() < deadline, "band dev did not start"
        time.sleep(0.01)
    with httpx.Client(timeout=10) as http:
        rest = f"http://127.0.0.1:{port}"
        yield Served(app, rest, port, loops[0], http, ws is DirectSendProtocol)
    server.should_exit = True
    thread.join(10)
    sock.close()


@pytest.fixture(params=list(PROTOCOLS))
def served(request: pytest.FixtureRequest) -> Iterator[Served]:
    """band dev with the direct send, and with uvicorn's plain protocol."""
    with serving(PROTOCOLS[request.param]) as s:
        yield s


class RawClient:
    """A WebSocket client on a plain socket: it reads frames only when asked, byte for byte."""

    def __init__(self, served: Served, key: str, *, rcvbuf: int | None = None) -> None:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        if rcvbuf is not None:  # before connect: the window the server may fill
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        self.sock.settimeout(20)
        self.sock.connect(("127.0.0.1", served.port))
        nonce = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall(
            (
                "GET /api/v1/socket/websocket?vsn=2.0.0 HTTP/1.1\r\n"
                f"Host: 127.0.0.1:{served.port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                f"Sec-WebSocket-Key: {nonce}\r\nSec-WebSocket-Version: 13\r\n"
                f"x-api-key: {key}\r\n\r\n"
            ).encode()
        )
        self.buf = b""
        head = self._until(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 101"), head
        assert b"sec-websocket-extensions" not in head.lower()  # none offered, none used

    def _until(self, mark: bytes) -> bytes:
        while mark not in self.buf:
            self._more()
        head, self.buf = self.buf.split(mark, 1)
        return head

    def _more(self) -> None:
        chunk = self.sock.recv(1 << 16)
        if not chunk:
            raise EOFError("the server closed the connection")
        self.buf += chunk

    def _take(self, n: int) -> bytes:
        while len(self.buf) < n:
            self._more()
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def send_text(self, text: str) -> None:
        """One masked text frame, as a client must send it."""
        self.sock.sendall(Frame(OP_TEXT, text.encode()).serialize(mask=True))

    def read_frame(self) -> tuple[bytes, bytes]:
        """The next frame as (its bytes on the wire, its payload)."""
        head = self._take(2)
        n = head[1] & 0x7F
        assert not head[1] & 0x80  # a server never masks
        ext = b""
        if n == 126:
            ext = self._take(2)
            n = struct.unpack("!H", ext)[0]
        elif n == 127:
            ext = self._take(8)
            n = struct.unpack("!Q", ext)[0]
        payload = self._take(n)
        return head + ext + payload, payload

    def join(self, topic: str, join_ref: str) -> None:
        """Join ``topic`` with ``join_ref`` (also the ref) and check the reply's exact bytes."""
        self.send_text(json.dumps([join_ref, join_ref, topic, "phx_join", {}]))
        wire, payload = self.read_frame()
        reply = ReplyPayload(status="ok", response={})
        assert payload == encode_frame(join_ref, join_ref, topic, "phx_reply", reply)
        assert wire == Frame(OP_TEXT, payload).serialize(mask=False)

    def close(self) -> None:
        """Close the TCP connection."""
        self.sock.close()


def _connection(served: Served, agent_id: str) -> Connection:
    """The server's live connection of ``agent_id``."""

    async def find() -> Connection:
        conn = served.fanout.agent_connected(agent_id)
        assert conn is not None
        return conn

    return served.call(find)


def test_push_tail_gives_encode_frames_bytes() -> None:
    class Row(msgspec.Struct):
        id: str
        n: int

    payloads: list[Any] = [{"a": [1, None, "é"]}, Row("r1", 3), msgspec.Raw(b'{"x":true}'), {}]
    for join_ref in (None, "1", "phx_42", 'we"ird\\ ü'):
        for payload in payloads:
            frame = b"[" + _encode_ref(join_ref) + push_tail("chat_room:r", "ev", payload)
            assert frame == encode_frame(join_ref, None, "chat_room:r", "ev", payload)


def test_the_direct_send_is_offered_by_its_protocol_only(served: Served) -> None:
    aid, key = served.register("A")
    raw = RawClient(served, key)
    try:
        raw.join(f"agent_control:{aid}", "1")
        offered = _connection(served, aid).ws.scope["extensions"].get(DIRECT_SEND)
        if served.direct:
            assert isinstance(offered["protocol"], DirectSendProtocol)
        else:
            assert offered is None
    finally:
        raw.close()


def test_pushes_are_the_frames_websockets_writes(served: Served) -> None:
    """7-bit, 16-bit and 64-bit lengths; the same bytes whichever protocol serves."""
    aid, key = served.register("A")
    topic = f"agent_control:{aid}"
    raw = RawClient(served, key)
    try:
        raw.join(topic, "12")
        payloads = [{"n": 0}, {"n": 1, "pad": "x" * 300}, {"n": 2, "pad": "é" * 40_000}]

        async def push() -> None:
            for payload in payloads:
                await served.fanout.push(topic, "probe", payload)

        served.call(push)
        for payload in payloads:
            wire, data = raw.read_frame()
            assert data == encode_frame("12", None, topic, "probe", payload)
            assert wire == Frame(OP_TEXT, data).serialize(mask=False)
        assert [len(p) for p in map(msgspec.json.encode, payloads)][2] >= 65536  # 64-bit length
    finally:
        raw.close()


def test_pushes_keep_their_order_when_the_client_reads_slowly(served: Served) -> None:
    """A client that does not read fills the buffers: later pushes queue (the pusher does not
    wait), then arrive in order."""
    aid, key = served.register("A")
    topic = f"agent_control:{aid}"
    raw = RawClient(served, key, rcvbuf=8192)
    count, pad = 200, "y" * 60_000  # 12 MB: more than the kernel's buffers and uvicorn's
    try:
        raw.join(topic, "1")
        conn = _connection(served, aid)

        async def flood() -> tuple[int, bool]:
            for n in range(count):
                await served.fanout.push(topic, "probe", {"n": n, "pad": pad})
            if served.direct:  # one more push the instant the buffer drains: after the rest
                protocol = conn.ws.scope["extensions"][DIRECT_SEND]["protocol"]
                resume, late = protocol.resume_writing, [{"n": count, "pad": pad}]

                def resumed() -> None:
                    resume()
                    while late:
                        conn.send_encoded(encode_frame("1", None, topic, "p", late.pop()))

                protocol.resume_writing = resumed
            return conn.behind_bytes, conn.closed

        behind, closed = served.call(flood)
        assert behind > 1 << 20 and not closed  # the transport paused: frames queued, in order
        total = count + served.direct
        got = [msgspec.json.decode(raw.read_frame()[1])[4]["n"] for _ in range(total)]
        assert got == list(range(total))

        async def drained() -> int:
            return conn.behind_bytes

        assert served.call(drained) == 0
        assert not conn.closed
    finally:
        raw.close()


def _wait_on_server(served: Served, done: Callable[[], bool], timeout: float = 30) -> None:
    """Wait (on the server's loop) until ``done()``; fail after ``timeout`` seconds."""

    async def until() -> None:
        while not done():
            await asyncio.sleep(0.01)

    served.call(lambda: asyncio.wait_for(until(), timeout), timeout + 5)


def test_a_client_that_stopped_reading_holds_up_no_one(served: Served) -> None:
    """A room's member whose client stopped reading (suspended, asleep) fills its buffers; the
    person's posts are still answered and the other member still gets every message."""
    a, akey = served.register("A")
    b, bkey = served.register("B")
    rid = room_with(served, a, b)  # type: ignore[arg-type]
    stopped = RawClient(served, akey, rcvbuf=4096)
    stopped.join(f"chat_room:{rid}", "1")
    count, pad, got, joined = 150, "y" * 60_000, [], threading.Event()

    async def reader() -> None:
        url = f"ws://127.0.0.1:{served.port}/api/v1/socket/websocket?vsn=2.0.0"
        async with websockets.connect(url, additional_headers={"x-api-key": bkey}) as ws:
            await ws.send(json.dumps(["1", "1", f"chat_room:{rid}", "phx_join", {}]))
            assert json.loads(await ws.recv())[4]["status"] == "ok"
            joined.set()
            while len(got) < count:
                frame = json.loads(await asyncio.wait_for(ws.recv(), 30))
                if frame[3] == "message_created":
                    got.append(int(frame[4]["content"].split("#")[1]))

    thread = threading.Thread(target=asyncio.run, args=(reader(),))
    thread.start()
    try:
        assert joined.wait(30)
        for n in range(count):  # 9 MB: far more than the stopped client's buffers hold
            body = {"message": {"content": f"#{n}# {pad}", "mentions": [{"id": a}, {"id": b}]}}
            r = served.human("POST", f"/api/v1/me/chats/{rid}/messages", json=body, timeout=30)
            assert r.status_code == 201, (n, r.text)
        thread.join(60)
        assert got == list(range(count))
        conn = _connection(served, a)
        assert conn.behind_bytes > 1 << 20 and not conn.closed  # still waiting for its reader
    finally:
        thread.join(60)
        stopped.close()


def test_a_socket_too_far_behind_is_closed_and_its_client_told_why(served: Served) -> None:
    """Past ``MAX_BEHIND`` queued bytes the socket is dropped from the fan-out (memory stays
    bounded) and closed with 1013 (try again later: clients reconnect) behind what it was
    already sent, which arrives in order."""
    aid, key = served.register("A")
    topic = f"agent_control:{aid}"
    raw = RawClient(served, key, rcvbuf=4096)
    pad = "z" * 60_000
    try:
        raw.join(topic, "1")
        conn = _connection(served, aid)

        async def flood() -> int:
            """Push until the socket is dropped (the kernel's buffers take a few MB first)."""
            n = 0
            while not conn.closed and n < 2 * fanout_module.MAX_BEHIND // len(pad):
                await served.fanout.push(topic, "probe", {"n": n, "pad": pad})
                await asyncio.sleep(0)  # as pushes of separate requests: writers get turns
                n += 1
            return n

        pushes = served.call(flood)
        assert conn.closed and conn.behind_bytes == 0
        seen = []
        while True:
            wire, data = raw.read_frame()
            if wire[0] & 0x0F == OP_CLOSE:
                close = Close.parse(data)
                break
            seen.append(msgspec.json.decode(data)[4]["n"])
        assert (close.code, close.reason) == (1013, fanout_module.BEHIND_REASON)
        assert seen == list(range(len(seen))) and 0 < len(seen) < pushes
        _wait_on_server(served, lambda: served.fanout.sockets_of(aid) == 0)
        assert conn not in served.fanout.connections
    finally:
        raw.close()


def test_a_socket_closed_for_idling_leaves_the_fanout(served: Served) -> None:
    """A socket the server closes on its own (here: no heartbeat) no longer counts against
    its key's socket cap, nor is it kept in the fan-out."""
    aid, key = served.register("A")
    served.app.state.idle_timeout = 0.5
    raw = RawClient(served, key)
    try:
        raw.join(f"agent_control:{aid}", "1")
        wire, data = raw.read_frame()  # nothing more sent: the idle close
        assert wire[0] & 0x0F == OP_CLOSE and Close.parse(data).code == 1000
        _wait_on_server(served, lambda: served.fanout.sockets_of(aid) == 0)
        assert not served.fanout.connections
    finally:
        raw.close()


def test_a_socket_that_went_away_is_dropped_without_raising(served: Served) -> None:
    """Pushes to a socket whose client vanished (no close frame) raise nothing into the
    handler that pushes, and the REST request still answers."""
    aid, key = served.register("A")
    rid = room_with(served, aid)  # type: ignore[arg-type]
    raw = RawClient(served, key)
    raw.join(f"chat_room:{rid}", "1")
    conn = _connection(served, aid)
    raw.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    raw.close()  # a reset, as when a machine drops off the network

    async def gone() -> bool:
        while served.fanout.online(aid):  # until the server has noticed
            await asyncio.sleep(0.01)
        conn.send_encoded(b"[]")  # after the fact: no exception either
        return conn.closed

    assert served.call(gone)
    say(served, rid, "anyone there?", aid)  # type: ignore[arg-type]


def test_write_text_refuses_once_the_peer_closed() -> None:
    """Right after the client's close frame is handled (the socket not yet lost) nothing more
    is written: a data frame after the close reply would break the closing handshake."""
    with serving(DirectSendProtocol) as served:
        aid, key = served.register("A")
        raw = RawClient(served, key)
        raw.join(f"agent_control:{aid}", "1")
        protocol = _connection(served, aid).ws.scope["extensions"][DIRECT_SEND]["protocol"]
        handle_close, results = protocol.handle_close, []

        def closing(event: Frame) -> None:
            handle_close(event)
            results.append((protocol.disconnected, protocol.write_text(b"[]")))

        protocol.handle_close = closing  # observes the instant the close frame is handled
        raw.sock.sendall(Frame(OP_CLOSE, Close(1000, "bye").serialize()).serialize(mask=True))
        wire, data = raw.read_frame()  # the closing handshake is uvicorn's, as before
        assert wire[0] == 0x88 and Close.parse(data).code == 1000
        with pytest.raises(EOFError):  # and nothing follows it
            raw.read_frame()
        raw.close()
        assert results == [(False, False)]


def test_write_text_refuses_once_the_socket_is_lost() -> None:
    with serving(DirectSendProtocol) as served:
        aid, key = served.register("A")
        raw = RawClient(served, key)
        raw.join(f"agent_control:{aid}", "1")
        protocol = _connection(served, aid).ws.scope["extensions"][DIRECT_SEND]["protocol"]
        raw.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        raw.close()

        async def refused() -> bool:
            while not protocol.disconnected:
                await asyncio.sleep(0.01)
            return protocol.write_text(b"[]")

        assert served.call(refused) is False


def test_permessage_deflate_still_negotiated_and_correct(served: Served) -> None:
    """A client offering permessage-deflate gets it (band dev's tests' servers enable it) and
    reads every push in order through the shared compression context."""
    aid, key = served.register("A")
    topic = f"agent_control:{aid}"

    async def client() -> None:
        url = f"ws://127.0.0.1:{served.port}/api/v1/socket/websocket?vsn=2.0.0"
        async with websockets.connect(url, additional_headers={"x-api-key": key}) as ws:
            names = [type(e).__name__ for e in ws.protocol.extensions]
            assert names == ["PerMessageDeflate"]
            await ws.send(json.dumps(["1", "1", topic, "phx_join", {}]))
            assert json.loads(await ws.recv())[4]["status"] == "ok"
            payloads = [{"n": n, "text": "same words again " * n} for n in range(50)]

            async def push() -> None:
                for payload in payloads:
                    await served.fanout.push(topic, "probe", payload)

            await asyncio.wrap_future(served.start(push))
            for payload in payloads:
                got = await asyncio.wait_for(ws.recv(decode=False), 10)
                assert got == encode_frame("1", None, topic, "probe", payload)

    asyncio.run(client())
