"""The ACP client side under band-sdk's module name: ``ACPRuntime`` and what it runs with.

``ACPRuntime`` drives one agent by hand: it is ``process.ACPRoomProcess`` (spawn, handshake,
stderr drain, bounded stop) with an ``ACPCollectingClient``, plus the session calls
``ACPClientAdapter`` makes per room (``rooms.ACPRooms``): new or load, configure, prompt and
collect, cancel, close. The adapter remains the way to put an agent in Band rooms.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any, cast

from acp import RequestError, text_block
from acp.schema import (
    ClientCapabilities,
    LoadSessionResponse,
    NewSessionResponse,
    SetSessionConfigOptionResponse,
)

from band.integrations.mcp.backends import BandMCPTransport

from .collecting import ACPCollectingClient, ChunkSink, CollectedChunk
from .config import SessionConfigOption
from .permissions import *  # noqa: F403 -- band-sdk's permission and elicitation helpers
from .permissions import ElicitationHandler, PermissionHandler
from .permissions import __all__ as _permissions
from .process import STDERR_DRAIN_TIMEOUT_S, STDERR_TAIL_LINES, ACPRoomProcess, Spawner
from .transport import (
    ACP_STDIO_LIMIT_BYTES,
    ACPConnectionProtocol,
    ACPSpawnContextProtocol,
    tcp_spawn_process,
)

__all__ = [
    "ACP_SESSION_LOAD_TIMEOUT_SECONDS",
    "ACP_STDIO_LIMIT_BYTES",
    "STDERR_DRAIN_TIMEOUT_S",
    "STDERR_TAIL_LINES",
    "ACPCollectingClient",
    "ACPConnectionProtocol",
    "ACPRuntime",
    "ACPSessionRestoreError",
    "ACPSpawnContextProtocol",
    "ChunkSink",
    "tcp_spawn_process",
    *_permissions,
]

log = logging.getLogger("band.acp")

#: How long ``ACPRuntime`` waits for the agent to answer a ``session/load``.
ACP_SESSION_LOAD_TIMEOUT_SECONDS = 5.0
#: ACP's "resource not found", an agent's answer for a session it does not know.
_NOT_FOUND = -32002


class ACPSessionRestoreError(RuntimeError):
    """A session could not be loaded (not advertised, refused, or no answer in time)."""

    def __init__(self, session_id: str, reason: str) -> None:
        super().__init__(f"ACP session {session_id} could not be restored: {reason}")
        self.session_id = session_id


class ACPRuntime:
    """One ACP agent, driven by hand: ``start``, sessions, ``prompt``, ``stop``.

    ``command`` runs the agent (empty with a connecting ``spawn_process`` such as
    ``tcp_spawn_process``); ``env`` is merged over acp's inherited HOME/PATH/...; ``cwd`` is
    the agent's working directory. ``client_factory`` makes the client for each start (an
    ``ACPCollectingClient`` by default). ``pass_builtin_transport_options=False``: the spawner
    gets neither the stdio limits nor ``use_unstable_protocol``.
    """

    def __init__(
        self,
        *,
        command: list[str],
        env: dict[str, str] | None = None,
        cwd: str | None = None,
        auth_method: str | None = None,
        client_factory: Callable[[], ACPCollectingClient] | None = None,
        spawn_process: Callable[..., object] | None = None,
        client_capabilities: ClientCapabilities | None = None,
        use_unstable_protocol: bool = False,
        pass_builtin_transport_options: bool = True,
    ) -> None:
        self._command = list(command)
        self._env = env
        self._cwd = cwd
        self._auth_method = auth_method
        self._client_factory = client_factory or ACPCollectingClient
        self._spawn = spawn_process
        self._capabilities = client_capabilities
        self._unstable = use_unstable_protocol
        self._builtin_options = pass_builtin_transport_options
        self._process: ACPRoomProcess | None = None
        self._client: ACPCollectingClient | None = None
        self._config_lock = asyncio.Lock()

    # -- lifecycle --

    async def start(self) -> None:
        """Spawn (or connect to) the agent, ``initialize`` it, and ``authenticate`` when an
        ``auth_method`` was given. A failed start leaves nothing running."""
        if self._process is not None:
            raise RuntimeError("the ACP runtime is already started; stop it first")
        client = self._client_factory()
        process = ACPRoomProcess(
            "runtime",
            self._command,
            client=client,
            workspace=self._cwd,
            env=self._env,
            use_unstable_protocol=self._unstable,
            client_capabilities=self._capabilities,
            spawn=cast(Spawner | None, self._spawn),
            builtin_transport_options=self._builtin_options,
        )
        await process.start(self._auth_method)
        self._process, self._client = process, client

    async def stop(self) -> None:
        """Close the connection and the agent (stdin closed, a grace, then signals)."""
        process, self._process = self._process, None
        if process is not None:
            await process.stop()

    @property
    def closed(self) -> bool:
        """No agent is running (never started, or stopped)."""
        return self._process is None

    async def ensure_connection(self) -> ACPConnectionProtocol:
        """The open connection to the agent."""
        if self._process is None or self._process.conn is None:
            raise RuntimeError("ACP client connection is not open")
        return self._process.conn

    @property
    def client(self) -> ACPCollectingClient | None:
        """The client answering the agent (``None`` until started)."""
        return self._client

    @property
    def agent_mcp_transport(self) -> BandMCPTransport:
        """The MCP transport the agent advertised: HTTP when it does, else SSE, else HTTP."""
        if self._process is None:
            return BandMCPTransport.HTTP
        return BandMCPTransport(self._process.mcp_transport)

    @property
    def config_lock(self) -> asyncio.Lock:
        """Held by a caller while it changes a session's configuration."""
        return self._config_lock

    def _live(self) -> ACPRoomProcess:
        if self._process is None or self._process.conn is None:
            raise RuntimeError("ACP client connection is not open")
        return self._process

    def _record(self, session_id: str, options: list[SessionConfigOption] | None) -> None:
        if options is not None and self._client is not None:
            self._client.record_config_options(session_id, options)

    # -- sessions --

    async def create_session(self, *, cwd: str, mcp_servers: list[Any]) -> str:
        """Open a new session; its id."""
        return (await self.create_session_response(cwd=cwd, mcp_servers=mcp_servers)).session_id

    async def create_session_response(
        self, *, cwd: str, mcp_servers: list[Any]
    ) -> NewSessionResponse:
        """Open a new session; the agent's answer (its configuration catalogue is recorded)."""
        response = await self._live().connection.new_session(cwd=cwd, mcp_servers=mcp_servers)
        self._record(response.session_id, response.config_options)
        return response

    async def restore_session_response(
        self, *, cwd: str, session_id: str, mcp_servers: list[Any]
    ) -> LoadSessionResponse:
        """Load exactly ``session_id``, or raise ``ACPSessionRestoreError``."""
        process = self._live()
        if not process.load_session:
            raise ACPSessionRestoreError(session_id, "the agent does not advertise loadSession")
        try:
            async with asyncio.timeout(ACP_SESSION_LOAD_TIMEOUT_SECONDS):
                response = await process.connection.load_session(
                    cwd=cwd, session_id=session_id, mcp_servers=mcp_servers
                )
        except TimeoutError as exc:
            reason = f"no answer within {ACP_SESSION_LOAD_TIMEOUT_SECONDS:g} seconds"
            raise ACPSessionRestoreError(session_id, reason) from exc
        except RequestError as exc:
            raise ACPSessionRestoreError(session_id, str(exc)) from exc
        # some agents replay a loaded session after answering; it is not the next turn's
        await process.replay_barrier()
        self._record(session_id, response.config_options)
        return response

    async def load_session_response(
        self, *, cwd: str, session_id: str, mcp_servers: list[Any]
    ) -> LoadSessionResponse | None:
        """Load ``session_id``; ``None`` when it cannot be (the caller opens a new one)."""
        try:
            return await self.restore_session_response(
                cwd=cwd, session_id=session_id, mcp_servers=mcp_servers
            )
        except ACPSessionRestoreError as exc:
            cause = exc.__cause__
            if isinstance(cause, RequestError) and cause.code == _NOT_FOUND:
                log.info("ACP session %s is no longer available", session_id)
            elif cause is not None:
                log.warning("%s; using a new session", exc)
            return None

    async def load_session(self, *, cwd: str, session_id: str, mcp_servers: list[Any]) -> bool:
        """Whether ``session_id`` was loaded."""
        loaded = await self.load_session_response(
            cwd=cwd, session_id=session_id, mcp_servers=mcp_servers
        )
        return loaded is not None

    async def set_config_option(
        self, *, session_id: str, config_id: str, value: str
    ) -> SetSessionConfigOptionResponse | None:
        """Set one configuration option; the agent's answer (its new catalogue is recorded)."""
        response = await self._live().connection.set_config_option(
            config_id=config_id, session_id=session_id, value=value
        )
        if response is not None:
            self._record(session_id, response.config_options)
        return response

    def config_options(self, session_id: str) -> tuple[SessionConfigOption, ...]:
        """The session's configuration catalogue as it stands (setup, sets, updates)."""
        return () if self._client is None else self._client.config_options(session_id)

    async def close_session(self, session_id: str) -> None:
        """Forget the session; tell the agent when it advertised ``session/close``."""
        if self._client is not None:
            self._client.forget_session(session_id)
        process = self._live()
        caps = process.init.agent_capabilities if process.init else None
        sessions = caps.session_capabilities if caps else None
        if sessions is not None and sessions.close is not None:
            await process.connection.close_session(session_id=session_id)

    # -- turns --

    async def prompt(
        self, *, session_id: str, prompt_text: str, on_chunk: ChunkSink | None = None
    ) -> list[CollectedChunk]:
        """Prompt the session and wait for the turn's end; its chunks (``on_chunk`` gets
        each as it completes)."""
        process = self._live()
        client = self._client
        if client is not None and on_chunk is not None:
            client.set_sink(session_id, on_chunk)
        try:
            await process.connection.prompt(session_id=session_id, prompt=[text_block(prompt_text)])
            if client is not None:
                await client.flush(session_id)
        finally:
            if client is not None:
                client.set_sink(session_id, None)
        return self.get_collected_chunks(session_id)

    async def cancel_turn(self, session_id: str) -> None:
        """Ask the agent to stop the session's running prompt (``session/cancel``)."""
        await self._live().cancel(session_id)

    def reset_session(self, session_id: str) -> None:
        """Drop the session's collected chunks and handlers (before its next turn)."""
        if self._client is not None:
            self._client.reset_session(session_id)

    def set_permission_handler(self, session_id: str, handler: PermissionHandler | None) -> None:
        """Who answers the session's permission requests (``None``: cancel them)."""
        if self._client is not None:
            self._client.set_permission_handler(session_id, handler)

    def set_elicitation_handler(self, session_id: str, handler: ElicitationHandler | None) -> None:
        """Who answers the session's elicitations (``None``: decline them)."""
        if self._client is not None:
            self._client.set_elicitation_handler(session_id, handler)

    def get_collected_chunks(self, session_id: str) -> list[CollectedChunk]:
        """The session's chunks since its last reset."""
        return [] if self._client is None else self._client.get_collected_chunks(session_id)
