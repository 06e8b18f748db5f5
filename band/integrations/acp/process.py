"""One room's ACP agent process over stdio (or another spawner's transport): spawn,
handshake, stderr drain, bounded stop."""

from __future__ import annotations

import asyncio
import collections
import contextlib
import logging
import shutil
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager, AsyncExitStack
from typing import Any, cast

from acp import PROTOCOL_VERSION, Client, spawn_agent_process
from acp.client.connection import ClientSideConnection
from acp.schema import ClientCapabilities, Implementation, InitializeResponse

from band._version import __version__

from .transport import ACP_STDIO_LIMIT_BYTES

__all__ = ["CANCEL_TIMEOUT_S", "STDERR_DRAIN_TIMEOUT_S", "ACPRoomProcess", "Spawner"]

log = logging.getLogger("band.acp")

#: How long ``session/cancel`` may take to write before the stop gives up on it.
CANCEL_TIMEOUT_S = 5.0
#: asyncio's default 64 KiB line limit is too small for large tool outputs.
STREAM_LIMIT = ACP_STDIO_LIMIT_BYTES
#: How long the replay barrier waits for the agent's answer before the turn goes on.
BARRIER_TIMEOUT_S = 5.0
#: The extension request the barrier sends (answered "method not found" by any agent).
BARRIER_METHOD = "band/replay_barrier"
#: How long the agent has to exit on its own once its stdin is closed (the end of input is how
#: an ACP agent is told to stop, and when it writes its session down) before SIGTERM, and again
#: before SIGKILL; the ACP SDK's own default is 2 s.
EXIT_GRACE_S = 4.0
#: Bound of the whole process shutdown (stdin closed, the grace, SIGTERM, the grace, SIGKILL).
SHUTDOWN_TIMEOUT_S = 10.0
STDERR_TAIL_LINES = 20
STDERR_CHUNK = 64 * 1024
#: How long a stop waits for the agent's stderr to reach its end (its last words belong to
#: the tail) before it stops reading; a descendant holding the pipe cannot hold the stop longer.
STDERR_DRAIN_TIMEOUT_S = 5.0

#: Opens an agent: ``spawn(client, *command, env=, cwd=, ...)`` -> (connection, transport).
Spawner = Callable[..., AbstractAsyncContextManager[tuple[Any, Any]]]


def _launcher(command: Sequence[str]) -> list[str]:
    # create_subprocess_exec applies no PATHEXT (npx is npx.cmd on Windows); a name
    # that cannot be resolved is kept so a missing binary still fails loudly
    if not command:  # a spawner that connects (TCP) runs no command
        return []
    found = shutil.which(command[0])
    return [found or command[0], *command[1:]]


