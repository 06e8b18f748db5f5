"""band-mcp over HTTP requires its bearer token: a client on another loopback address
(127.0.0.2) without it is refused on SSE and streamable HTTP, and reaches the room with it."""

from __future__ import annotations

import logging
import re
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from bandtest.platform import Live, room_with, stop_process
from mcp import ClientSession

from band.mcp.cli import parser
from band.mcp.config import Settings
from band.mcp.transports import warn_if_exposed

from .conftest import VENV_BIN, clean_env, free_port, spawn, wait_http

#: the second loopback address the "other machine" connects from
OTHER = "127.0.0.2"
TOKEN = "t0ken-" + "z" * 40
LOOPBACK = '["127.0.0.1:*","localhost:*"]'
JSON = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
PRINTED = re.compile(r"band-mcp bearer token \(.*\): (\S+)")


class Mcp:
    """band-mcp on 127.0.0.1 (HTTP transport) against the live platform."""

    def __init__(self, live: Live, transport: str, tmp: Path, **env: str) -> None:
        _, _, key = self.agent = live.register("Guarded")
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = tmp / f"mcp-{self.port}.log"
        env = {"BAND_AGENT_KEY": key, "BAND_BASE_URL": live.rest, "ALLOWED_HOSTS": LOOPBACK, **env}
        self.proc = spawn(
            [str(VENV_BIN / "band-mcp"), "-t", transport, "-p", str(self.port)],
            self.log,
            clean_env(**env),
            tmp,
        )
        wait_http(self.url + "/mcp", self.proc, self.log, timeout=60)

    def stop(self) -> str:
        """Stop the server; its log."""
        stop_process(self.proc)
        return self.log.read_text()


def _from_other(headers: dict[str, str] | None = None, **kw: Any) -> httpx.Client:
    """An HTTP client whose connections come from 127.0.0.2."""
    transport = httpx.HTTPTransport(local_address=OTHER)
    return httpx.Client(transport=transport, headers=headers, timeout=30, **kw)


def _other_factory(
    headers: dict[str, str] | None = None,
    timeout: httpx.Timeout | None = None,
    auth: httpx.Auth | None = None,
) -> httpx.AsyncClient:
    """The official MCP client's httpx client, connecting from 127.0.0.2."""
    return httpx.AsyncClient(
        transport=httpx.AsyncHTTPTransport(local_address=OTHER),
        headers=headers,
        timeout=timeout or httpx.Timeout(30, read=300),
        auth=auth,
    )


@asynccontextmanager
async def _session(mcp: Mcp, transport: str, token: str) -> AsyncIterator[ClientSession]:
    headers = {"Authorization": f"Bearer {token}"}
    if transport == "sse":
        from mcp.client.sse import sse_client

        streams = sse_client(mcp.url + "/sse", headers=headers, httpx_client_factory=_other_factory)
        async with streams as s, ClientSession(s[0], s[1]) as session:
            await session.initialize()
            yield session
        return
    from mcp.client.streamable_http import streamable_http_client

    async with (
        _other_factory(headers) as http,
        streamable_http_client(mcp.url + "/mcp", http_client=http) as s,
        ClientSession(s[0], s[1]) as session,
    ):
        await session.initialize()
        yield session


def _messages(live: Live, room: str) -> list[dict[str, Any]]:
    r = live.human("GET", f"/api/v1/me/chats/{room}/messages", params={"page_size": 100})
    return list(r.json()["data"])


def _refusals(client: httpx.Client, mcp: Mcp, transport: str) -> list[httpx.Response]:
    """Every endpoint of the transport, asked to send a message into a room."""
    call = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "band_send_message", "arguments": {"content": "x", "mentions": []}},
    }
    if transport == "sse":
        return [
            client.get(mcp.url + "/sse"),
            client.post(mcp.url + "/messages/?session_id=00", json=call, headers=JSON),
        ]
    return [client.post(mcp.url + "/mcp", json=call, headers=JSON)]


@pytest.fixture
def servers(live: Live, tmp_path: Path) -> Iterator[list[Mcp]]:
    started: list[Mcp] = []
    yield started
    for server in started:
        server.stop()


@pytest.mark.parametrize("transport", ["sse", "streamable-http"])
def test_requests_without_the_token_are_refused(
    transport: str, live: Live, tmp_path: Path, servers: list[Mcp]
) -> None:
    mcp = Mcp(live, transport, tmp_path, BAND_MCP_TOKEN=TOKEN)
    servers.append(mcp)
    room = room_with(live, mcp.agent[0])
    for headers in (None, {"Authorization": "Bearer wrong"}, {"Authorization": TOKEN}):
        with _from_other(headers) as client:
            for r in _refusals(client, mcp, transport):
                assert r.status_code == 401, (headers, r.status_code, r.text)
                assert r.headers["www-authenticate"].startswith("Bearer ")
                assert r.json()["error"] == "invalid_token"
    assert _messages(live, room) == []
    log = mcp.log.read_text()
    assert TOKEN not in log  # a token from the environment is never printed
    # refusals are answered, not crashes (the session below may log the SDK's own teardown)
    assert "Traceback" not in log and "Exception in ASGI" not in log, log[-3000:]

    async def send() -> str:
        async with _session(mcp, transport, TOKEN) as session:
            args = {"chat_id": room, "content": "with the token", "mentions": ["@local"]}
            result = await session.call_tool("band_send_message", args)
            assert not result.isError, result.content
            health = await session.call_tool("health_check", {})
            return str(getattr(health.content[0], "text", ""))

    assert anyio.run(send) == f"OK | agent | {live.rest}"
    assert [m["content"].endswith("with the token") for m in _messages(live, room)] == [True]
    # the refused requests and the session are in the access log, from the other address
    assert f"{OTHER}:" in mcp.log.read_text()


def test_a_generated_token_is_printed_once(live: Live, tmp_path: Path, servers: list[Mcp]) -> None:
    mcp = Mcp(live, "streamable-http", tmp_path)
    servers.append(mcp)
    with _from_other() as client:
        assert client.post(mcp.url + "/mcp", json={}, headers=JSON).status_code == 401
    log = mcp.log.read_text()
    [token] = PRINTED.findall(log)
    assert len(token) >= 32 and log.count(token) == 1

    async def tools() -> int:
        async with _session(mcp, "streamable-http", token) as session:
            return len((await session.list_tools()).tools)

    assert anyio.run(tools) == 9


def test_the_token_never_comes_from_the_command_line() -> None:
    options = {opt for action in parser()._actions for opt in action.option_strings}
    assert not [opt for opt in options if "token" in opt or "secret" in opt]
    assert "BAND_MCP_TOKEN" in parser().format_help()


def test_warnings_when_exposed(caplog: pytest.LogCaptureFixture) -> None:
    """Checked without binding anything: only loopback addresses are bound in tests."""
    with caplog.at_level(logging.WARNING, logger="band.mcp"):
        warn_if_exposed(Settings(host="127.0.0.2"))
        warn_if_exposed(Settings(host="localhost"))
        warn_if_exposed(Settings(host="::1"))
        assert caplog.records == []
        warn_if_exposed(Settings(host="0.0.0.0"))
        warn_if_exposed(Settings(host="192.168.1.20"))
        warn_if_exposed(Settings(enable_dns_rebinding_protection=False))
    texts = [r.getMessage() for r in caplog.records]
    assert len(texts) == 3
    assert "0.0.0.0, which is not a loopback address" in texts[0]
    assert "192.168.1.20, which is not a loopback address" in texts[1]
    assert "DNS rebinding protection is off" in texts[2]
