"""How an ACP client reaches its agent: the connection's shape, the spawn's, and TCP.

``ACPRoomProcess`` opens an agent with a *spawner*: called as ``spawn(client, *command,
env=, cwd=, transport_kwargs=, use_unstable_protocol=)``, it returns an async context manager
yielding ``(connection, transport)``. acp's ``spawn_agent_process`` is the stdio one (the
transport is the process); ``tcp_spawn_process`` connects to an agent already listening.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any, Protocol

from acp import Client, connect_to_agent
from acp.schema import LoadSessionResponse, NewSessionResponse, SetSessionConfigOptionResponse

__all__ = [
    "ACP_STDIO_LIMIT_BYTES",
    "ACPConnectionProtocol",
    "ACPSpawnContextProtocol",
    "tcp_spawn_process",
]

log = logging.getLogger("band.acp")

#: the agent's line limit (asyncio's 64 KiB default is too small for large tool output)
ACP_STDIO_LIMIT_BYTES = 16 * 1024 * 1024


class ACPConnectionProtocol(Protocol):
    """The agent-side calls a client makes (acp's ``ClientSideConnection`` has them)."""

    async def initialize(self, *, protocol_version: int) -> object: ...

    async def authenticate(self, *, method_id: str) -> object: ...

    async def new_session(self, *, cwd: str, mcp_servers: list[Any]) -> NewSessionResponse: ...

    async def load_session(
        self, *, cwd: str, session_id: str, mcp_servers: list[Any]
    ) -> LoadSessionResponse | None: ...

    async def prompt(self, *, session_id: str, prompt: list[Any]) -> object: ...

    async def set_config_option(
        self, *, config_id: str, session_id: str, value: str
    ) -> SetSessionConfigOptionResponse | None: ...

    async def close_session(self, session_id: str) -> object: ...

    async def cancel(self, session_id: str) -> None: ...


class ACPSpawnContextProtocol(Protocol):
    """What a spawner returns: entered, the connection and its transport; exited, closed."""

    async def __aenter__(self) -> tuple[ACPConnectionProtocol, object]: ...

    async def __aexit__(self, exc_type: object, exc: object, tb: object) -> object: ...


def tcp_spawn_process(
    host: str, port: int, *, limit: int = ACP_STDIO_LIMIT_BYTES
) -> Callable[..., AbstractAsyncContextManager[tuple[Any, Any]]]:
    """A spawner that connects to an ACP agent listening on ``host:port`` instead of
    starting a process (the transport is the socket's writer).

    The command, environment and working directory a stdio spawn would use are the
    listening agent's own business and are ignored; ``limit`` bounds one message line.
    """

    @asynccontextmanager
    async def connect(
        client: Client,
        *command: object,
        env: object = None,
        cwd: object = None,
        transport_kwargs: object = None,
        use_unstable_protocol: bool = False,
        **connection_kwargs: Any,
    ) -> AsyncIterator[tuple[Any, Any]]:
        reader, writer = await asyncio.open_connection(host, port, limit=limit)
        # acp's order: the agent's input (our writer), then its output (our reader)
        conn = connect_to_agent(
            client, writer, reader, use_unstable_protocol=use_unstable_protocol, **connection_kwargs
        )
        try:
            yield conn, writer
        finally:
            try:
                await conn.close()
            finally:
                writer.close()
                with contextlib.suppress(Exception):  # a peer already gone: nothing to wait for
                    await writer.wait_closed()

    return connect
