"""Helpers for the band-mcp tests: our server as a subprocess (stdio, SSE, streamable HTTP),
driven by the official ``mcp`` client against the real local platform."""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import json
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import IO, Any

import httpx
from bandtest.platform import Live, room_with, stop_process

import band

__all__ = ["Live", "McpClient", "room_with", "stop_process"]

#: The subprocess imports the same ``band`` as the tests (installed or the source tree).
BAND_ROOT = str(Path(band.__file__).resolve().parent.parent)
TIMEOUT = 60
#: the bearer token the HTTP servers of these tests require (BAND_MCP_TOKEN)
TOKEN = "test-token-" + "m" * 32
AUTH = {"Authorization": f"Bearer {TOKEN}"}


def server_env(**env: str) -> dict[str, str]:
    """A minimal environment for a band-mcp subprocess (nothing leaks from the test process)."""
    base = {k: os.environ[k] for k in ("PATH", "HOME", "LANG") if k in os.environ}
    return {
        **base,
        "PYTHONPATH": BAND_ROOT,
        "BAND_LOG_LEVEL": "INFO",
        "BAND_MCP_TOKEN": TOKEN,
        **env,
    }


def band_mcp(*args: str) -> list[str]:
    """The command line of ``python -m band.mcp``."""
    return [sys.executable, "-m", "band.mcp", *args]


