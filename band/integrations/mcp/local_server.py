"""``LocalMCPServer``: Band tools served over MCP on a loopback port (the server named
``band`` the ACP adapter hands its agents, and ``BandMCPBackend``'s).

One uvicorn on 127.0.0.1 serves streamable HTTP (``.../mcp``) and the legacy HTTP+SSE
(``.../sse`` + ``.../messages/``). The server has no other authentication, so each endpoint
sits under an unguessable key and its URL is the capability: a room-bound server gives each
room its own (``/rooms/<key>/``, the room comes from the URL), a multi-room server one for
all rooms (``/<key>/``, each call names its room in ``chat_id``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import random
import secrets
import socket
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Self

import mcp.types as types
from mcp.server.lowlevel import Server
from mcp.server.sse import SseServerTransport
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from pydantic import BaseModel
from starlette.applications import Starlette
from starlette.responses import PlainTextResponse
from starlette.types import Receive, Scope, Send

from band.core.types import ToolCallOutcome
from band.core.wire import JsonObject, JsonValue
from band.runtime.tools.constants import CHAT_ID_FIELD_NAME
from band.runtime.tools.spec import model_schema
from band.serving import BodyLimit, GracefulServer, Limits, guarded_config
from band.serving.sse import serve_sse

__all__ = [
    "LOCAL_MCP_HEALTH_PATH",
    "LOCAL_MCP_HOST",
    "LOCAL_MCP_HTTP_PATH",
    "LOCAL_MCP_MESSAGE_PATH",
    "LOCAL_MCP_PORT_MAX",
    "LOCAL_MCP_PORT_MIN",
    "LOCAL_MCP_SSE_PATH",
    "SERVER_NAME",
    "SERVER_START_TIMEOUT_S",
    "SERVER_STOP_TIMEOUT_S",
    "EmbeddedUvicornServer",
    "LocalMCPServer",
    "MCPToolExecutor",
    "MCPToolRegistration",
]

log = logging.getLogger("band.acp.mcp")

SERVER_NAME = "band"
LOCAL_MCP_HOST = "127.0.0.1"
#: the port range a server picks from (from a random offset); ``port_min=0``: any free port
LOCAL_MCP_PORT_MIN = 50000
LOCAL_MCP_PORT_MAX = 60000
LOCAL_MCP_SSE_PATH = "/sse"
LOCAL_MCP_HTTP_PATH = "/mcp"
LOCAL_MCP_MESSAGE_PATH = "/messages/"
LOCAL_MCP_HEALTH_PATH = "/healthz"
SERVER_START_TIMEOUT_S = 10.0
SERVER_STOP_TIMEOUT_S = 5
#: request bodies, header time and size, connections (README "Limits")
LIMITS = Limits()

#: runs one call: the validated-by-the-tool arguments (with ``chat_id``) -> its result
MCPToolExecutor = Callable[[dict[str, Any]], Awaitable[Any]]


@dataclass(frozen=True)
class MCPToolRegistration:
    """One tool a ``LocalMCPServer`` serves: its name, description, input model (whose
    schema is listed) and ``execute``.

    ``execute`` gets the call's arguments with the room in ``chat_id``: from the URL when
    ``room_from_connection`` (a room-bound server; the listed schema has no ``chat_id``),
    else as the caller gave it. It returns the result (a ``ToolCallOutcome`` says whether it
    failed); an exception is the caller's error result, with its message.
    """

    name: str
    description: str
    input_model: type[BaseModel]
    execute: MCPToolExecutor
    room_from_connection: bool = False


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


class EmbeddedUvicornServer(GracefulServer):
    """A uvicorn server inside a host process: the host owns SIGINT/SIGTERM (stopping is
    ``should_exit``), and it closes gracefully within its limits."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


def _security() -> TransportSecuritySettings:
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=["127.0.0.1:*", "localhost:*"],
        allowed_origins=["http://127.0.0.1:*", "http://localhost:*"],
    )


Registrations = Sequence[MCPToolRegistration] | Callable[[], Sequence[MCPToolRegistration]]


def _listed_schema(registration: MCPToolRegistration) -> JsonObject:
    """The tool's listed input schema: a room-bound tool's has no ``chat_id``."""
    schema: JsonObject = json.loads(json.dumps(model_schema(registration.input_model)))
    if registration.room_from_connection:
        properties, listed = schema.get("properties"), schema.get("required")
        if isinstance(properties, dict):
            properties.pop(CHAT_ID_FIELD_NAME, None)
        required = (
            [r for r in listed or [] if r != CHAT_ID_FIELD_NAME] if isinstance(listed, list) else []
        )
        schema.pop("required", None)
        if required:
            schema["required"] = required
    return schema


def _error(text: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)], isError=True)


