"""One Claude Code CLI session per Band room: ``ClaudeSDKAdapter``'s process handling, offered
as band-sdk 6.0.1's ``ClaudeSessionManager``.

A room's session starts its CLI (``ClaudeSDKClient``) on the first operation that leases it
(:meth:`ClaudeRoomSession.using`), keeps it across messages and resumes its conversation
(``resume=``) when a later CLI starts. One reader task per CLI takes every message the CLI
sends and hands it to the turn listening at the time (:meth:`ClaudeRoomSession.listening`);
a message that arrives with no turn listening (the tail of an interrupted response) is
dropped, and the next turn can wait for that response to end first
(:meth:`ClaudeRoomSession.settled`).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from claude_agent_sdk import ClaudeAgentOptions, ClaudeSDKClient, ResultMessage
from claude_agent_sdk.types import CanUseTool, McpServerConfig, Message

__all__ = [
    "CLI_STOP_TIMEOUT_S",
    "ClaudeRoomSession",
    "ClaudeSessionManager",
    "ClaudeSessionManagerStoppedError",
    "RoomWorkspaces",
    "TurnStream",
]

log = logging.getLogger("band.integrations.claude_sdk")

#: How long a CLI may take to disconnect before it is given up on.
CLI_STOP_TIMEOUT_S = 30.0
#: How long a leave or stop waits for a room's operations to end before closing its CLI.
SETTLE_GRACE_S = 10.0


class ClaudeSessionManagerStoppedError(RuntimeError):
    """A room's session was asked of a manager that :meth:`ClaudeSessionManager.stop` shut
    down (or of a room being cleaned up)."""

    def __init__(self, message: str = "the Claude session manager is stopped") -> None:
        super().__init__(message)


class RoomWorkspaces(Protocol):
    """Where each room's CLI works: ``claim`` gives the room's directory, ``release`` is
    called once the room's session is disposed."""

    def claim(self, room_id: str) -> str | Path:
        """The room's working directory (created if needed)."""
        ...

    def release(self, room_id: str) -> None:
        """The room is gone."""
        ...


@dataclass(frozen=True)
class _End:
    """The CLI's output ended (cleanly, or with ``error``)."""

    error: Exception | None


class TurnStream:
    """One turn's share of its room's CLI output, up to the turn's ``ResultMessage``."""

    def __init__(self) -> None:
        self._queue: asyncio.Queue[Message | _End] = asyncio.Queue()
        self.completed = False

    def deliver(self, message: Message) -> None:
        """A message the CLI sent during the turn."""
        self._queue.put_nowait(message)
        if isinstance(message, ResultMessage):
            self.completed = True

    def end(self, error: Exception | None) -> None:
        """The CLI's output ended."""
        self._queue.put_nowait(_End(error))

    async def until_result(self) -> AsyncIterator[Message]:
        """The turn's messages, its ``ResultMessage`` last; the CLI's end stops them early
        (its read failure raised)."""
        while not isinstance(item := await self._queue.get(), _End):
            yield item
            if isinstance(item, ResultMessage):
                return
        self._queue.put_nowait(item)  # every later read sees the end too
        if item.error is not None:
            raise item.error


