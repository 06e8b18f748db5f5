"""Clean logs: the redacted access line is written (not a 'Logging error' traceback); refused
and malformed requests never log a traceback (binary socket frames, cross-origin sockets, the
ACP adapter's MCP server refusing a foreign Host); the socket checks Origin."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

import httpx
import pytest
import websockets
from bandtest.platform import Live, stop_process
from uvicorn.logging import AccessFormatter
from websockets.exceptions import InvalidStatus

from band.devserver.logs import RedactKeys
from band.integrations.mcp.local_server import LocalMCPServer

from .conftest import VENV_BIN, clean_env, free_port, spawn, wait_http

KEY = "band_u_" + "S3cret-key_" * 3


def _tracebacks(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [
        f"{r.name}: {r.getMessage()}"
        for r in caplog.records
        if r.exc_info or "Traceback" in r.getMessage() or "Exception in ASGI" in r.getMessage()
    ]


def test_access_formatter_gets_a_redacted_line() -> None:
    """uvicorn's formatter unpacks the record's five arguments: they must stay five."""
    path = f"/api/v1/me/chats?api_key={KEY}&x=1"
    record = logging.LogRecord(
        "uvicorn.access", logging.INFO, __file__, 1, '%s - "%s %s HTTP/%s" %d',
        ("127.0.0.1:5", "GET", path, "1.1", 401), None,
    )  # fmt: skip
    assert RedactKeys().filter(record)
    line = AccessFormatter('%(client_addr)s - "%(request_line)s" %(status_code)s').format(record)
    assert KEY not in line
    assert '"GET /api/v1/me/chats?api_key=[redacted]&x=1 HTTP/1.1" 401' in line


def test_access_log_line_for_a_url_with_a_key(tmp_path: Path) -> None:
    port = free_port()
    log = tmp_path / "dev.log"
    cmd = [str(VENV_BIN / "band"), "dev", "--port", str(port), "--db", ":memory:", "--access-log"]
    dev = spawn(cmd, log, clean_env(), tmp_path, stdout=tmp_path / "banner.txt")
    base = f"http://127.0.0.1:{port}"
    try:
        wait_http(base + "/openapi.json", dev, log, timeout=60)
        # what a foreign page's <img src=...> can make a browser request
        assert httpx.get(f"{base}/api/v1/me/chats?api_key={KEY}", timeout=30).status_code == 401
        assert httpx.get(f"{base}/no/{KEY}/here", timeout=30).status_code == 404
    finally:
        stop_process(dev, 20)
    # uvicorn writes its access lines to stdout (after the banner), the rest to stderr
    text = log.read_text() + (tmp_path / "banner.txt").read_text()
    assert KEY not in text
    assert '"GET /api/v1/me/chats?api_key=[redacted] HTTP/1.1" 401' in text, text[-2000:]
    assert '"GET /no/band_[redacted]/here HTTP/1.1" 404' in text, text[-2000:]
    assert "Logging error" not in text and "Traceback" not in text


def test_binary_socket_frame_is_dropped_and_the_socket_lives(
    live: Live, caplog: pytest.LogCaptureFixture
) -> None:
    _, _, key = live.register("Bin")

    async def body() -> str:
        url = live.ws + "?vsn=2.0.0"
        async with websockets.connect(url, additional_headers={"x-api-key": key}) as ws:
            await ws.send(b"\x00\x01binary")
            await ws.send('[null, "1", "phoenix", "heartbeat", {}]')
            reply = await asyncio.wait_for(ws.recv(), 30)
            return str(reply)

    with caplog.at_level(logging.INFO):
        reply = asyncio.run(body())
    assert '"phx_reply"' in reply and '"ok"' in reply
    assert any("dropping binary frame" in r.getMessage() for r in caplog.records)
    assert _tracebacks(caplog) == []


def test_socket_refuses_a_cross_origin_page(live: Live, caplog: pytest.LogCaptureFixture) -> None:
    """Browsers let any page open a WebSocket anywhere; the platform checks where it came from."""
    _, _, key = live.register("Orig")
    url = live.ws + "?vsn=2.0.0"
    host = live.rest.removeprefix("http://")

    async def status(origin: str) -> int:
        headers = {"x-api-key": key, "Origin": origin}
        try:
            async with websockets.connect(url, additional_headers=headers, origin=None) as ws:
                await ws.send('[null, "1", "phoenix", "heartbeat", {}]')
                await asyncio.wait_for(ws.recv(), 30)
                return 101
        except InvalidStatus as exc:
            return exc.response.status_code

    with caplog.at_level(logging.INFO):
        assert asyncio.run(status("http://evil.example")) == 403
        assert asyncio.run(status(f"http://evil.example:{host.split(':')[1]}")) == 403
        assert asyncio.run(status("null")) == 403
        assert asyncio.run(status(f"http://{host}")) == 101  # the web room view's own page
    assert _tracebacks(caplog) == []


def test_acp_mcp_server_refuses_a_foreign_host_without_a_traceback(
    caplog: pytest.LogCaptureFixture,
) -> None:
    async def body() -> list[tuple[int, str]]:
        server = LocalMCPServer("band", [], port_min=0, port_max=0, room_bound=True)
        await server.start()
        try:
            sse = server.room_sse_url("room-1")
            mcp = server.room_http_url("room-1")
            async with httpx.AsyncClient(timeout=30) as client:
                answers = []
                for url, method, headers in (
                    (sse, "GET", {"Host": "evil.example"}),
                    (sse, "GET", {"Origin": "http://evil.example"}),
                    (mcp, "POST", {"Host": "evil.example", "Content-Type": "application/json"}),
                ):
                    r = await client.request(method, url, headers=headers, content=b"{}")
                    answers.append((r.status_code, r.text))
                big = b'{"x": "' + b"y" * (2 * 1024 * 1024) + b'"}'
                r = await client.post(
                    mcp, content=big, headers={"Content-Type": "application/json"}
                )
                answers.append((r.status_code, r.json()["error"]["code"]))
                return answers
        finally:
            await server.stop()

    with caplog.at_level(logging.INFO):
        answers = asyncio.run(body())
    assert answers == [
        (421, "Invalid Host header"),
        (403, "Invalid Origin header"),
        (421, "Invalid Host header"),
        (413, "payload_too_large"),
    ]
    assert _tracebacks(caplog) == []
