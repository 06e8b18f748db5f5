"""SSE (``/sse`` + ``/messages/``) and streamable HTTP (``/mcp``): our band-mcp as an HTTP server on
127.0.0.1, the official client, DNS-rebinding protection, and HOST/PORT really applied."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from bandtest.platform import Live
from mcp_harness import AUTH, HttpServer, free_port, messages, room_with

LOOPBACK = '["127.0.0.1:*","localhost:*"]'
BLOCKED = (
    "DNS rebinding protection enabled with empty ALLOWED_HOSTS. All SSE requests will be "
    "blocked. Configure ALLOWED_HOSTS to allow connections."
)
JSON = {"Content-Type": "application/json"}


@pytest.fixture(scope="module")
def bot(plat: Live) -> tuple[str, str, str]:
    return plat.register("Wire")


def _env(plat: Live, bot: tuple[str, str, str], **extra: str) -> dict[str, str]:
    return {"BAND_AGENT_KEY": bot[2], "BAND_BASE_URL": plat.rest, **extra}


@pytest.fixture(scope="module")
def sse(plat: Live, bot: tuple[str, str, str], workdir: Path) -> Iterator[HttpServer]:
    server = HttpServer.on_free_port("sse", _env(plat, bot, ALLOWED_HOSTS=LOOPBACK), workdir)
    yield server
    server.stop()


@pytest.fixture(scope="module")
def streamable(plat: Live, bot: tuple[str, str, str], workdir: Path) -> Iterator[HttpServer]:
    env = _env(plat, bot, ALLOWED_HOSTS=LOOPBACK)
    server = HttpServer.on_free_port("streamable-http", env, workdir)
    yield server
    server.stop()


@pytest.mark.parametrize("transport", ["sse", "streamable"])
def test_session_over_http(
    transport: str,
    request: pytest.FixtureRequest,
    plat: Live,
    bot: tuple[str, str, str],
) -> None:
    server: HttpServer = request.getfixturevalue(transport)
    client = server.client("/sse" if transport == "sse" else "/mcp")
    try:
        assert len(client.tools()) == 9
        assert client.text("health_check") == f"OK | agent | {plat.rest}"
        room = room_with(plat, bot[0])
        args = {"chat_id": room, "content": f"over {transport}", "mentions": ["@local"]}
        sent = client.json("band_send_message", args)
        [msg] = messages(plat, room)
        assert msg["id"] == sent["id"] and msg["content"].endswith(f"over {transport}")
    finally:
        client.close()


def test_sse_logs_and_endpoints(sse: HttpServer) -> None:
    log = sse.stderr()
    assert f"Server ready - listening on http://127.0.0.1:{sse.port}" in log
    assert "SSE endpoint: /sse | Messages endpoint: /messages/" in log
    assert "Transport: SSE (HTTP server mode)" in log
    assert BLOCKED not in log
    # the stream starts by telling the client where to post its messages
    with httpx.stream("GET", sse.url + "/sse", timeout=10, headers=AUTH) as r:
        assert r.status_code == 200
        lines = r.iter_lines()
        assert next(lines) == "event: endpoint"
        assert next(lines).startswith("data: /messages/?session_id=")
    # SSE mode serves no streamable HTTP endpoint
    assert sse.request("POST", "/mcp", headers=JSON, content=b"{}").status_code == 404


def test_sse_host_and_origin_checks(sse: HttpServer) -> None:
    foreign = {"Host": f"evil.example:{sse.port}"}
    r = sse.request("GET", "/sse", headers=foreign)
    assert (r.status_code, r.text) == (421, "Invalid Host header")
    r = sse.request("POST", "/messages/?session_id=00", headers={**foreign, **JSON}, content=b"{}")
    assert (r.status_code, r.text) == (421, "Invalid Host header")
    origin = {"Origin": "http://evil.example", **JSON}
    r = sse.request("POST", "/messages/?session_id=00", headers=origin, content=b"{}")
    assert (r.status_code, r.text) == (403, "Invalid Origin header")


def test_streamable_http_host_check(streamable: HttpServer) -> None:
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"}).encode()
    headers = {"Host": "evil.example", "Accept": "application/json, text/event-stream", **JSON}
    r = streamable.request("POST", "/mcp", headers=headers, content=body)
    assert (r.status_code, r.text) == (421, "Invalid Host header")
    assert streamable.request("GET", "/sse").status_code == 404
    log = streamable.stderr()
    assert f"Server ready - listening on http://127.0.0.1:{streamable.port}" in log
    assert "MCP endpoint: /mcp" in log


def test_empty_allowed_hosts_blocks_everything(
    plat: Live, bot: tuple[str, str, str], workdir: Path
) -> None:
    # HOST and PORT come from the environment this time: they must be what is actually bound
    port = free_port()
    env = _env(plat, bot, TRANSPORT="sse", HOST="127.0.0.1", PORT=str(port))
    server = HttpServer([], env, workdir, port)
    try:
        assert BLOCKED in server.stderr()
        for host in (f"127.0.0.1:{port}", f"localhost:{port}"):
            r = server.request("GET", "/sse", headers={"Host": host})
            assert (r.status_code, r.text) == (421, "Invalid Host header")
    finally:
        server.stop()


def test_protection_off_and_settings_from_dotenv(
    plat: Live, bot: tuple[str, str, str], tmp_path: Path
) -> None:
    port = free_port()
    (tmp_path / ".env").write_text(
        f"TRANSPORT=streamable-http\nHOST=127.0.0.1\nPORT={port}\n"
        f"ENABLE_DNS_REBINDING_PROTECTION=false\nBAND_BASE_URL={plat.rest}\n"
    )
    server = HttpServer([], {"BAND_AGENT_KEY": bot[2], "PORT": ""}, tmp_path, port)
    try:
        log = server.stderr()
        assert BLOCKED.split(".")[0] not in log
        # turning the protection off is allowed, and said at start
        assert "DNS rebinding protection is off (ENABLE_DNS_REBINDING_PROTECTION=false)" in log
        body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"}).encode()
        accept = {"Accept": "application/json, text/event-stream", **JSON}
        r = server.request("POST", "/mcp", headers={"Host": "evil.example", **accept}, content=body)
        assert r.status_code != 421, r.text
        client = server.client("/mcp")
        try:
            assert client.text("health_check") == f"OK | agent | {plat.rest}"
        finally:
            client.close()
    finally:
        server.stop()


@pytest.mark.parametrize(("transport", "path"), [("sse", "/sse"), ("streamable", "/mcp")])
def test_http_needs_the_bearer_token(
    transport: str, path: str, request: pytest.FixtureRequest
) -> None:
    server: HttpServer = request.getfixturevalue(transport)
    for headers in ({}, {"Authorization": "Bearer nope"}):
        r = httpx.request("GET", server.url + path, headers=headers, timeout=10)
        assert r.status_code == 401, r.text
        assert r.headers["www-authenticate"].startswith('Bearer error="invalid_token"')
    assert "Clients authenticate with the bearer token in BAND_MCP_TOKEN" in server.stderr()
