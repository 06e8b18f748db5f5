"""``band dev``'s CPU per socket push: its serving thread's CPU time over many ``Fanout.push``
calls to a room topic two raw WebSocket clients joined (the agent's and the person's sockets,
as in the e2e bench), a message-sized payload. The clients read in a forked process (no GIL
shared with the server); the figure is the server thread's ``thread_time`` per push.

Under whichever band this interpreter imports, so another commit's ``band/`` is timed by
putting it first on the path (its dependencies and core are this venv's):

    python bench/e2e/devpush.py                              # asyncio's loop
    python bench/e2e/devpush.py --uvloop                     # uvloop, as band dev runs
    git archive REV band | tar -x -C /tmp/rev && PYTHONPATH=/tmp/rev python bench/e2e/devpush.py
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import os
import selectors
import socket
import time
from typing import Any

import httpx
from websockets.frames import OP_TEXT, Frame

from band.devserver.app import create_app
from band.devserver.thread import ServerThread


def _joined(port: int, key: str, topic: str) -> socket.socket:
    """A raw WebSocket client (no extension offered) that joined ``topic``."""
    sock = socket.create_connection(("127.0.0.1", port))
    nonce = base64.b64encode(os.urandom(16)).decode()
    sock.sendall(
        (
            "GET /api/v1/socket/websocket?vsn=2.0.0 HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            "Upgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Key: {nonce}\r\nSec-WebSocket-Version: 13\r\nx-api-key: {key}\r\n\r\n"
        ).encode()
    )
    head = b""
    while b"\r\n\r\n" not in head:
        head += sock.recv(65536)
    assert head.startswith(b"HTTP/1.1 101"), head
    join = json.dumps(["1", "1", topic, "phx_join", {}]).encode()
    sock.sendall(Frame(OP_TEXT, join).serialize(mask=True))
    return sock


def _read_elsewhere(socks: list[socket.socket]) -> None:
    """Fork a process that reads ``socks`` until the server closes them; close them here."""
    if os.fork() == 0:
        keep = {s.fileno() for s in socks}
        for fd in range(3, 4096):  # the server's sockets stay the server's: its closes reach us
            if fd not in keep:
                try:
                    os.close(fd)
                except OSError:
                    pass
        sel = selectors.DefaultSelector()
        for s in socks:
            sel.register(s, selectors.EVENT_READ)
        left = len(socks)
        while left:
            for key, _ in sel.select():
                if not key.fileobj.recv(1 << 20):  # type: ignore[union-attr]
                    sel.unregister(key.fileobj)
                    left -= 1
        os._exit(0)
    for s in socks:
        s.close()


def main(argv: list[str] | None = None) -> int:
    """Print the serving thread's CPU per push (microseconds)."""
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--pushes", type=int, default=20000, help="pushes timed (after 500 warm-up)")
    p.add_argument("--uvloop", action="store_true", help="serve on uvloop")
    args = p.parse_args(argv)
    if args.uvloop:
        import uvloop

        uvloop.install()  # asyncio.run in the serving thread then makes a uvloop loop
    app = create_app()
    server = ServerThread(app)
    server.start()
    server.wait_ready(10)
    with httpx.Client(base_url=server.rest_url, headers={"X-API-Key": app.state.user_key}) as h:
        body = {"agent": {"name": "A", "description": "an agent"}}
        data = h.post("/api/v1/me/agents/register", json=body).json()["data"]
        aid, key = data["agent"]["id"], data["credentials"]["api_key"]
        rid = h.post("/api/v1/me/chats", json={"chat": {}}).json()["data"]["id"]
        h.post(
            f"/api/v1/me/chats/{rid}/participants", json={"participant": {"participant_id": aid}}
        )
    topic = f"chat_room:{rid}"
    _read_elsewhere([_joined(server.port, k, topic) for k in (key, app.state.user_key)])
    payload: dict[str, Any] = {
        "id": "0" * 36,
        "chat_room_id": rid,
        "content": "hello there " * 30,
        "sender_id": aid,
        "sender_type": "Agent",
        "mentions": [{"id": aid, "handle": "a"}],
        "inserted_at": "2026-12-07T05:00:00Z",
        "metadata": {},
    }

    async def timed() -> float:
        fanout = app.state.fanout
        while sum(topic in c.topics for c in fanout.connections) < 2:  # both joins served
            await asyncio.sleep(0.01)
        for _ in range(500):
            await fanout.push(topic, "message_created", payload)
        start = time.thread_time()
        for _ in range(args.pushes):
            await fanout.push(topic, "message_created", payload)
        return (time.thread_time() - start) / args.pushes

    assert server.loop is not None
    spent = asyncio.run_coroutine_threadsafe(timed(), server.loop).result(300)
    print(f"{spent * 1e6:.2f} us of band dev's CPU per push to 2 sockets")
    server.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