def run_cli(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run band-mcp to completion (for startup failures), stdin closed."""
    return subprocess.run(
        band_mcp(*args),
        env=server_env(**env),
        cwd=cwd,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=TIMEOUT,
    )


class McpClient:
    """An official ``mcp`` ClientSession kept open on a background loop, called synchronously."""

    def __init__(self, connect: Callable[[], Any]) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self._ready: concurrent.futures.Future[None] = concurrent.futures.Future()
        self._stop = asyncio.Event()
        self._main = asyncio.run_coroutine_threadsafe(self._hold(connect), self.loop)
        try:
            self._ready.result(TIMEOUT)
        except BaseException:
            self.close()
            raise

    async def _hold(self, connect: Callable[[], Any]) -> None:
        from mcp import ClientSession

        try:
            async with connect() as streams, ClientSession(streams[0], streams[1]) as session:
                self.init = await session.initialize()
                self.session = session
                self._ready.set_result(None)
                await self._stop.wait()
        except BaseException as exc:
            if not self._ready.done():
                self._ready.set_exception(exc)
            raise

    def _do(self, coro: Any) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(TIMEOUT)

    def tools(self) -> dict[str, Any]:
        """The advertised tools by name."""
        return {t.name: t for t in self._do(self.session.list_tools()).tools}

    def call(self, name: str, args: dict[str, Any] | None = None) -> Any:
        """One tool call: the raw CallToolResult."""
        return self._do(self.session.call_tool(name, args or {}))

    def text(self, name: str, args: dict[str, Any] | None = None) -> str:
        """The text of a successful call."""
        result = self.call(name, args)
        assert not result.isError, text_of(result)
        return text_of(result)

    def json(self, name: str, args: dict[str, Any] | None = None) -> Any:
        """The decoded JSON of a successful call."""
        return json.loads(self.text(name, args))

    def error(self, name: str, args: dict[str, Any] | None = None) -> str:
        """The text of a call that must fail with isError."""
        result = self.call(name, args)
        assert result.isError, text_of(result)
        return text_of(result)

    def close(self) -> None:
        """Close the session (the stdio server then exits) and stop the loop."""
        self.loop.call_soon_threadsafe(self._stop.set)
        try:
            self._main.result(TIMEOUT)
        except BaseException:
            pass
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(TIMEOUT)
        self.loop.close()


def text_of(result: Any) -> str:
    """The concatenated text blocks of a CallToolResult."""
    return "".join(getattr(c, "text", "") for c in result.content)


def stdio_client_for(args: list[str], env: dict[str, str], cwd: Path, errlog: IO[str]) -> McpClient:
    """Our band-mcp over stdio, its stderr in ``errlog``."""
    from mcp import StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "band.mcp", *args],
        env=server_env(**env),
        cwd=str(cwd),
    )
    return McpClient(lambda: stdio_client(params, errlog=errlog))


def free_port() -> int:
    """A free TCP port on 127.0.0.1."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class HttpServer:
    """band-mcp as an HTTP server subprocess on 127.0.0.1.

    ``args`` are the CLI flags; the caller says which ``port`` the server will listen on
    (through ``--port``, ``PORT`` or ``.env``), and the constructor waits until it accepts.
    """

    def __init__(self, args: list[str], env: dict[str, str], cwd: Path, port: int) -> None:
        self.port = port
        self.url = f"http://127.0.0.1:{port}"
        self.log = cwd / f"band-mcp-{port}.log"
        self._log = self.log.open("w")
        self.proc = subprocess.Popen(
            band_mcp(*args),
            env=server_env(**env),
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            stdout=self._log,
            stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + TIMEOUT
        while True:
            assert self.proc.poll() is None, self.stderr()
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                    break
            except OSError:
                assert time.monotonic() < deadline, self.stderr()
                time.sleep(0.05)

    @classmethod
    def on_free_port(cls, transport: str, env: dict[str, str], cwd: Path) -> HttpServer:
        """``--transport <transport> --port <a free port>``."""
        port = free_port()
        return cls(["--transport", transport, "--port", str(port)], env, cwd, port)

    def stderr(self) -> str:
        """Everything the server logged so far."""
        self._log.flush()
        return self.log.read_text()

    def request(self, method: str, path: str, **kw: Any) -> httpx.Response:
        """One plain HTTP request (no streaming) with the token, for the Host/Origin checks."""
        kw["headers"] = {**AUTH, **kw.get("headers", {})}
        return httpx.request(method, self.url + path, timeout=10, **kw)

    def client(self, path: str) -> McpClient:
        """An official client session over SSE (``/sse``) or streamable HTTP (``/mcp``)."""
        if path == "/sse":
            from mcp.client.sse import sse_client

            return McpClient(lambda: sse_client(self.url + path, headers=AUTH))
        return McpClient(lambda: _streamable(self.url + path))

    def stop(self) -> None:
        """Terminate the server."""
        stop_process(self.proc)
        self._log.close()


@contextlib.asynccontextmanager
async def _streamable(url: str) -> AsyncIterator[Any]:
    """The official streamable HTTP client, sending the token."""
    try:  # recent mcp takes an httpx client (the old name warns); older releases only that
        from mcp.client.streamable_http import streamable_http_client
    except ImportError:
        from mcp.client.streamable_http import streamablehttp_client

        async with streamablehttp_client(url, headers=AUTH) as streams:
            yield streams
        return
    timeout = httpx.Timeout(30, read=300)
    async with (
        httpx.AsyncClient(headers=AUTH, timeout=timeout) as http,
        streamable_http_client(url, http_client=http) as streams,
    ):
        yield streams


def profile(plat: Live) -> dict[str, Any]:
    """The local person's profile."""
    return dict(plat.human("GET", "/api/v1/me/profile").json()["data"])


def messages(plat: Live, room: str) -> list[dict[str, Any]]:
    """Every message and event of ``room`` as the local person sees them, oldest first."""
    r = plat.human("GET", f"/api/v1/me/chats/{room}/messages", params={"page_size": 100})
    assert r.status_code == 200, r.text
    return list(reversed(r.json()["data"]))  # the platform lists newest first


def participants(plat: Live, room: str) -> dict[str, dict[str, Any]]:
    """The room's participants by id."""
    r = plat.human("GET", f"/api/v1/me/chats/{room}/participants", params={"page_size": 100})
    assert r.status_code == 200, r.text
    return {p["id"]: p for p in r.json()["data"]}
