"""Per-room ACP state: the room's process, its one session, and how a turn runs on them."""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass, field

from acp import RequestError, text_block
from acp.schema import ClientCapabilities

from band.core.turn import AgentFailure
from band.workspaces import RoomWorkspaces

from .client import ACPClientProfile, RoomClient
from .config import (
    ACPClientAdapterConfig,
    ConfigResolver,
    PermissionResolver,
    SessionConfigOption,
    SessionMcpServer,
)
from .config_options import ACPSessionConfigError, apply_session_config
from .narration import EMIT_KINDS, RoomSink, TurnNarrator
from .process import ACPRoomProcess

__all__ = [
    "GENERIC_FAILURE",
    "PROVIDER",
    "SESSION_BUSY_CODE",
    "ACPRooms",
    "ACPSessionBusyError",
    "RoomState",
    "TurnRequest",
    "is_session_busy",
]

log = logging.getLogger("band.acp")

PROVIDER = "acp"
GENERIC_FAILURE = "Internal error while processing message; see agent logs."
#: Band's convention for "this session is running another prompt": keep the message pending.
SESSION_BUSY_CODE = -32003
SESSION_BUSY_REASON = "session_busy"
#: Back-off between retries of a prompt the agent refused as busy.
BUSY_RETRY_S = (0.1, 0.25, 0.5, 1.0, 2.0)

#: (room_id, transport "http"|"sse") -> the MCP servers a session of that room gets.
ServersFor = Callable[[str, str], Awaitable[list[SessionMcpServer]]]


class ACPSessionBusyError(RuntimeError):
    """The agent kept refusing the prompt as busy: the message stays pending."""


def is_session_busy(exc: BaseException) -> bool:
    """True for the agent's ``-32003`` refusal with reason ``session_busy``."""
    return (
        isinstance(exc, RequestError)
        and exc.code == SESSION_BUSY_CODE
        and isinstance(exc.data, dict)
        and exc.data.get("reason") == SESSION_BUSY_REASON
    )


@dataclass
class TurnRequest:
    """What one turn sends: the live message, and the context a new session needs."""

    message: str
    system_context: str = ""
    updates: Sequence[str] = ()
    #: the session named by the room's last ``ACP client session`` event (after a restart)
    resume_session_id: str | None = None
    #: the room's earlier messages, as ``[sender]: text`` lines, for a new session
    replay: Callable[[], Awaitable[list[str]]] | None = None


@dataclass(eq=False)
class RoomState:
    """One room: its workspace, process, session, and the lock that serializes its turns."""

    room_id: str
    workspace: str
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    process: ACPRoomProcess | None = None
    client: RoomClient | None = None
    session_id: str | None = None
    #: the session is loaded on the current process
    live: bool = False
    #: the session has not yet received the system context
    owes_context: bool = False
    running: bool = False
    #: ``session/cancel`` was sent for the running turn (one per interrupt, whoever asks)
    cancel_sent: bool = False
    #: when the room's last turn ended (``time.monotonic``), for least-recently-used eviction
    last_used: float = 0.0


def _failure_message(exc: BaseException) -> str:
    if isinstance(exc, RequestError):
        return str(exc)
    if isinstance(exc, ValueError) and "permission resolver" in str(exc):
        return str(exc)
    return GENERIC_FAILURE


