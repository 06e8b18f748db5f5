"""``SharedBandMCPBackend``: one adapter's Band MCP server, on the ACP adapter's ``band`` server.

Each room gets its own unguessable loopback URL whose tools act in that room (the server
has no other authentication: the URL is the capability). A call runs on the room's tools as
``get_tools(room_id)`` returns them (the running turn's ``AgentTools``), so its effect counts
for that turn.
"""

from __future__ import annotations

import asyncio
import enum
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Self

from band.core.exceptions import BandToolError
from band.core.protocols import AgentToolsProtocol
from band.core.types import ToolCallOutcome
from band.core.wire import JsonObject
from band.integrations.acp.mcp_server import SERVER_NAME, BandMCPServer
from band.runtime.tools.spec import ToolSpec

__all__ = [
    "BandMCPBackend",
    "BandMCPBackendSettings",
    "BandMCPBackendStoppedError",
    "BandMCPTransport",
    "SharedBandMCPBackend",
]

#: room id -> the tools of the turn running there (None: no turn runs, the call is refused)
RoomToolResolver = Callable[[str], AgentToolsProtocol | None]


class BandMCPTransport(enum.StrEnum):
    """The MCP transports the server speaks: streamable HTTP and the legacy HTTP+SSE."""

    HTTP = "http"
    SSE = "sse"


class BandMCPBackendStoppedError(RuntimeError):
    """The backend was closed for good; ``reopen()`` accepts ``ensure()`` again."""


@dataclass(frozen=True)
class BandMCPBackendSettings:
    """What the server serves: ``tool_definitions`` (the Band tools' specs, e.g. from
    ``select_tools``) run on ``get_tools(room_id)``.

    Only room-bound serving is offered (``room_bound=True``: one URL per room, its tools take
    no ``chat_id``) and only on 127.0.0.1; ``additional_tools``, ``port_min`` and ``port_max``
    must keep their defaults (a free port is chosen).
    """

    tool_definitions: Sequence[ToolSpec[Any, Any]]
    get_tools: RoomToolResolver
    additional_tools: Sequence[Any] = ()
    room_bound: bool = True
    host: str = "127.0.0.1"
    port_min: int = 0
    port_max: int = 0

    def __post_init__(self) -> None:
        if not self.room_bound:
            raise ValueError("only room_bound Band MCP backends are offered (one URL per room)")
        if self.host != "127.0.0.1":
            raise ValueError("the Band MCP backend binds 127.0.0.1 only")
        if self.additional_tools or self.port_min or self.port_max:
            raise ValueError("additional_tools, port_min and port_max are not offered")


@dataclass(frozen=True)
class BandMCPBackend:
    """A running server and the tool names a framework is allowed to call on it."""

    allowed_tools: list[str]
    local_server: BandMCPServer

    @property
    def is_running(self) -> bool:
        """False once the server stopped."""
        return not self.local_server.closed and self.local_server.port is not None

    def endpoint(self, transport: BandMCPTransport, room_id: str | None = None) -> str:
        """The URL of ``room_id``'s tools for ``transport``."""
        if room_id is None:
            raise ValueError("a room-bound backend serves one endpoint per room: give room_id")
        return self.local_server.url(room_id, BandMCPTransport(transport).value)

    async def stop(self) -> None:
        """Stop the server (its URLs answer no more)."""
        await self.local_server.stop()


async def _start(settings: BandMCPBackendSettings) -> BandMCPBackend:
    specs = list(settings.tool_definitions)
    names = {s.name for s in specs}

    async def call(room_id: str, name: str, arguments: JsonObject) -> ToolCallOutcome:
        tools = settings.get_tools(room_id)
        if tools is None:
            return ToolCallOutcome(None, False, "No turn is running in this room")
        if name not in names:
            return ToolCallOutcome(None, False, f"Unknown tool: {name}")
        try:
            outcome: ToolCallOutcome = await tools.execute_tool_call_structured(name, arguments)
        except BandToolError as exc:
            return ToolCallOutcome(None, False, str(exc))
        return outcome

    server = BandMCPServer(lambda: specs, call)
    await server.start()
    allowed = [f"mcp__{SERVER_NAME}__{s.name}" for s in specs]
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
                self._backend = await _start(self._settings())
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