class ClaudeRoomSession:
    """A room's Claude session: its CLI (``client``, None while none runs), the conversation
    a new CLI resumes (``session_id``), and the turn listening to the CLI's output."""

    def __init__(self, manager: ClaudeSessionManager, room_id: str) -> None:
        self.room_id = room_id
        self.session_id: str | None = None
        self.client: ClaudeSDKClient | None = None
        #: counts the CLIs started for the room (a callback of an older one is stale)
        self.generation = 0
        self._manager = manager
        self._start_lock = asyncio.Lock()
        self._leases = 0
        self._idle = asyncio.Event()
        self._idle.set()
        self._reader: asyncio.Task[None] | None = None
        self._turn: TurnStream | None = None
        self._unfinished = 0  # responses whose turn stopped listening before their result
        self._finished = asyncio.Event()
        self._finished.set()
        self._retire: str | None = None  # why the CLI closes once no operation leases it
        self._forget = False
        self.closing = False

    @property
    def holds_cli(self) -> bool:
        """Whether a CLI process runs for the room."""
        return self.client is not None

    def speaks_for(self, generation: int) -> bool:
        """Whether a callback of the room's CLI number ``generation`` is still current."""
        return generation == self.generation and self.client is not None and not self.closing

    @contextlib.asynccontextmanager
    async def using(
        self, prepare: Callable[[], Awaitable[None]] | None = None
    ) -> AsyncIterator[ClaudeSDKClient]:
        """Lease the room's CLI for one operation, started first when none runs (``prepare``
        runs before a start: the operation's own setup); it is not closed under the lease."""
        if self.closing:
            raise ClaudeSessionManagerStoppedError(f"room {self.room_id} is being closed")
        self._leases += 1
        self._idle.clear()
        try:
            async with self._start_lock:
                if self._retire is not None and self._leases == 1:
                    await self.release(self._retire)
                if self.client is None:
                    if prepare is not None:
                        await prepare()
                    await self._start()
            assert self.client is not None
            yield self.client
        finally:
            self._leases -= 1
            if self._leases == 0:
                self._idle.set()
                if self._retire is not None and not self.closing:
                    await self.release(self._retire)

    @contextlib.contextmanager
    def listening(self) -> Iterator[TurnStream]:
        """Route the CLI's output to one turn until it stops listening; a turn that stops
        before its result (interrupted) leaves a response for :meth:`settled`."""
        if self._turn is not None:
            raise RuntimeError(f"room {self.room_id} already has a listening turn")
        stream = self._turn = TurnStream()
        try:
            yield stream
        finally:
            self._turn = None
            # a live CLI still owes the rest of the response (a retired one is replaced)
            if not stream.completed and self.client is not None and self._retire is None:
                self._unfinished += 1
                self._finished.clear()

    async def settled(self, timeout: float) -> bool:
        """Wait until the responses of interrupted turns have ended (their results read);
        False when one did not end in ``timeout`` seconds."""
        if self._retire is not None:
            return True  # the CLI is replaced before the next operation: nothing to wait for
        try:
            await asyncio.wait_for(self._finished.wait(), timeout)
            return True
        except TimeoutError:
            return False

    def adopt(self, session_id: str | None) -> None:
        """Resume ``session_id`` (a conversation the room recorded) with the next CLI, unless
        one runs already."""
        if session_id is not None and self.client is None:
            self.session_id = session_id

    def recover(self, reason: str, *, forget_session: bool = False) -> bool:
        """Retire the room's CLI: closed as soon as no operation leases it (the next lease
        starts another, resuming the conversation unless ``forget_session``). False when
        there is no CLI to retire."""
        if self.client is None:
            return False
        log.info("room %s: retiring its Claude CLI (%s)", self.room_id, reason)
        self._retire = reason
        self._forget = self._forget or forget_session
        return True

    async def release(self, reason: str = "released") -> None:
        """Close the room's CLI now (its conversation stays resumable unless a recovery
        asked to forget it)."""
        client, reader = self.client, self._reader
        self.client = self._reader = None
        self._retire = None
        self._unfinished = 0
        self._finished.set()
        if self._forget:
            self.session_id, self._forget = None, False
        if client is None:
            return
        log.debug("room %s: closing its Claude CLI (%s)", self.room_id, reason)
        try:
            await asyncio.wait_for(client.disconnect(), CLI_STOP_TIMEOUT_S)
        except Exception as exc:  # a CLI that will not stop: given up on, not retried
            log.warning("room %s: the Claude CLI did not stop cleanly: %s", self.room_id, exc)
        if reader is not None:
            reader.cancel()
            with contextlib.suppress(BaseException):
                await reader

    async def _start(self) -> None:
        """Start the room's CLI, resuming its conversation; a conversation the CLI cannot
        resume gives way to a new one."""
        self.generation += 1
        try:
            await self._connect(self.session_id)
        except Exception as exc:
            if self.session_id is None:
                raise
            log.warning(
                "room %s: resuming Claude session %s failed (%s); starting a new one",
                self.room_id,
                self.session_id,
                exc,
            )
            self.session_id = None
            await self._connect(None)

    async def _connect(self, resume: str | None) -> None:
        options = self._manager.options_for(self, self.generation, resume=resume)
        client = ClaudeSDKClient(options=options)
        try:
            await client.connect()
        except BaseException:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(client.disconnect(), CLI_STOP_TIMEOUT_S)
            raise
        self.client = client
        self._reader = asyncio.create_task(self._read(client, self.generation))
        log.info("room %s: Claude CLI started (resume=%s)", self.room_id, resume)

    async def _read(self, client: ClaudeSDKClient, generation: int) -> None:
        """The CLI's only reader, from its start to its close."""
        error: Exception | None = None
        try:
            async for message in client.receive_messages():
                if isinstance(message, ResultMessage) and message.session_id:
                    self.session_id = message.session_id
                turn = self._turn
                if turn is not None and not turn.completed:
                    turn.deliver(message)
                elif isinstance(message, ResultMessage) and self._unfinished:
                    self._unfinished -= 1  # an interrupted response ended
                    if not self._unfinished:
                        self._finished.set()
        except Exception as exc:  # the listening turn raises it
            error = exc
        if self._turn is not None:
            self._turn.end(error)
        if generation == self.generation and self.client is client:
            self.recover(f"the CLI's output ended ({error or 'the process exited'})")


