"""Every server the project starts stops cleanly on SIGINT and SIGTERM: an open request
finishes or is answered 503, the process exits, and nothing is logged at ERROR (no
``Exception in ASGI application``, no ``timeout graceful shutdown exceeded``)."""

from __future__ import annotations

import contextlib
import signal
import socket
import subprocess
from pathlib import Path

import anyio
import pytest
from bandtest.platform import Live
from bandtest.streams import drain, open_stream

from .conftest import VENV_BIN, clean_env, free_port, spawn, wait_http
from .test_mcp_token import TOKEN, Mcp, _session

#: generous bound on how long a stopping server may take (not a timing assertion)
EXIT_S = 30.0


def _assert_clean(proc: subprocess.Popen[bytes], log: Path, sig: int) -> str:
    proc.send_signal(sig)
    assert proc.wait(EXIT_S) is not None
    return _assert_clean_log(log)


def _assert_clean_log(log: Path) -> str:
    text = log.read_text()
    errors = [line for line in text.splitlines() if "ERROR" in line or "Traceback" in line]
    assert not errors, text[-3000:]
    return text


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_band_mcp_stops_cleanly_with_an_open_request(live: Live, tmp_path: Path, sig: int) -> None:
    mcp = Mcp(live, "sse", tmp_path, BAND_MCP_TOKEN=TOKEN)
    try:
        stream = open_stream(
            mcp.port,
            f"GET /sse HTTP/1.1\r\nHost: 127.0.0.1:{mcp.port}\r\n"
            f"Authorization: Bearer {TOKEN}\r\nAccept: text/event-stream\r\n\r\n".encode(),
            EXIT_S,
        )
        with stream:
            _assert_clean(mcp.proc, mcp.log, sig)
            drain(stream)  # the stream was ended, not left hanging
    finally:
        if mcp.proc.poll() is None:
            mcp.proc.kill()
            mcp.proc.wait()


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_band_mcp_stops_cleanly_with_an_open_session(live: Live, tmp_path: Path, sig: int) -> None:
    """The official MCP client's streamable-HTTP session holds its GET stream open."""
    mcp = Mcp(live, "streamable-http", tmp_path, BAND_MCP_TOKEN=TOKEN)

    async def body() -> None:
        with contextlib.suppress(Exception):
            async with _session(mcp, "streamable-http", TOKEN) as session:
                await session.list_tools()
                await anyio.to_thread.run_sync(_assert_clean, mcp.proc, mcp.log, sig)

    try:
        anyio.run(body)
        assert mcp.proc.poll() is not None
        _assert_clean_log(mcp.log)
    finally:
        if mcp.proc.poll() is None:
            mcp.proc.kill()
            mcp.proc.wait()


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_band_dev_stops_cleanly_with_an_open_socket(tmp_path: Path, sig: int) -> None:
    port = free_port()
    log = tmp_path / "dev.log"
    banner = tmp_path / "banner.txt"
    cmd = [str(VENV_BIN / "band"), "dev", "--port", str(port), "--db", ":memory:"]
    proc = spawn(cmd, log, clean_env(), tmp_path, stdout=banner)
    try:
        wait_http(f"http://127.0.0.1:{port}/openapi.json", proc, log, timeout=60)
        key = dict(line.split("=", 1) for line in banner.read_text().splitlines() if "=" in line)
        upgrade = (
            f"GET /api/v1/socket/websocket?vsn=2.0.0 HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
            f"Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n"
            f"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
            f"X-API-Key: {key['BAND_USER_KEY']}\r\n\r\n"
        ).encode()
        sock = socket.create_connection(("127.0.0.1", port), timeout=EXIT_S)
        with sock:
            sock.sendall(upgrade)
            assert sock.recv(4096).startswith(b"HTTP/1.1 101")
            _assert_clean(proc, log, sig)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
