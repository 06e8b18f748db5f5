"""An ACP client that collects each session's output as chunks (band-sdk's collecting client).

The room adapter posts a turn through ``narration.TurnNarrator``; this client runs the same
narrator per session but records what it would post as ``CollectedChunk`` values (text runs
too, which the adapter holds for the reply) and hands each to the session's ``ChunkSink``. It
is the client ``ACPRuntime`` drives an agent with.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from acp import Agent
from acp.schema import (
    ConfigOptionUpdate,
    DeclineElicitationResponse,
    PermissionOption,
    ToolCallUpdate,
)

from band.core.turn import AgentFailure, Turn
from band.core.wire import JsonObject

from .client import ACPClientProfile, LocalResourceRefusals, SessionUpdate
from .config import SessionConfigOption
from .narration import ToolCallState, TurnNarrator
from .permissions import (
    ElicitationHandler,
    PermissionHandler,
    cancel_permission,
    elicitation_session_id,
)

__all__ = [
    "ACPCollectingClient",
    "BandACPClient",
    "ChunkSink",
    "ChunkType",
    "CollectedChunk",
]

log = logging.getLogger("band.acp")


class ChunkType(StrEnum):
    """What a collected chunk is."""

    TEXT = "text"
    THOUGHT = "thought"
    TOOL_CALL = "tool_call"
    TOOL_RESULT = "tool_result"
    PLAN = "plan"


@dataclass
class CollectedChunk:
    """One piece of an agent's output, in stream order.

    ``content``: the text of a text/thought run, a tool call's name, a tool result's output,
    a plan's entries. ``metadata``: ``tool_call_id`` and ``status`` for tool chunks (and the
    call's ``raw_input``), ``plan`` for a plan. ``from_raw``: a tool result whose output is
    the stringified ``rawOutput`` (its frames carried no readable text). ``echo``: band-sdk
    strips a duplicated ``structuredContent`` from results; outputs are kept as sent here, so
    it stays ``None``. ``tool``: the call folded over all its frames.
    """

    chunk_type: str
    content: str
    metadata: dict[str, Any] = field(default_factory=dict)
    from_raw: bool = False
    echo: dict[str, Any] | None = None
    tool: ToolCallState | None = None


#: Receives each chunk of a session as it completes (``ACPCollectingClient.set_sink``).
ChunkSink = Callable[[CollectedChunk], Awaitable[None]]


class _Recorder:
    """The narrator's room, for one session: each event becomes a collected chunk."""

    def __init__(self, owner: ACPCollectingClient, session_id: str) -> None:
        self._owner = owner
        self._session_id = session_id
        self.narrator: TurnNarrator | None = None
        self.turn = Turn()  # the narrator's close() reads it; a collecting client never closes

    async def send_event(
        self, content: str, message_type: str, metadata: JsonObject | None = None
    ) -> None:
        chunk = self._chunk(content, message_type, dict(metadata or {}))
        if chunk is not None:
            await self._owner._finalize(self._session_id, chunk)

    async def send_failure(self, failure: AgentFailure) -> None:
        """Never called by a narrator; a turn's failure is its caller's to report."""

    def _chunk(self, content: str, message_type: str, meta: JsonObject) -> CollectedChunk | None:
        if message_type in (ChunkType.TEXT, ChunkType.THOUGHT):
            return CollectedChunk(ChunkType(message_type), content)
        if message_type not in (ChunkType.TOOL_CALL, ChunkType.TOOL_RESULT):
            plan = meta.get("plan")
            return None if plan is None else CollectedChunk(ChunkType.PLAN, content, {"plan": plan})
        call_id = str(meta.get("tool_call_id", ""))
        call = self.narrator.call(call_id) if self.narrator is not None else None
        if message_type == ChunkType.TOOL_CALL:
            info = {"tool_call_id": call_id, "raw_input": meta.get("args"), "status": "pending"}
            if call is not None and call.status is not None:
                info["status"] = call.status
            return CollectedChunk(ChunkType.TOOL_CALL, str(meta.get("name", "")), info, tool=call)
        status = "failed" if meta.get("is_error") else "completed"
        return CollectedChunk(
            ChunkType.TOOL_RESULT,
            str(meta.get("output", "")),
            {"tool_call_id": call_id, "status": status},
            from_raw=bool(call and call.from_raw),
            tool=call,
        )