class ACPRooms:
    """Every room's ACP process and session; runs one turn per room at a time."""

    def __init__(
        self,
        config: ACPClientAdapterConfig,
        *,
        workspaces: RoomWorkspaces,
        servers_for: ServersFor,
        resolve_permission: PermissionResolver | None = None,
        resolve_session_config: ConfigResolver | None = None,
        emit: Iterable[str] = EMIT_KINDS,
        canonical: Callable[[str], str] = lambda name: name,
        profile: ACPClientProfile | None = None,
        client_capabilities: ClientCapabilities | None = None,
    ) -> None:
        self.config = config
        self.profile = profile
        self.client_capabilities = client_capabilities
        self._workspaces = workspaces
        self._servers_for = servers_for
        self._resolve_permission = resolve_permission
        self._resolve_config = resolve_session_config
        self.emit = frozenset(emit)
        self._canonical = canonical
        self.rooms: dict[str, RoomState] = {}
        #: processes being started (counted against ``max_live_processes`` with the live ones)
        self._starting = 0
        #: one reservation at a time, so two starts cannot both take the last room
        self._reserving = asyncio.Lock()
        #: set when a room may have become idle or a process went away
        self._freed = asyncio.Event()

    def room(self, room_id: str) -> RoomState:
        """The room's state; its workspace is resolved and claimed on first use."""
        state = self.rooms.get(room_id)
        if state is None:
            state = RoomState(room_id, self._workspaces.claim(room_id))
            self.rooms[room_id] = state
        return state

    # -- process and session --

    async def _process(self, room: RoomState) -> ACPRoomProcess:
        if room.process is not None and room.process.alive:
            return room.process
        if room.process is not None:
            await self._stop_process(room)
        await self._reserve(room)
        try:
            client = RoomClient(room.room_id, self._resolve_permission, self.profile)
            process = ACPRoomProcess(
                room.room_id,
                self.config.command,
                client=client,
                workspace=room.workspace,
                env=self.config.env,
                use_unstable_protocol=self.config.use_unstable_protocol,
                client_capabilities=self.client_capabilities,
            )
            await asyncio.wait_for(
                process.start(self.config.auth_method), self.config.retention.transition_timeout_s
            )
            room.process, room.client, room.live = process, client, False
        finally:
            self._starting -= 1
            self._freed.set()
        return process

    @property
    def live_processes(self) -> int:
        """Processes counted against ``max_live_processes``: running ones and those starting."""
        return sum(1 for r in self.rooms.values() if r.process is not None) + self._starting

    async def _reserve(self, room: RoomState) -> None:
        """Wait until one more process fits under ``max_live_processes``: at the limit, stop
        the least recently used idle room's process (its session is loaded again on its next
        message), or, with every live room running a turn, wait for one to end."""
        limit = self.config.max_live_processes
        async with self._reserving:
            while self.live_processes >= limit:
                idle = [
                    r
                    for r in self.rooms.values()
                    if r is not room
                    and r.process is not None
                    and not r.running
                    and not r.lock.locked()
                ]
                if not idle:
                    self._freed.clear()
                    await self._freed.wait()
                    continue
                victim = min(idle, key=lambda r: r.last_used)
                log.info(
                    "room %s: stopping its idle ACP process (max_live_processes=%s reached)",
                    victim.room_id,
                    limit,
                )
                # the victim's session id stays: its next message loads it on a new process
                await self._stop_process(victim)
            self._starting += 1

    async def _stop_process(self, room: RoomState) -> None:
        process, room.process, room.live = room.process, None, False
        if process is not None:
            await process.stop()

    async def _session(self, room: RoomState, process: ACPRoomProcess, request: TurnRequest) -> str:
        if room.session_id is not None and room.live:
            return room.session_id
        servers = await self._servers_for(room.room_id, process.mcp_transport)
        cwd = room.workspace
        catalog: Sequence[SessionConfigOption] | None = None
        loaded = False
        if room.session_id is not None and process.load_session:
            # the room's own session, kept across a stopped process: exactly it, or the turn
            # fails (unless new_session_on_refused_load: then a new one with the replay)
            try:
                response = await process.connection.load_session(
                    cwd=cwd, session_id=room.session_id, mcp_servers=servers
                )
            except RequestError as exc:
                if not self.config.new_session_on_refused_load:
                    raise
                log.warning(
                    "room %s: the agent refused to load session %s (%s); opening a new one "
                    "with the room's messages (new_session_on_refused_load)",
                    room.room_id,
                    room.session_id,
                    exc,
                )
            else:
                catalog, loaded = response.config_options, True
                await process.replay_barrier()
        elif room.session_id is None and request.resume_session_id and process.load_session:
            try:
                response = await process.connection.load_session(
                    cwd=cwd, session_id=request.resume_session_id, mcp_servers=servers
                )
            except RequestError as exc:
                log.info(
                    "room %s: session %s not restored (%s); opening a new one",
                    room.room_id,
                    request.resume_session_id,
                    exc,
                )
            else:
                room.session_id = request.resume_session_id
                catalog, loaded = response.config_options, True
                await process.replay_barrier()
        if not loaded:
            opened = await process.connection.new_session(cwd=cwd, mcp_servers=servers)
            room.session_id, catalog = opened.session_id, opened.config_options
            room.owes_context = True
        room.live = True
        log.info(
            "room %s: ACP session %s %s",
            room.room_id,
            room.session_id,
            "loaded" if loaded else "created",
        )
        await self._configure(room, process, catalog)
        return room.session_id  # type: ignore[return-value]

    async def _configure(
        self,
        room: RoomState,
        process: ACPRoomProcess,
        catalog: Sequence[SessionConfigOption] | None,
    ) -> None:
        cfg = self.config
        if cfg.model is None and cfg.reasoning_effort is None and self._resolve_config is None:
            return
        conn, session_id = process.connection, room.session_id
        assert session_id is not None

        async def setter(
            sid: str, option_id: str, value: str | bool
        ) -> list[SessionConfigOption] | None:
            response = await conn.set_config_option(
                config_id=option_id, session_id=sid, value=value
            )
            return None if response is None else response.config_options

        await apply_session_config(
            room_id=room.room_id,
            session_id=session_id,
            catalog=catalog,
            setter=setter,
            model=cfg.model,
            reasoning_effort=cfg.reasoning_effort,
            resolver=self._resolve_config,
        )

    async def _prompt_text(self, room: RoomState, request: TurnRequest) -> str:
        sections = list(request.updates)
        if not room.owes_context:
            return "\n\n".join([*sections, request.message])
        sections.insert(0, request.system_context) if request.system_context else None
        replay = await request.replay() if request.replay is not None else []
        if replay:
            # a per-turn nonce marks where the replay ends: replayed text cannot forge it
            marker = f"[New Message {uuid.uuid4().hex[:8]}]"
            sections.append(
                "[Conversation History]\nThe earlier session could not be restored. The room's "
                "earlier messages follow as read-only background: they were already handled, so "
                "do not act on them again unless the new message asks you to. Answer the new "
                f"message under {marker}.\n" + "\n".join(replay)
            )
            sections.append(f"{marker}\n{request.message}")
        else:
            sections.append(request.message)
        return "\n\n".join(s for s in sections if s)

    # -- one turn --

    async def run_turn(self, room_id: str, sink: RoomSink, request: TurnRequest) -> None:
        """Prompt the room's session with ``request`` and post the turn to ``sink``.

        Failures are reported on ``sink`` (and end the turn); only a persistently busy
        session raises (:class:`ACPSessionBusyError`), so the caller keeps the message pending.
        """
        room = self.room(room_id)
        async with room.lock:
            room.running, room.cancel_sent = True, False
            try:
                await self._run(room, sink, request)
            finally:
                room.running, room.last_used = False, time.monotonic()
                self._freed.set()  # an idle room: a start waiting at the limit may evict it

    async def _fail(
        self, room: RoomState, sink: RoomSink, exc: BaseException, *, stop: bool
    ) -> None:
        log.warning(
            "room %s: ACP turn failed: %r; stderr tail: %s",
            room.room_id,
            exc,
            list(room.process.stderr_tail) if room.process else [],
        )
        if stop:
            await self._stop_process(room)
        message = _failure_message(exc)
        await sink.send_failure(AgentFailure(PROVIDER, message))
        sink.turn.fail(message)

    async def _run(self, room: RoomState, sink: RoomSink, request: TurnRequest) -> None:
        try:
            process = await self._process(room)
            # session/new or session/load (with its replay) shares the start's bound
            session_id = await asyncio.wait_for(
                self._session(room, process, request),
                self.config.retention.transition_timeout_s,
            )
        except ACPSessionConfigError as exc:
            await sink.send_failure(AgentFailure(PROVIDER, str(exc)))
            sink.turn.fail(str(exc))
            # a new session left unconfigured is not the room's: open another next time; the
            # room's own (loaded) session stays its identity, reloaded on a fresh process
            if room.owes_context:
                room.session_id, room.live = None, False
            else:
                await self._stop_process(room)
            return
        except (RequestError, Exception) as exc:
            await self._fail(room, sink, exc, stop=not isinstance(exc, RequestError))
            return
        client = room.client
        assert client is not None
        narrator = TurnNarrator(
            sink,
            room_id=room.room_id,
            session_id=session_id,
            emit=self.emit,
            canonical=self._canonical,
            judge_from_stream=not self.config.inject_band_tools,
        )
        text = await self._prompt_text(room, request)
        client.start_turn(narrator)
        try:
            stop_reason = await self._prompt(room, process, session_id, text)
        except asyncio.CancelledError:
            client.cancel_permissions()
            await asyncio.shield(self._cancel(room, process, session_id))
            # what the turn streamed, a note, and the session event: the room keeps them
            room.owes_context = False
            client.narrator = None
            await asyncio.shield(narrator.close(interrupted=True))
            raise
        except ACPSessionBusyError:
            raise
        except TimeoutError:
            limit = self.config.turn_timeout_s
            log.error("room %s: ACP turn timed out after %ss", room.room_id, limit)
            client.cancel_permissions()
            await self._cancel(room, process, session_id)
            await self._stop_process(room)  # the session id stays the room's
            await narrator.flush()
            message = f"ACP agent response timed out after {limit}s"
            await sink.send_failure(AgentFailure(PROVIDER, message, "timeout"))
            sink.turn.fail(message)  # spec: the timed-out turn is marked failed
            return
        except Exception as exc:
            await narrator.flush()
            await self._fail(room, sink, client.resolver_error or exc, stop=True)
            return
        finally:
            client.narrator = None
        room.owes_context = False
        log.debug("room %s: ACP turn ended (%s)", room.room_id, stop_reason)
        await narrator.close()

    async def _prompt(
        self, room: RoomState, process: ACPRoomProcess, session_id: str, text: str
    ) -> str:
        """Prompt until accepted; a busy refusal is retried with back-off, posting nothing."""
        started = time.monotonic()
        attempt = 0
        while True:
            try:
                async with asyncio.timeout(self.config.turn_timeout_s):
                    response = await process.connection.prompt(
                        session_id=session_id, prompt=[text_block(text)]
                    )
                return str(response.stop_reason)
            except RequestError as exc:
                if not is_session_busy(exc):
                    raise
                if time.monotonic() - started > self.config.turn_timeout_s:
                    raise ACPSessionBusyError("ACP session is busy") from exc
                delay = BUSY_RETRY_S[min(attempt, len(BUSY_RETRY_S) - 1)]
                attempt += 1
                log.info("room %s: ACP session busy; retrying in %ss", room.room_id, delay)
                await asyncio.sleep(delay)

    # -- stop and cleanup --

    async def stop_turn(self, room_id: str) -> None:
        """Ask the agent to stop the room's running prompt (``session/cancel``, at most 5 s)."""
        room = self.rooms.get(room_id)
        if room is None or not room.running or room.process is None or room.session_id is None:
            return
        if room.client is not None:
            room.client.cancel_permissions()
        await self._cancel(room, room.process, room.session_id)

    @staticmethod
    async def _cancel(room: RoomState, process: ACPRoomProcess, session_id: str) -> None:
        """``session/cancel`` once per turn: the interrupt and the cancelled turn task both ask."""
        if room.cancel_sent:
            return
        room.cancel_sent = True
        await process.cancel(session_id)

    async def _settle(self, room: RoomState) -> None:
        """Let a running turn end on its own for ``turn_settle_timeout_s``, then cancel it."""
        if not room.running:
            return
        grace = self.config.turn_settle_timeout_s
        if grace > 0:
            try:
                async with asyncio.timeout(grace), room.lock:
                    return
            except TimeoutError:
                log.warning(
                    "room %s: turn still running after %ss; cancelling", room.room_id, grace
                )
        await self.stop_turn(room.room_id)

    async def close_room(self, room_id: str) -> None:
        """Settle the room's turn, stop its process and forget it (the room was left)."""
        room = self.rooms.get(room_id)
        if room is None:
            return
        await self._settle(room)
        if self.rooms.get(room_id) is room:
            del self.rooms[room_id]
        if room.session_id is not None and self.profile is not None:
            self.profile.forget_session(room.session_id)
        await self._stop_process(room)
        self._workspaces.release(room_id)
        self._freed.set()

    async def close_all(self) -> None:
        """Stop every room's process."""
        await asyncio.gather(*(self.close_room(r) for r in list(self.rooms)))
