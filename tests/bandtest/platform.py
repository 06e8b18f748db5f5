"""Shared test support: a real local Band platform on 127.0.0.1 and helpers around it."""

from __future__ import annotations

import asyncio
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import uvicorn

from band.devserver.app import create_app
from band.serving import guarded_config
from band.serving.ws import DirectSendProtocol


@dataclass
class Live:
    """A running dev server."""

    rest: str
    ws: str
    user_key: str
    client: httpx.Client
    app: Any

    def human(self, method: str, path: str, **kw: Any) -> httpx.Response:
        """Call the human API with the local user key."""
        headers = {"X-API-Key": self.user_key}
        return self.client.request(method, self.rest + path, headers=headers, **kw)

    def agent(self, key: str, method: str, path: str, **kw: Any) -> httpx.Response:
        """Call the agent API with ``key``."""
        return self.client.request(method, self.rest + path, headers={"X-API-Key": key}, **kw)

    def register(self, name: str) -> tuple[str, str, str]:
        """Register an agent; return (id, handle, api_key)."""
        body = {"agent": {"name": name, "description": f"{name} agent"}}
        r = self.human("POST", "/api/v1/me/agents/register", json=body)
        assert r.status_code == 201, r.text
        d = r.json()["data"]
        return d["agent"]["id"], d["agent"]["handle"], d["credentials"]["api_key"]


def no_delay(sock: socket.socket) -> None:
    """Disable Nagle on a listening socket (accepted sockets inherit it on Linux).

    uvicorn's h11 server writes a response's head and body separately; with Nagle the body
    waits for the client's delayed ACK, about 40 ms per request on loopback.
    """
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


def wait_started(server: uvicorn.Server, what: str = "server") -> None:
    """Wait (at most 10 s) until ``server`` serves."""
    deadline = time.monotonic() + 10
    while not server.started:
        assert time.monotonic() < deadline, f"{what} did not start"
        time.sleep(0.01)


def serve_in_thread(
    config: uvicorn.Config, sock: socket.socket, what: str = "server"
) -> tuple[uvicorn.Server, threading.Thread]:
    """Serve ``config`` on the bound ``sock`` from a daemon thread; return once it serves."""
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    wait_started(server, what)
    return server, thread


def live_platform(db_path: str = ":memory:") -> Iterator[Live]:
    """Start uvicorn in a background thread on a free port, over the SQLite DB ``db_path``."""
    app = create_app(db_path)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    no_delay(sock)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    config = guarded_config(app, log_level="warning", ws=DirectSendProtocol, lifespan="on")
    server, thread = serve_in_thread(config, sock)
    with httpx.Client(timeout=10) as client:
        yield Live(
            f"http://127.0.0.1:{port}",
            f"ws://127.0.0.1:{port}/api/v1/socket/websocket",
            app.state.user_key,
            client,
            app,
        )
    server.should_exit = True
    thread.join(10)
    sock.close()


def expect_error(r: httpx.Response, status: int, code: str) -> dict[str, Any]:
    """Assert ``r`` is an error envelope with ``status`` and ``code``; return the error."""
    assert r.status_code == status, r.text
    err = r.json()["error"]
    assert err["code"] == code
    assert isinstance(err["message"], str) and err["request_id"]
    return dict(err)


def room_with(live: Live, *agent_ids: str, title: str = "t") -> str:
    """Create room ``title`` as the local person with ``agent_ids`` in it; return its id."""
    r = live.human("POST", "/api/v1/me/chats", json={"chat": {"title": title}})
    assert r.status_code == 201, r.text
    rid = str(r.json()["data"]["id"])
    for aid in agent_ids:
        body = {"participant": {"participant_id": aid}}
        r = live.human("POST", f"/api/v1/me/chats/{rid}/participants", json=body)
        assert r.status_code == 201, r.text
    return rid


def say(live: Live, rid: str, text: str, *mention_ids: str) -> str:
    """The local person posts ``text`` in room ``rid`` mentioning ``mention_ids``; its id."""
    body = {"message": {"content": text, "mentions": [{"id": m} for m in mention_ids]}}
    r = live.human("POST", f"/api/v1/me/chats/{rid}/messages", json=body)
    assert r.status_code == 201, r.text
    return str(r.json()["data"]["id"])