class ACPCollectingClient(LocalResourceRefusals):
    """An ACP client that collects every session's output as ``CollectedChunk`` values.

    Permission requests go to the session's handler (``set_permission_handler``); without
    one they are cancelled, and the call shows as a failed tool result. Elicitations without a
    handler are declined. fs and terminal requests are refused (no such capability).
    """

    def __init__(
        self,
        profile: ACPClientProfile | None = None,
        canonicalize_tool_name: Callable[[str], str] | None = None,
    ) -> None:
        self._profile = profile
        self._canonical = canonicalize_tool_name or (lambda name: name)
        self._recorders: dict[str, _Recorder] = {}
        self._chunks: dict[str, list[CollectedChunk]] = {}
        self._sinks: dict[str, ChunkSink] = {}
        self._permission_handlers: dict[str, PermissionHandler] = {}
        self._elicitation_handlers: dict[str, ElicitationHandler] = {}
        # outlives reset_session (once per turn), like the session itself
        self._config_options: dict[str, tuple[SessionConfigOption, ...]] = {}

    def _narrator(self, session_id: str) -> TurnNarrator:
        recorder = self._recorders.get(session_id)
        if recorder is None or recorder.narrator is None:
            recorder = _Recorder(self, session_id)
            recorder.narrator = TurnNarrator(
                recorder,
                room_id=session_id,
                session_id=session_id,
                emit=("text", "thoughts", "tool_calls", "task_events"),
                canonical=self._canonical,
            )
            self._recorders[session_id] = recorder
        return recorder.narrator

    async def _finalize(self, session_id: str, chunk: CollectedChunk) -> None:
        self._chunks.setdefault(session_id, []).append(chunk)
        sink = self._sinks.get(session_id)
        if sink is not None:
            await sink(chunk)  # a failing sink is logged by the narrator's drain

    # -- the ACP client side --

    async def session_update(self, session_id: str, update: SessionUpdate, **kwargs: Any) -> None:
        """Record a configuration change, or feed the session's output to its chunks."""
        if isinstance(update, ConfigOptionUpdate):
            self.record_config_options(session_id, update.config_options)
            return
        narrator = self._narrator(session_id)
        narrator.feed(update)  # before any await: keeps wire order
        await narrator.drain()

    async def request_permission(
        self,
        options: list[PermissionOption],
        session_id: str,
        tool_call: ToolCallUpdate,
        **kwargs: Any,
    ) -> object:
        """The session's handler decides; without one the request is cancelled."""
        narrator = self._narrator(session_id)
        handler = self._permission_handlers.get(session_id)
        if handler is not None:
            narrator.permission_requested(tool_call)

            async def narrate(action: Awaitable[None]) -> None:
                await narrator.flush()  # what streamed before the request comes first
                await action

            return await handler(
                options=options,
                session_id=session_id,
                tool_call=tool_call,
                narrate_permission=narrate,
                **kwargs,
            )
        log.debug("ACP session %s: permission request cancelled (no handler)", session_id)
        narrator.permission_cancelled(tool_call)
        await narrator.drain()
        return cancel_permission()

    async def create_elicitation(self, message: str, mode: object, **kwargs: Any) -> object:
        """The session's elicitation handler answers; without one the form is declined."""
        session_id = elicitation_session_id(mode, kwargs)
        handler = self._elicitation_handlers.get(session_id)
        if handler is None:
            return DeclineElicitationResponse(action="decline")
        narrator = self._narrator(session_id)

        async def narrate(action: Awaitable[None]) -> None:
            await narrator.flush()
            await action

        return await handler(message=message, mode=mode, narrate_elicitation=narrate, **kwargs)

    async def ext_method(self, method: str, params: JsonObject) -> JsonObject:
        """The profile's answer to an extension request (``{}`` without a profile)."""
        if self._profile is None:
            return {}
        return dict(await self._profile.ext_method(method, params))

    async def ext_notification(self, method: str, params: JsonObject) -> None:
        """Give an extension notification to the profile; chunks it returns are collected
        for the session the notification names."""
        if self._profile is None:
            return
        chunks = await self._profile.ext_notification(method, params)
        session_id = params.get("sessionId") or params.get("session_id")
        if isinstance(session_id, str) and isinstance(chunks, list | tuple):
            narrator = self._narrator(session_id)
            await narrator.flush()
            for chunk in chunks:
                if isinstance(chunk, CollectedChunk):
                    await self._finalize(session_id, chunk)

    def on_connect(self, conn: Agent) -> None:
        """Nothing to keep: the runtime holds the connection."""

    # -- per-session state --

    def set_permission_handler(self, session_id: str, handler: PermissionHandler | None) -> None:
        """Who answers the session's permission requests (``None``: cancel them)."""
        if handler is None:
            self._permission_handlers.pop(session_id, None)
        else:
            self._permission_handlers[session_id] = handler

    def set_elicitation_handler(self, session_id: str, handler: ElicitationHandler | None) -> None:
        """Who answers the session's elicitations (``None``: decline them)."""
        if handler is None:
            self._elicitation_handlers.pop(session_id, None)
        else:
            self._elicitation_handlers[session_id] = handler

    def record_config_options(
        self, session_id: str, options: Sequence[SessionConfigOption]
    ) -> None:
        """The session's configuration catalogue as it stands now."""
        self._config_options[session_id] = tuple(options)

    def config_options(self, session_id: str) -> tuple[SessionConfigOption, ...]:
        """The session's latest configuration catalogue (``()`` before any)."""
        return self._config_options.get(session_id, ())

    def set_sink(self, session_id: str, sink: ChunkSink | None) -> None:
        """Where the session's chunks go as they complete (``None``: only collected)."""
        if sink is None:
            self._sinks.pop(session_id, None)
        else:
            self._sinks[session_id] = sink

    async def flush(self, session_id: str) -> None:
        """End of a prompt: what the stream left open (a text run, thoughts) becomes chunks."""
        recorder = self._recorders.get(session_id)
        if recorder is not None and recorder.narrator is not None:
            await recorder.narrator.flush()

    def reset_session(self, session_id: str) -> None:
        """Start the session's next turn afresh: chunks, calls, sink and handlers dropped."""
        for table in (
            self._recorders,
            self._chunks,
            self._sinks,
            self._permission_handlers,
            self._elicitation_handlers,
        ):
            table.pop(session_id, None)

    def forget_session(self, session_id: str) -> None:
        """The session was closed: drop its catalogue and what the profile kept for it."""
        self._config_options.pop(session_id, None)
        self.reset_session(session_id)
        if self._profile is not None:
            self._profile.forget_session(session_id)

    def get_collected_chunks(self, session_id: str | None = None) -> list[CollectedChunk]:
        """The session's chunks in order (every session's, when ``None``)."""
        if session_id is not None:
            return list(self._chunks.get(session_id, ()))
        return [chunk for chunks in self._chunks.values() for chunk in chunks]

    def get_collected_text(self, session_id: str | None = None) -> str:
        """The agent's text (its text chunks joined), for one session or all."""
        chunks = self.get_collected_chunks(session_id)
        return "".join(c.content for c in chunks if c.chunk_type == ChunkType.TEXT)


class BandACPClient(ACPCollectingClient):
    """band-sdk's name for its ACP client class: the collecting client."""
