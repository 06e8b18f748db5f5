"""``SharedBandMCPBackend``: one adapter's Band MCP server (a ``LocalMCPServer``, the one the
ACP adapter serves its agents).

Room-bound (``room_bound=True``): each room gets its own unguessable loopback URL whose tools
act in that room. Multi-room (the default): one URL whose tools take the room as ``chat_id``.
The server has no other authentication: a URL is the capability. A call runs on the tools
``get_tools(room_id)`` returns (the running turn's ``AgentTools``), so its effect counts for
that turn.
"""

from __future__ import annotations

import asyncio
import enum
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Self

from band.runtime.tools.custom import CustomToolDef

from .local_server import (
    LOCAL_MCP_HOST,
    LOCAL_MCP_PORT_MAX,
    LOCAL_MCP_PORT_MIN,
    SERVER_NAME,
    LocalMCPServer,
)
from .registrations import (
    RoomToolResolver,
    ToolSource,
    build_resolved_band_mcp_tool_registrations,
)

__all__ = [
    "BandMCPBackend",
    "BandMCPBackendSettings",
    "BandMCPBackendStoppedError",
    "BandMCPTransport",
    "SharedBandMCPBackend",
]


class BandMCPTransport(enum.StrEnum):
    """The MCP transports the server speaks: streamable HTTP and the legacy HTTP+SSE."""

    HTTP = "http"
    SSE = "sse"


class BandMCPBackendStoppedError(RuntimeError):
    """The backend was closed for good; ``reopen()`` accepts ``ensure()`` again."""


@dataclass(frozen=True)
class BandMCPBackendSettings:
    """What the server serves: ``tool_definitions`` (the tool table's ``ToolDefinition``s or
    our ``ToolSpec``s, e.g. from ``select_tools``) and the custom ``additional_tools``, run on
    ``get_tools(room_id)``.

    ``room_bound``: one URL per room (``endpoint(transport, room_id)``), whose tools take no
    ``chat_id``; else one URL for every room (``endpoint(transport)``), whose tools require
    it. The port is a free one of ``port_min``..``port_max`` (any free port when
    ``port_min`` is 0); ``host`` is 127.0.0.1 only.
    """

    tool_definitions: Sequence[ToolSource]
    get_tools: RoomToolResolver
    additional_tools: Sequence[CustomToolDef] = ()
    room_bound: bool = False
    host: str = LOCAL_MCP_HOST
    port_min: int = LOCAL_MCP_PORT_MIN
    port_max: int = LOCAL_MCP_PORT_MAX

    def __post_init__(self) -> None:
        if self.host not in ("127.0.0.1", "localhost"):
            raise ValueError("the Band MCP backend binds 127.0.0.1 only")
        if self.port_min > self.port_max:
            raise ValueError("port_min must be less than or equal to port_max")


@dataclass(frozen=True)
class BandMCPBackend:
    """A running server and the tool names a framework is allowed to call on it."""

    allowed_tools: list[str]
    local_server: LocalMCPServer

    @property
    def is_running(self) -> bool:
        """False once the server stopped."""
        return self.local_server.is_running

    def endpoint(self, transport: BandMCPTransport, room_id: str | None = None) -> str:
        """The URL a client dials for ``transport``: ``room_id``'s (room-bound), else the
        one of every room; ``ValueError`` when ``room_id`` does not fit ``room_bound``."""
        server, kind = self.local_server, BandMCPTransport(transport)
        if room_id is None:
            return server.http_url if kind is BandMCPTransport.HTTP else server.sse_url
        if kind is BandMCPTransport.HTTP:
            return server.room_http_url(room_id)
        return server.room_sse_url(room_id)

    async def stop(self) -> None:
        """Stop the server (its URLs answer no more)."""
        await self.local_server.stop()


async def _start(settings: BandMCPBackendSettings, avoid_port: int | None) -> BandMCPBackend:
    custom = list(settings.additional_tools)
    registrations = build_resolved_band_mcp_tool_registrations(
        get_tools=settings.get_tools,
        additional_tools=custom,
        tool_definitions=settings.tool_definitions,
        room_from_connection=settings.room_bound,
    )
    server = LocalMCPServer(
        SERVER_NAME,
        registrations,
        host=settings.host,
        port_min=settings.port_min,
        port_max=settings.port_max,
        room_bound=settings.room_bound,
        avoid_port=avoid_port,
    )
    await server.start()
    allowed = [f"mcp__{SERVER_NAME}__{r.name}" for r in registrations]
    return BandMCPBackend(allowed_tools=allowed, local_server=server)


class SharedBandMCPBackend:
    """One adapter's backend: started by the first ``ensure()``, replaced when its server
    stopped, refused after ``close(final=True)`` until ``reopen()``. ``settings`` is read at
    each start (the tools are settled only when the agent starts)."""

    def __init__(self, settings: Callable[[], BandMCPBackendSettings]) -> None:
        self._settings = settings
        self._backend: BandMCPBackend | None = None
        self._closed = False
        self._lock = asyncio.Lock()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close(final=True)

    @property
    def current(self) -> BandMCPBackend | None:
        """The backend started last, if any (it may have stopped since)."""
        return self._backend

    async def ensure(self) -> BandMCPBackend:
        """The running backend, started (or replaced) if needed."""
        async with self._lock:
            if self._closed:
                raise BandMCPBackendStoppedError("the Band MCP backend was closed")
            if self._backend is None or not self._backend.is_running:
                dead = self._backend
                if dead is not None:
                    await dead.stop()
                # a replacement avoids its dead predecessor's port: stale clients still dial it
                avoid = dead.local_server.port if dead is not None else None
                self._backend = await _start(self._settings(), avoid)
            return self._backend

    async def detach(self, *, final: bool) -> BandMCPBackend | None:
        """Hand the backend over (the caller stops it); ``final`` refuses later ``ensure()``."""
        async with self._lock:
            self._closed = self._closed or final
            backend, self._backend = self._backend, None
            return backend

    async def close(self, *, final: bool) -> None:
        """Stop the backend; ``final`` refuses later ``ensure()`` until ``reopen()``."""
        backend = await self.detach(final=final)
        if backend is not None:
            await backend.stop()

    async def reopen(self) -> None:
        """Accept ``ensure()`` again after a final close (an agent starting again)."""
        async with self._lock:
            self._closed = False