def fill_context(live: Live, aid: str, key: str, rid: str, count: int, kind: str = "text") -> None:
    """Agent ``aid`` writes ``count`` rows into its ``/context`` in room ``rid``: texts ``old N``
    to the room's person, or events of ``kind``."""
    people = live.agent(key, "GET", f"/api/v1/agent/chats/{rid}/participants").json()["data"]
    person = next(p["id"] for p in people if p["id"] != aid)
    for n in range(count):
        if kind == "text":
            body: dict[str, Any] = {
                "message": {"content": f"old {n}", "mentions": [{"id": person}]}
            }
            r = live.agent(key, "POST", f"/api/v1/agent/chats/{rid}/messages", json=body)
        else:
            body = {"event": {"content": f"old {n}", "message_type": kind}}
            r = live.agent(key, "POST", f"/api/v1/agent/chats/{rid}/events", json=body)
        assert r.status_code == 201, r.text


def stop_process(proc: subprocess.Popen[Any], timeout: float = 10) -> None:
    """Terminate ``proc``, killing it if it has not exited within ``timeout`` seconds."""
    proc.terminate()
    try:
        proc.wait(timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


class RestartablePlatform:
    """A dev server on a fixed port and SQLite file that can be stopped and started again.

    ``restart()`` stops uvicorn (closing every socket) and serves a new app on the same port
    over the same database, like a platform deploy; ``close_socket()`` closes an agent's
    socket from the server side.
    """

    def __init__(self, db_path: str, *, idle_timeout: float = 45.0) -> None:
        self.db_path = db_path
        self.idle_timeout = idle_timeout
        probe = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        probe.bind(("127.0.0.1", 0))
        self.port = probe.getsockname()[1]
        probe.close()
        self.user_key: str | None = None
        self.server: uvicorn.Server | None = None
        self.loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self.client = httpx.Client(timeout=10)
        self.live: Live | None = None

    @property
    def running(self) -> Live:
        """The running platform's ``Live`` (fails the test when it is stopped)."""
        assert self.live is not None, "the platform is not running"
        return self.live

    def start(self) -> Live:
        """Serve a fresh app over the database; return the (same) ``Live`` handle."""
        app = create_app(self.db_path, self.user_key, idle_timeout=self.idle_timeout)
        self.user_key = app.state.user_key
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        no_delay(sock)
        sock.bind(("127.0.0.1", self.port))
        config = guarded_config(app, log_level="warning", ws=DirectSendProtocol, lifespan="on")
        server = uvicorn.Server(config)

        async def serve() -> None:
            self.loop = asyncio.get_running_loop()
            await server.serve(sockets=[sock])

        self._thread = threading.Thread(target=asyncio.run, args=(serve(),), daemon=True)
        self._thread.start()
        wait_started(server)
        self.server = server
        rest = f"http://127.0.0.1:{self.port}"
        if self.live is None:
            ws = f"ws://127.0.0.1:{self.port}/api/v1/socket/websocket"
            self.live = Live(rest, ws, str(self.user_key), self.client, app)
        self.live.app = app
        return self.live

    def stop(self) -> None:
        """Stop serving (open sockets are closed by uvicorn's shutdown)."""
        if self.server is not None:
            self.server.should_exit = True
            assert self._thread is not None
            self._thread.join(10)
            self.server = None

    def restart(self) -> Live:
        """Stop, then serve again on the same port and database."""
        self.stop()
        return self.start()

    def call(self, coro: Any) -> Any:
        """Run ``coro`` on the server's event loop; return its result."""
        assert self.loop is not None
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(10)

    def close_socket(self, agent_id: str, code: int = 1011) -> bool:
        """Close ``agent_id``'s live socket from the server side; False when it has none."""
        assert self.live is not None
        conn = self.live.app.state.fanout.agent_connected(agent_id)
        if conn is None:
            return False
        self.call(conn.ws.close(code=code))
        return True

    def close(self) -> None:
        """Stop the server and release the HTTP client."""
        self.stop()
        self.client.close()


def restartable_platform(tmp_path: Path) -> Iterator[RestartablePlatform]:
    """A started ``RestartablePlatform`` on a SQLite file in ``tmp_path``, closed afterwards."""
    plat = RestartablePlatform(str(tmp_path / "band.sqlite3"))
    plat.start()
    try:
        yield plat
    finally:
        plat.close()