class LocalMCPServer:
    """Serves ``tool_registrations`` (a list, or a callable read at each listing: tools
    settled when an agent starts) as MCP server ``name`` on ``host``.

    ``room_bound``: each room has its own endpoint (``room_http_url(room_id)``,
    ``room_sse_url``) whose calls act in that room; else one endpoint (``http_url``,
    ``sse_url``) whose calls name their room in ``chat_id``. The port is a free one from
    ``port_min``..``port_max`` (from a random offset, ``avoid_port`` last), any free port when
    ``port_min`` is 0. ``async with`` starts and stops it; a stopped server is not restarted.
    """

    def __init__(
        self,
        name: str,
        tool_registrations: Registrations,
        *,
        host: str = LOCAL_MCP_HOST,
        port_min: int = LOCAL_MCP_PORT_MIN,
        port_max: int = LOCAL_MCP_PORT_MAX,
        sse_path: str = LOCAL_MCP_SSE_PATH,
        http_path: str = LOCAL_MCP_HTTP_PATH,
        message_path: str = LOCAL_MCP_MESSAGE_PATH,
        room_bound: bool = False,
        avoid_port: int | None = None,
    ) -> None:
        if port_min > port_max:
            raise ValueError("port_min must be less than or equal to port_max")
        if host not in ("127.0.0.1", "localhost"):
            raise ValueError("a local MCP server binds 127.0.0.1 only (its URLs are its keys)")
        self.name = name
        self._registrations = tool_registrations
        self._host = "127.0.0.1"
        self._ports = (port_min, port_max)
        self._avoid = avoid_port
        self._paths = {
            sse_path.strip("/"): "sse",
            http_path.strip("/"): "mcp",
            message_path.strip("/"): "messages",
        }
        self._sse_path, self._http_path = sse_path.strip("/"), http_path.strip("/")
        self._message_path = "/" + message_path.strip("/") + "/"
        self.room_bound = room_bound
        self._server_key = secrets.token_urlsafe(24)  # the multi-room endpoint's key
        self._rooms: dict[str, str] = {}  # key -> room id
        self._keys: dict[str, str] = {}  # room id -> key
        self._server: EmbeddedUvicornServer | None = None
        self._task: asyncio.Task[None] | None = None
        self._lock = asyncio.Lock()
        self._closed = False
        self._sse: dict[str, SseServerTransport] = {}
        self._port: int | None = None

    async def __aenter__(self) -> Self:
        await self.start()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.stop()

    @property
    def port(self) -> int | None:
        """The bound port (None before the first start; a stopped server keeps it)."""
        return self._port

    @property
    def closed(self) -> bool:
        """True once :meth:`stop` ran (a stopped server is replaced, not restarted)."""
        return self._closed

    @property
    def is_running(self) -> bool:
        """False before the start and once the server stopped or died."""
        return self._task is not None and not self._task.done()

    def registrations(self) -> list[MCPToolRegistration]:
        """The tools served now."""
        regs = self._registrations
        return list(regs() if callable(regs) else regs)

    # -- endpoints --

    def _origin(self) -> str:
        if self._port is None:
            raise RuntimeError(f"Local MCP server {self.name} has not started")
        return f"http://127.0.0.1:{self._port}"

    def _need(self, room_bound: bool) -> None:
        if self.room_bound != room_bound:
            how = "room_http_url/room_sse_url" if self.room_bound else "http_url/sse_url"
            kind = "room-bound" if self.room_bound else "multi-room"
            raise ValueError(f"Local MCP server {self.name} is {kind}; address it with {how}")

    @property
    def http_url(self) -> str:
        """The multi-room streamable HTTP endpoint."""
        self._need(False)
        return f"{self._origin()}/{self._server_key}/{self._http_path}"

    @property
    def sse_url(self) -> str:
        """The multi-room HTTP+SSE endpoint."""
        self._need(False)
        return f"{self._origin()}/{self._server_key}/{self._sse_path}"

    @property
    def url(self) -> str:
        """``sse_url``."""
        return self.sse_url

    def bind(self, room_id: str) -> str:
        """The room's unguessable key (stable while the server runs)."""
        self._need(True)
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

    def room_http_url(self, room_id: str) -> str:
        """The room's streamable HTTP endpoint."""
        return f"{self._origin()}/rooms/{self.bind(room_id)}/{self._http_path}"

    def room_sse_url(self, room_id: str) -> str:
        """The room's HTTP+SSE endpoint."""
        return f"{self._origin()}/rooms/{self.bind(room_id)}/{self._sse_path}"

    def room_url(self, room_id: str, transport: str = "http") -> str:
        """The room's endpoint for ``transport`` (``http`` or ``sse``)."""
        return self.room_http_url(room_id) if transport == "http" else self.room_sse_url(room_id)

    # -- MCP --

    def _mcp(self) -> Server[Any, Any]:
        server: Server[Any, Any] = Server(self.name)

        async def list_tools() -> list[types.Tool]:
            return [
                types.Tool(name=r.name, description=r.description, inputSchema=_listed_schema(r))
                for r in self.registrations()
            ]

        async def call_tool(
            name: str, arguments: JsonObject | None
        ) -> types.CallToolResult | list[types.ImageContent] | JsonObject | list[types.TextContent]:
            request = server.request_context.request
            key = request.path_params.get("key") if request is not None else None
            args = dict(arguments or {})
            if self.room_bound:
                room_id = self._rooms.get(key or "")
                if room_id is None:
                    raise ValueError("This Band MCP URL is not bound to a room")
                args[CHAT_ID_FIELD_NAME] = room_id  # the URL's room, whatever the caller says
            registration = next((r for r in self.registrations() if r.name == name), None)
            if registration is None:
                return _error(f"Unknown tool: {name}")
            try:
                result = await registration.execute(args)
            except Exception as exc:  # the caller's error result, not the server's
                return _error(str(exc) or type(exc).__name__)
            if isinstance(result, ToolCallOutcome):
                if not result.ok:
                    return _error(str(result.error_message or result.value))
                result = result.value
            return _content(result)

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

        async def app(scope: Scope, receive: Receive, send: Send) -> None:
            if scope["type"] == "lifespan":
                await lifespan_app(scope, receive, send)
                return
            parts = scope.get("path", "").split("/")
            if scope["type"] == "http" and scope.get("path") == LOCAL_MCP_HEALTH_PATH:
                await PlainTextResponse("ok")(scope, receive, send)
                return
            # room-bound: /rooms/<key>/<endpoint>[/...]; multi-room: /<key>/<endpoint>[/...]
            if self.room_bound and len(parts) >= 4 and parts[1] == "rooms":
                key, rest, root = parts[2], parts[3:], f"/rooms/{parts[2]}"
                known = key in self._rooms
            elif not self.room_bound and len(parts) >= 3:
                key, rest, root = parts[1], parts[2:], f"/{parts[1]}"
                known = secrets.compare_digest(key, self._server_key)
            else:
                known, key, rest, root = False, "", [], ""
            endpoint = self._paths.get("/".join(rest).strip("/")) if known else None
            if scope["type"] != "http" or endpoint is None:
                await PlainTextResponse("Not Found", status_code=404)(scope, receive, send)
                return
            sub = {
                **scope,
                "root_path": scope.get("root_path", "") + root,
                "path_params": {"key": key},
            }
            if endpoint == "mcp":
                await manager.handle_request(sub, receive, send)
            elif endpoint == "sse" and scope["method"] == "GET":
                sse = self._sse.get(key)
                if sse is None:  # one transport per endpoint: it keeps that endpoint's sessions
                    sse = self._sse[key] = SseServerTransport(
                        self._message_path, security_settings=security
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

    def _socket(self) -> socket.socket:
        """A bound socket: any free port when ``port_min`` is 0, else one of the range."""
        low, high = self._ports
        ports = [0]
        if low:
            start = random.randrange(high - low + 1)
            ports = [low + (start + i) % (high - low + 1) for i in range(high - low + 1)]
            ports.sort(key=lambda p: p == self._avoid)  # a port just given up: the last resort
        for port in ports:
            # IPPROTO_TCP, not 0: asyncio sets TCP_NODELAY only on sockets whose proto says
            # TCP (an accepted socket inherits it); without it every response waited ~40 ms
            # (Nagle's algorithm against the client's delayed ACK)
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
            try:
                sock.bind((self._host, port))
            except OSError:
                sock.close()
                continue
            return sock
        raise RuntimeError(f"Could not find a free localhost MCP port in range {low}-{high}")

    async def start(self) -> None:
        """Serve on a free 127.0.0.1 port (idempotent)."""
        async with self._lock:
            if self._closed:
                raise RuntimeError("the Band MCP server was stopped")
            if self._server is not None:
                return
            sock = self._socket()
            self._port = sock.getsockname()[1]
            config = guarded_config(
                BodyLimit(self._app(), LIMITS.max_body),
                LIMITS,
                lifespan="on",
                log_level="warning",
                access_log=False,
                timeout_graceful_shutdown=SERVER_STOP_TIMEOUT_S,
            )
            server = EmbeddedUvicornServer(config)
            self._task = asyncio.create_task(server.serve(sockets=[sock]))
            self._server = server
            async with asyncio.timeout(SERVER_START_TIMEOUT_S):
                while not server.started:
                    if self._task.done():
                        await self._task
                        raise RuntimeError("the Band MCP server did not start")
                    await asyncio.sleep(0.01)
            log.info("MCP server %s on 127.0.0.1:%s", self.name, self._port)

    async def stop(self) -> None:
        """Stop serving; a stopped server cannot start again."""
        async with self._lock:
            self._closed = True
            server, task, self._server, self._task = self._server, self._task, None, None
            if server is None or task is None:
                return
            server.should_exit = True
            try:
                await asyncio.wait_for(task, SERVER_STOP_TIMEOUT_S + 2)
            except Exception:
                task.cancel()
                with contextlib.suppress(BaseException):
                    await task


def _content(
    value: Any,
) -> list[types.ImageContent] | JsonObject | list[types.TextContent]:
    """A successful result as MCP content: inline images, a structured object, or text."""
    images = _image_blocks(value)
    if images is not None:  # band_read_room_file's inline image
        return images
    if isinstance(value, dict):
        return value
    text = value if isinstance(value, str) else json.dumps(value, default=str, indent=2)
    return [types.TextContent(type="text", text=text)]
