"""Shared test support: a real local Band platform on 127.0.0.1 and helpers around it."""

from __future__ import annotations

import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import uvicorn

from band.devserver.app import create_app


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


def live_platform() -> Iterator[Live]:
    """Start uvicorn in a background thread on a free port."""
    app = create_app(":memory:")
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    config = uvicorn.Config(app, log_level="warning", ws="websockets-sansio", lifespan="on")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        assert time.monotonic() < deadline, "server did not start"
        time.sleep(0.01)
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


def room_with(live: Live, *agent_ids: str) -> str:
    """Create a room as the local person with ``agent_ids`` in it; return its id."""
    r = live.human("POST", "/api/v1/me/chats", json={"chat": {"title": "t"}})
    assert r.status_code == 201, r.text
    rid = str(r.json()["data"]["id"])
    for aid in agent_ids:
        body = {"participant": {"participant_id": aid}}
        r = live.human("POST", f"/api/v1/me/chats/{rid}/participants", json=body)
        assert r.status_code == 201, r.text
    return rid


def stop_process(proc: subprocess.Popen[Any]) -> None:
    """Terminate ``proc``, killing it if it has not exited within 10 s."""
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()
