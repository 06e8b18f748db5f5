"""The local MCP server named ``band``: Band tools for each room on its own loopback URL.

One uvicorn on 127.0.0.1 serves every room under ``/rooms/<key>/``, where ``<key>`` is an
unguessable per-room token: the server has no other authentication, so the URL is the
capability. Streamable HTTP at ``.../mcp``; legacy HTTP+SSE at ``.../sse`` + ``.../messages/``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
import socket
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from typing import Any

import mcp.types as types
from mcp.server.lowlevel import Server
from mcp.server.sse import SseServerTransport
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from starlette.applications import Starlette
from starlette.responses import PlainTextResponse
from starlette.types import Receive, Scope, Send

from band.core.types import ToolCallOutcome
from band.core.wire import JsonObject, JsonValue
from band.runtime.tools.spec import ToolSpec
from band.serving import BodyLimit, GracefulServer, Limits, guarded_config
from band.serving.sse import serve_sse

__all__ = ["SERVER_NAME", "BandMCPServer"]

log = logging.getLogger("band.acp.mcp")

SERVER_NAME = "band"
START_TIMEOUT_S = 10.0
SHUTDOWN_TIMEOUT_S = 5.0
#: request bodies, header time and size, connections (README "Limits")
LIMITS = Limits()


#: (room_id, tool name, arguments) -> outcome of the call in that room
CallTool = Callable[[str, str, JsonObject], Awaitable[ToolCallOutcome]]


def _image_blocks(value: JsonValue) -> list[types.ImageContent] | None:
    """MCP image content for a ``{"content": [{"type": "image", ...}]}`` result, else None."""
    blocks = value.get("content") if isinstance(value, dict) and len(value) == 1 else None
    if not isinstance(blocks, list) or not blocks:
        return None
    if not all(isinstance(b, dict) and b.get("type") == "image" for b in blocks):
        return None
    return [
        types.ImageContent(type="image", data=str(b["data"]), mimeType=str(b["mimeType"]))
        for b in blocks
    ]


class _QuietServer(GracefulServer):
    # the host process owns SIGINT/SIGTERM, not this embedded server
    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


def _security() -> TransportSecuritySettings:
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=["127.0.0.1:*", "localhost:*"],
        allowed_origins=["http://127.0.0.1:*", "http://localhost:*"],
    )


class BandMCPServer:
    """Serves ``tools`` to every bound room; a call runs in the room its URL names."""

    def __init__(self, tools: Callable[[], list[ToolSpec[Any, Any]]], call: CallTool) -> None:
        self._tools = tools
        self._call = call
        self._rooms: dict[str, str] = {}  # key -> room id
        self._keys: dict[str, str] = {}  # room id -> key
        self._server: _QuietServer | None = None
        self._task: asyncio.Task[None] | None = None
        self._lock = asyncio.Lock()
        self._closed = False
        self._sse: dict[str, SseServerTransport] = {}
        self.port: int | None = None

    @property
    def closed(self) -> bool:
        """True once :meth:`stop` ran (a stopped server is replaced, not restarted)."""
        return self._closed

    # -- rooms --

    def bind(self, room_id: str) -> str:
        """The room's unguessable key (stable while the server runs)."""
        key = self._keys.get(room_id)
        if key is None:
            key = secrets.token_urlsafe(24)
            self._keys[room_id], self._rooms[key] = key, room_id
        return key

    def unbind(self, room_id: str) -> None:
        """Forget the room: its URL answers 404 from now on."""
        key = self._keys.pop(room_id, None)
        if key is not None:
            self._rooms.pop(key, None)
            self._sse.pop(key, None)

    def url(self, room_id: str, transport: str = "http") -> str:
        """The room's endpoint for ``transport`` (``http`` or ``sse``)."""
        assert self.port is not None, "server not started"
        path = "mcp" if transport == "http" else "sse"
        return f"http://127.0.0.1:{self.port}/rooms/{self.bind(room_id)}/{path}"

    # -- MCP --

    def _mcp(self) -> Server[Any, Any]:
        server: Server[Any, Any] = Server(SERVER_NAME)

        async def list_tools() -> list[types.Tool]:
            return [
                types.Tool(name=t.name, description=t.description, inputSchema=t.json_schema())
                for t in self._tools()
            ]

        async def call_tool(
            name: str, arguments: JsonObject | None
        ) -> types.CallToolResult | list[types.ImageContent] | JsonObject | list[types.TextContent]:
            request = server.request_context.request
            key = request.path_params.get("room_key") if request is not None else None
            room_id = self._rooms.get(key or "")
            if room_id is None:
                raise ValueError("This Band MCP URL is not bound to a room")
            result = await self._call(room_id, name, dict(arguments or {}))
            if not result.ok:
                return types.CallToolResult(
                    content=[
                        types.TextContent(
                            type="text", text=str(result.error_message or result.value)
                        )
                    ],
                    isError=True,
                )
            value = result.value
            images = _image_blocks(value)
            if images is not None:  # band_read_room_file's inline image
                return images
            if isinstance(value, dict):
                return value
            text = value if isinstance(value, str) else json.dumps(value, default=str, indent=2)
            return [types.TextContent(type="text", text=text)]

        # registered by call, not as decorators: mcp's decorator factories are unannotated
        server.list_tools()(list_tools)
        server.call_tool(validate_input=False)(call_tool)
        return server

    def _app(self) -> Starlette:
        server = self._mcp()
        security = _security()
        manager = StreamableHTTPSessionManager(
            app=server, stateless=True, security_settings=security
        )
        rooms = self._rooms

        async def app(scope: Scope, receive: Receive, send: Send) -> None:
            if scope["type"] == "lifespan":
                await lifespan_app(scope, receive, send)
                return
            parts = scope.get("path", "").split("/")
            # /rooms/<key>/<endpoint>[/...]
            if (
                scope["type"] != "http"
                or len(parts) < 4
                or parts[1] != "rooms"
                or parts[2] not in rooms
            ):
                await PlainTextResponse("Not Found", status_code=404)(scope, receive, send)
                return
            key, endpoint = parts[2], parts[3]
            root = f"/rooms/{key}"
            sub = {
                **scope,
                "root_path": scope.get("root_path", "") + root,
                "path_params": {"room_key": key},
            }
            if endpoint == "mcp" and len(parts) == 4:
                await manager.handle_request(sub, receive, send)
            elif endpoint == "sse" and len(parts) == 4 and scope["method"] == "GET":
                sse = self._sse.get(key)
                if sse is None:  # one transport per room: it keeps that room's SSE sessions
                    sse = self._sse[key] = SseServerTransport(
                        "/messages/", security_settings=security
                    )
                await serve_sse(sse, server, sub, receive, send)
            elif endpoint == "messages" and scope["method"] == "POST" and key in self._sse:
                await self._sse[key].handle_post_message(sub, receive, send)
            else:
                await PlainTextResponse("Not Found", status_code=404)(scope, receive, send)

        @contextlib.asynccontextmanager
        async def lifespan(_: Starlette) -> AsyncIterator[None]:
            async with manager.run():
                yield

        lifespan_app = Starlette(lifespan=lifespan)
        return app  # type: ignore[return-value]

    # -- lifecycle --

    async def start(self) -> None:
        """Serve on a free 127.0.0.1 port (idempotent)."""
        async with self._lock:
            if self._closed:
                raise RuntimeError("the Band MCP server was stopped")
            if self._server is not None:
                return
            # IPPROTO_TCP, not 0: asyncio sets TCP_NODELAY only on sockets whose proto says TCP
            # (an accepted socket inherits it); without it every response waited ~40 ms
            # (Nagle's algorithm against the client's delayed ACK)
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
            sock.bind(("127.0.0.1", 0))
            self.port = sock.getsockname()[1]
            config = guarded_config(
                BodyLimit(self._app(), LIMITS.max_body),
                LIMITS,
                lifespan="on",
                log_level="warning",
                access_log=False,
                timeout_graceful_shutdown=int(SHUTDOWN_TIMEOUT_S),
            )
            server = _QuietServer(config)
            self._task = asyncio.create_task(server.serve(sockets=[sock]))
            self._server = server
            async with asyncio.timeout(START_TIMEOUT_S):
                while not server.started:
                    if self._task.done():
                        await self._task
                        raise RuntimeError("the Band MCP server did not start")
                    await asyncio.sleep(0.01)
            log.info("Band MCP server on 127.0.0.1:%s", self.port)

    async def stop(self) -> None:
        """Stop serving; a stopped server cannot start again."""
        async with self._lock:
            self._closed = True
            server, task, self._server, self._task = self._server, self._task, None, None
            if server is None or task is None:
                return
            server.should_exit = True
            try:
                await asyncio.wait_for(task, SHUTDOWN_TIMEOUT_S + 2)
            except Exception:
                task.cancel()
                with contextlib.suppress(BaseException):
                    await task