class ClaudeSessionManager:
    """One Claude Code CLI session per Band room (what ``ClaudeSDKAdapter`` runs its rooms
    with).

    Each room's CLI starts with ``base_options`` and the room's own: its MCP servers
    (``mcp_servers_factory``), working directory (``workspaces``), permission callback
    (``can_use_tool_factory``, given the room's session and CLI generation) and the
    conversation to resume. It starts on the room's first leased operation and stays up
    across messages; :meth:`cleanup_session` closes it when the agent leaves the room, and
    :meth:`stop` closes every room and is final. ``retention`` (band-sdk's residency
    settings) is accepted and not used: a room's CLI runs until it is closed.

    ::

        manager = ClaudeSessionManager(ClaudeAgentOptions(model="sonnet"))
        session = manager.room("room-1")
        async with session.using() as client:
            with session.listening() as stream:
                await client.query("Hello")
                async for message in stream.until_result():
                    ...
        await manager.cleanup_session("room-1")
        await manager.stop()
    """

    def __init__(
        self,
        base_options: ClaudeAgentOptions,
        can_use_tool_factory: Callable[[ClaudeRoomSession, int], CanUseTool] | None = None,
        mcp_servers_factory: Callable[[str], dict[str, McpServerConfig]] | None = None,
        workspaces: RoomWorkspaces | None = None,
        retention: Any = None,
        settle_grace_s: float = SETTLE_GRACE_S,
        on_disposed: Callable[[str], None] | None = None,
    ) -> None:
        self.base_options = base_options
        self._can_use_tool_factory = can_use_tool_factory
        self._mcp_servers_factory = mcp_servers_factory
        self._workspaces = workspaces
        self.retention = retention
        self._settle_grace_s = settle_grace_s
        self._on_disposed = on_disposed
        self._rooms: dict[str, ClaudeRoomSession] = {}
        self._stopped = False

    def room(self, room_id: str) -> ClaudeRoomSession:
        """The room's session, registered on first use."""
        if self._stopped:
            raise ClaudeSessionManagerStoppedError()
        session = self._rooms.get(room_id)
        if session is None:
            session = self._rooms[room_id] = ClaudeRoomSession(self, room_id)
        return session

    def session(self, room_id: str) -> ClaudeRoomSession | None:
        """The room's session, if it has one (never registers one)."""
        return self._rooms.get(room_id)

    def mcp_servers(self, room_id: str) -> dict[str, McpServerConfig] | str | Path:
        """The MCP servers the room's CLI gets (``base_options``' without a factory)."""
        if self._mcp_servers_factory is None:
            return self.base_options.mcp_servers
        return self._mcp_servers_factory(room_id)

    def options_for(
        self, session: ClaudeRoomSession, generation: int, *, resume: str | None
    ) -> ClaudeAgentOptions:
        """``base_options`` (a shallow copy) with the room's MCP servers, working directory,
        conversation to resume and permission callback."""
        overrides: dict[str, Any] = {"mcp_servers": self.mcp_servers(session.room_id)}
        if self._workspaces is not None:
            overrides["cwd"] = str(self._workspaces.claim(session.room_id))
        overrides["resume"] = resume
        if self._can_use_tool_factory is not None:
            overrides["can_use_tool"] = self._can_use_tool_factory(session, generation)
        return dataclasses.replace(self.base_options, **overrides)

    def discard(self, session: ClaudeRoomSession) -> None:
        """Forget a disposed room (``on_disposed`` is told) and release its workspace."""
        if self._rooms.get(session.room_id) is session:
            del self._rooms[session.room_id]
            if self._on_disposed is not None:
                self._on_disposed(session.room_id)
        if self._workspaces is not None:
            self._workspaces.release(session.room_id)

    async def cleanup_session(self, room_id: str) -> None:
        """The agent left the room: no new operation is admitted, the running ones get
        ``settle_grace_s`` to end, then the CLI closes and the conversation is forgotten."""
        session = self._rooms.get(room_id)
        if session is None:
            return
        session.closing = True
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(session._idle.wait(), self._settle_grace_s)
        await session.release("the agent left the room")
        session.session_id = None
        self.discard(session)

    async def stop(self) -> None:
        """Clean up every room; the manager serves no room again."""
        self._stopped = True
        await asyncio.gather(*(self.cleanup_session(r) for r in list(self._rooms)))

    def has_session(self, room_id: str) -> bool:
        """Whether a CLI process runs for the room."""
        session = self._rooms.get(room_id)
        return session is not None and session.holds_cli

    def get_session_count(self) -> int:
        """How many rooms have a CLI process running."""
        return len(self.get_active_rooms())

    def get_active_rooms(self) -> list[str]:
        """The rooms with a CLI process running."""
        return [room for room, session in self._rooms.items() if session.holds_cli]
