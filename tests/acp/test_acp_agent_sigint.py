"""An agent process running ``ACPClientAdapter`` stopped with SIGINT or SIGTERM while a request
to its Band MCP server is open: the process exits, the request's stream is ended, and nothing
is logged at ERROR (no ``Exception in ASGI application``, no ``timeout graceful shutdown
exceeded``, no traceback) (issue 53 item 4)."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from acp_helpers import agent_command, calls
from bandtest.agents import Human, plain, wait_for
from bandtest.platform import Live, live_platform, room_with
from bandtest.streams import drain, open_stream

#: generous bound on how long a stopping agent may take (not a timing assertion)
EXIT_S = 30.0

AGENT = """\
import asyncio, logging, sys
from band import Agent
from band.adapters import ACPClientAdapter, ACPClientAdapterConfig
from band.workspaces import create_room_workspace_resolver

logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
aid, key, rest, ws, workspaces, *command = sys.argv[1:]
adapter = ACPClientAdapter(
    ACPClientAdapterConfig(command=tuple(command)),
    workspace_for_room=create_room_workspace_resolver(workspaces),
)
agent = Agent.create(adapter=adapter, agent_id=aid, api_key=key, rest_url=rest, ws_url=ws)
asyncio.run(agent.run())
"""


@pytest.fixture(scope="module")
def live() -> Iterator[Live]:
    yield from live_platform()


def _open_sse(url: str) -> socket.socket:
    """GET ``url`` (an SSE endpoint on 127.0.0.1) and wait until the stream is open."""
    parts = urlsplit(url)
    request = (
        f"GET {parts.path} HTTP/1.1\r\nHost: {parts.netloc}\r\nAccept: text/event-stream\r\n\r\n"
    )
    return open_stream(parts.port or 80, request.encode(), EXIT_S)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_an_acp_agent_stops_cleanly_with_an_open_mcp_request(
    live: Live, tmp_path: Path, sig: int
) -> None:
    aid, _, key = live.register("Coder")
    rid = room_with(live, aid)
    workspaces = tmp_path / "ws"
    (tmp_path / "agent.py").write_text(AGENT)
    log = tmp_path / "agent.log"
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(tmp_path)}
    argv = [aid, key, live.rest, live.ws, str(workspaces), *agent_command()]
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-I", "agent.py", *argv],
            cwd=tmp_path,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:

        async def answered() -> str:
            person = Human(live)
            try:
                await person.send(rid, aid, "[[reply Ready]]")

                async def reply() -> bool:
                    texts = [plain(m["content"]) for m in await person.replies(rid, aid)]
                    return texts == ["Ready"]

                await wait_for(reply, timeout=60)
            finally:
                await person.aclose()
            [new] = [c for c in calls(workspaces / rid) if c["method"] == "new_session"]
            [band] = [s for s in new["mcp_servers"] if s["name"] == "band"]
            return str(band["url"])

        url = asyncio.run(answered())
        assert url.endswith("/mcp")
        # the room's legacy SSE endpoint holds its stream open until the server stops
        stream = _open_sse(url.removesuffix("/mcp") + "/sse")
        with stream:
            proc.send_signal(sig)
            assert proc.wait(EXIT_S) is not None
            drain(stream)  # ended by the server, not left hanging
        text = log.read_text()
        # the server this test held a stream of (LocalMCPServer logs its name and port)
        assert re.search(r"MCP server band on 127\.0\.0\.1:\d+", text), text
        errors = [line for line in text.splitlines() if "ERROR" in line or "Traceback" in line]
        assert not errors, text[-3000:]
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