class ACPRoomProcess:
    """The agent process of one room and its ACP connection.

    ``client`` answers the agent (a ``RoomClient``, or ``ACPCollectingClient`` under
    ``ACPRuntime``). ``spawn`` opens the agent (acp's stdio ``spawn_agent_process`` by default;
    ``tcp_spawn_process`` connects instead); ``builtin_transport_options=False`` leaves out
    the stdio transport options and the unstable-protocol switch, for a spawner without them.
    """

    def __init__(
        self,
        room_id: str,
        command: Sequence[str],
        *,
        client: object,
        workspace: str | None,
        env: Mapping[str, str] | None = None,
        use_unstable_protocol: bool = False,
        client_capabilities: ClientCapabilities | None = None,
        spawn: Spawner | None = None,
        builtin_transport_options: bool = True,
    ) -> None:
        self.room_id = room_id
        self.client = client
        self._argv = _launcher(command)
        self._workspace = workspace
        self._env = dict(env or {})
        self._unstable = use_unstable_protocol
        self._spawn: Spawner = spawn or spawn_agent_process
        self._builtin_options = builtin_transport_options
        # fs and terminal stay off unless the adapter was given other capabilities
        self._capabilities = client_capabilities or ClientCapabilities()
        self._stack = AsyncExitStack()
        self.conn: ClientSideConnection | None = None
        self.proc: asyncio.subprocess.Process | None = None
        #: what the spawner yielded beside the connection (the process, a socket's writer)
        self.transport: object = None
        self.init: InitializeResponse | None = None
        self.stderr_tail: collections.deque[str] = collections.deque(maxlen=STDERR_TAIL_LINES)
        self._drain: asyncio.Task[None] | None = None
        self.stopped = False

    async def start(self, auth_method: str | None = None) -> InitializeResponse:
        """Spawn the agent in the room's workspace, ``initialize`` and maybe ``authenticate``."""
        options: dict[str, Any] = {}
        if self._builtin_options:
            options["transport_kwargs"] = {"limit": STREAM_LIMIT, "shutdown_timeout": EXIT_GRACE_S}
            options["use_unstable_protocol"] = self._unstable
        try:
            spawn = self._spawn(
                # acp's Client also declares the unstable elicitation handlers, left out on
                # purpose: acp then answers them method_not_found itself (fs/terminal: ours)
                cast(Client, self.client),
                *self._argv,
                env=self._env,  # merged over the SDK's HOME/LOGNAME/PATH/SHELL/TERM/USER
                cwd=self._workspace,
                **options,
            )
            self.conn, self.transport = await self._stack.enter_async_context(spawn)
            if isinstance(self.transport, asyncio.subprocess.Process):
                self.proc = self.transport
                if self.proc.stderr is not None:
                    self._drain = asyncio.create_task(self._drain_stderr(self.proc.stderr))
            self.init = await self.connection.initialize(
                protocol_version=PROTOCOL_VERSION,
                client_capabilities=self._capabilities,
                client_info=Implementation(name="band-sdk", version=__version__),
            )
            if auth_method is not None:
                await self.connection.authenticate(method_id=auth_method)
        except BaseException:
            await self.stop()
            raise
        pid = self.proc.pid if self.proc is not None else "none: connected"
        log.info("room %s: ACP agent started (pid %s)", self.room_id, pid)
        return self.init

    async def _drain_stderr(self, stream: asyncio.StreamReader) -> None:
        # an unread pipe blocks the agent once the OS buffer fills; read in chunks, not lines,
        # so one endless line cannot stop the drain
        partial = b""
        with contextlib.suppress(Exception):
            while chunk := await stream.read(STDERR_CHUNK):
                *lines, partial = (partial + chunk).split(b"\n")
                partial = partial[-STDERR_CHUNK:]
                for line in lines[-STDERR_TAIL_LINES:]:
                    text = line.decode("utf-8", "replace").rstrip()
                    self.stderr_tail.append(text[:2000])
                    log.debug("room %s agent stderr: %s", self.room_id, text[:2000])

    @property
    def connection(self) -> ClientSideConnection:
        """The connection to the agent (``start`` opens it)."""
        if self.conn is None:
            raise RuntimeError("the ACP agent process was not started")
        return self.conn

    @property
    def alive(self) -> bool:
        """True while the process runs (a connected agent: while connected) and was not stopped."""
        if self.stopped or self.conn is None:
            return False
        return self.proc is None or self.proc.returncode is None

    @property
    def load_session(self) -> bool:
        """Whether the agent advertised ``session/load``."""
        caps = self.init.agent_capabilities if self.init else None
        return bool(caps and caps.load_session)

    @property
    def mcp_transport(self) -> str:
        """``http`` when advertised, else ``sse`` when advertised, else ``http`` anyway."""
        caps = self.init.agent_capabilities if self.init else None
        mcp = caps.mcp_capabilities if caps else None
        if mcp is not None and not mcp.http and mcp.sse:
            return "sse"
        return "http"

    async def replay_barrier(self) -> None:
        """Wait until the agent has answered one more request after ``session/load``.

        Some agents (Gemini CLI) send the loaded session's replay after answering the load;
        an agent reads requests in order, so every replay update queued before it read this
        one arrives before its answer, and the turn's narrator is only set after it.
        """
        try:
            await asyncio.wait_for(
                self.connection.ext_method(BARRIER_METHOD, {}), BARRIER_TIMEOUT_S
            )
        except Exception as exc:  # "method not found" is the expected answer
            log.debug("room %s: replay barrier answered %r", self.room_id, exc)

    async def cancel(self, session_id: str) -> None:
        """Send ``session/cancel``, waiting at most 5 s for the write."""
        if self.conn is None or not self.alive:
            return
        try:
            await asyncio.wait_for(self.conn.cancel(session_id=session_id), CANCEL_TIMEOUT_S)
        except Exception as exc:  # TimeoutError or a closed pipe: the process goes anyway
            log.warning("room %s: session/cancel not delivered: %r", self.room_id, exc)

    async def stop(self) -> None:
        """Close the connection and the process: stdin EOF, ``EXIT_GRACE_S`` for the agent to
        exit on its own, then SIGTERM, the grace again, then SIGKILL."""
        if self.stopped:
            return
        self.stopped = True
        try:
            await asyncio.wait_for(asyncio.shield(self._stack.aclose()), SHUTDOWN_TIMEOUT_S)
        except Exception as exc:
            log.warning("room %s: ACP agent stop: %r", self.room_id, exc)
        finally:
            if self.proc is not None and self.proc.returncode is None:
                with contextlib.suppress(ProcessLookupError):
                    self.proc.kill()
            if self._drain is not None:
                # the agent's last stderr lines belong to the tail; a pipe held open by a
                # descendant is given up on after STDERR_DRAIN_TIMEOUT_S
                try:
                    with contextlib.suppress(Exception):
                        await asyncio.wait_for(asyncio.shield(self._drain), STDERR_DRAIN_TIMEOUT_S)
                finally:
                    self._drain.cancel()
                    with contextlib.suppress(BaseException):
                        await self._drain
        log.info("room %s: ACP agent stopped", self.room_id)
