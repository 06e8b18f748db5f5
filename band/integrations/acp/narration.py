"""One ACP turn's output posted to its room, in stream order (thoughts, tools, plans, held text)."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Protocol

from acp.schema import (
    AgentMessageChunk,
    AgentPlanUpdate,
    AgentThoughtChunk,
    TextContentBlock,
    ToolCallProgress,
    ToolCallStart,
    ToolCallUpdate,
)

from band.core.turn import AgentFailure, Turn
from band.core.wire import JsonObject, JsonValue
from band.runtime.tools.files import redact_tool_call_args

__all__ = [
    "EMIT_KINDS",
    "INTERRUPTED_NOTE",
    "SESSION_EVENT",
    "RoomSink",
    "ToolCallState",
    "TurnNarrator",
    "tool_call_of",
]

log = logging.getLogger("band.acp")

#: The closing ``task`` event of every completed turn; its metadata names the session.
SESSION_EVENT = "ACP client session"
#: The narration kinds this adapter can post (``Emit`` values).
EMIT_KINDS = frozenset({"thoughts", "tool_calls", "task_events"})
#: The ``task`` event an interrupted turn ends with, after what it had streamed.
INTERRUPTED_NOTE = "The turn was interrupted before the agent finished."


class RoomSink(Protocol):
    """What the narrator needs from the room's tools."""

    @property
    def turn(self) -> Turn: ...

    async def send_event(
        self, content: str, message_type: str, metadata: JsonObject | None = None
    ) -> object: ...

    async def send_failure(self, failure: AgentFailure) -> object: ...


@dataclass
class ToolCallState:
    """One tool call folded over all its frames."""

    tool_call_id: str
    name: str
    args: JsonObject
    status: str | None = None
    output: str = ""
    raw_output: JsonValue = None
    #: ``output`` is the stringified ``raw_output`` (the frames carried no readable text)
    from_raw: bool = False
    reported: bool = False
    extra: JsonObject = field(default_factory=dict)


def _text_of(content: object) -> str:
    return content.text if isinstance(content, TextContentBlock) else ""


def _args_from_content(update: ToolCallStart | ToolCallUpdate) -> JsonObject:
    """Arguments an agent shows only as the call's text (Gemini CLI: the MCP call's params
    as JSON, when it sends no ``rawInput``)."""
    texts = [
        _text_of(item.content)
        for item in update.content or []
        if getattr(item, "type", None) == "content"
    ]
    if len(texts) != 1:
        return {}
    try:
        value = json.loads(texts[0])
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def tool_call_of(
    update: ToolCallStart | ToolCallUpdate, canonical: Callable[[str], str]
) -> ToolCallState:
    """Name and arguments of a reported call: the MCP tool when ``raw_input`` names one."""
    raw = update.raw_input
    name = update.title or "tool"
    args: JsonObject = raw if isinstance(raw, dict) else {}
    # agents report MCP calls as {server, tool, arguments} (codex) or Cursor's spelling
    for server_key, tool_key, args_key in (
        ("server", "tool", "arguments"),
        ("providerIdentifier", "toolName", "args"),
    ):
        if isinstance(raw, dict) and isinstance(raw.get(tool_key), str) and server_key in raw:
            name = raw[tool_key]
            inner = raw.get(args_key)
            args = inner if isinstance(inner, dict) else {}
            break
    name = canonical(name)
    if raw is None and name != (update.title or "tool"):
        # a Band tool named only by its title (Gemini CLI): its params are the frame's text
        args = _args_from_content(update)
    # a shared file's text stays out of the room's tool_call events
    return ToolCallState(update.tool_call_id, name, redact_tool_call_args(name, args))


def _output_of(update: ToolCallStart | ToolCallProgress) -> str | None:
    texts = [
        _text_of(item.content)
        for item in update.content or []
        if getattr(item, "type", None) == "content"
    ]
    if texts:
        return "\n".join(t for t in texts if t)
    if update.raw_output is not None:
        raw = update.raw_output
        return raw if isinstance(raw, str) else json.dumps(raw, default=str)
    return None


class TurnNarrator:
    """Turns the session updates of one prompt into room events, posted in arrival order."""

    def __init__(
        self,
        sink: RoomSink,
        *,
        room_id: str,
        session_id: str,
        emit: Iterable[str] = EMIT_KINDS,
        canonical: Callable[[str], str] = lambda name: name,
        judge_from_stream: bool = False,
    ) -> None:
        self._sink = sink
        self.room_id = room_id
        self.session_id = session_id
        self._emit = frozenset(emit)
        self._canonical = canonical
        # with an external Band MCP server, completed Band calls are only known from the stream
        self._judge_from_stream = judge_from_stream
        self._staged: list[str] = []
        self._calls: dict[str, ToolCallState] = {}
        self._held: list[str] = []
        self._text_run = False
        self._thoughts: list[str] = []
        self._queue: list[tuple[str, str, JsonObject]] = []
        self._lock = asyncio.Lock()
        #: a call announced without arguments, held for the announcement that completes it
        self._announcing: ToolCallState | None = None
        #: calls known from a permission request, not yet announced by an update
        self._unannounced: set[str] = set()

    # -- intake (synchronous, so wire order is kept whatever the SDK's task scheduling) --

    def feed(self, update: object) -> None:
        """Convert one session update; the events it produces are queued in order."""
        held = self._announcing
        if held is not None and not (
            isinstance(update, ToolCallStart | ToolCallProgress)
            and update.tool_call_id == held.tool_call_id
        ):
            self._announce()  # anything else first: the held call was announced in full
        if isinstance(update, AgentThoughtChunk):
            self._end_text_run()
            text = _text_of(update.content)
            if text:
                self._thoughts.append(text)
            return
        self._flush_thoughts()
        if isinstance(update, AgentMessageChunk):
            text = _text_of(update.content)
            if not text:
                return
            if self._text_run and self._held:
                self._held[-1] += text
            else:
                self._held.append(text)
            self._text_run = True
            return
        self._end_text_run()
        if isinstance(update, ToolCallStart | ToolCallProgress):
            self._track(update)
        elif isinstance(update, AgentPlanUpdate):
            self._plan(update)
        else:
            log.debug("room %s: ACP update %s not posted", self.room_id, type(update).__name__)

    def _event(self, kind: str, content: str, message_type: str, metadata: JsonObject) -> None:
        if kind in self._emit:
            self._queue.append((content, message_type, metadata))

    def _end_text_run(self) -> None:
        """A text run ended: it is a ``text`` event for a narrator asked to post text
        (``ACPCollectingClient``); the room adapter holds text for the reply instead."""
        if self._text_run and self._held:
            self._event("text", self._held[-1], "text", {"acp_session_id": self.session_id})
        self._text_run = False

    def _flush_thoughts(self) -> None:
        if self._thoughts:
            text = "".join(self._thoughts)
            self._thoughts = []
            if text.strip():
                self._event("thoughts", text, "thought", {"acp_session_id": self.session_id})

    def _track(self, update: ToolCallStart | ToolCallProgress) -> None:
        """Fold a tool call's start or progress frame into its state (announcing a new call)."""
        call = self._calls.get(update.tool_call_id)
        if call is None:
            # a new call, or an update for a call never started: announce it from this frame
            call = self._register(tool_call_of(update, self._canonical))
        else:
            # a later frame of a known call (Claude Code announces {} then the input): it
            # completes the first, it is not a second tool_call event
            self._complete_args(call, update)
        self._fold(call, update)

    def _register(self, call: ToolCallState) -> ToolCallState:
        """Announce a new call: at once when its arguments are known, else on its next frame."""
        self._calls[call.tool_call_id] = call
        if call.args:
            self._post_call(call)
        else:
            self._announcing = call
        return call

    def _complete_args(self, call: ToolCallState, update: ToolCallStart | ToolCallUpdate) -> None:
        if not call.args and update.raw_input is not None:
            call.args = tool_call_of(update, self._canonical).args
        if call.tool_call_id in self._unannounced:  # known from a permission request only
            self._unannounced.discard(call.tool_call_id)
            if call.args:
                self._post_call(call)
            else:
                self._announcing = call

    def _announce(self) -> None:
        """Post the held announcement with the arguments known by now."""
        call, self._announcing = self._announcing, None
        if call is not None:
            self._post_call(call)

    def _post_call(self, call: ToolCallState) -> None:
        payload = {"name": call.name, "args": call.args, "tool_call_id": call.tool_call_id}
        self._event("tool_calls", json.dumps(payload), "tool_call", dict(payload))

    def _fold(self, call: ToolCallState, update: ToolCallStart | ToolCallProgress) -> None:
        if self._announcing is call and update.status in ("completed", "failed"):
            self._announce()  # its result follows its announcement
        output = _output_of(update)
        if output is not None:
            call.output = output
            call.from_raw = not any(
                getattr(i, "type", None) == "content" for i in update.content or []
            )
        if update.raw_output is not None:
            call.raw_output = update.raw_output
        if update.status is not None:  # a frame without status keeps the recorded one
            call.status = update.status
        if call.status in ("completed", "failed") and not call.reported:
            call.reported = True
            self._post_result(call, call.output, is_error=call.status == "failed")
            if call.status == "completed" and self._judge_from_stream:
                self._staged.append(call.name)

    def _post_result(self, call: ToolCallState, output: str, *, is_error: bool) -> None:
        payload = {
            "name": call.name,
            "output": output,
            "tool_call_id": call.tool_call_id,
            "is_error": is_error,
        }
        self._event("tool_calls", json.dumps(payload), "tool_result", dict(payload))

    def _plan(self, update: AgentPlanUpdate) -> None:
        entries = [
            {"content": e.content, "status": e.status, "priority": e.priority}
            for e in update.entries
        ]
        text = "\n".join(f"[{e['status']}] {e['content']}" for e in entries) or "(empty plan)"
        self._event(
            "task_events", text, "task", {"plan": entries, "acp_session_id": self.session_id}
        )

    def permission_requested(self, tool_call: ToolCallUpdate) -> None:
        """Remember a call first seen in a permission request (Gemini CLI asks before it
        reports the call): its name and the arguments the request shows. Its tool_call event
        comes with its next frame, so a call that never runs posts nothing (as band-sdk)."""
        if tool_call.tool_call_id in self._calls:
            return
        call = tool_call_of(tool_call, self._canonical)
        self._calls[call.tool_call_id] = call
        self._unannounced.add(call.tool_call_id)

    def permission_cancelled(self, tool_call: ToolCallUpdate) -> None:
        """The synthetic pair for a permission the adapter cancelled: the tool never ran."""
        self._end_text_run()
        self._flush_thoughts()
        if self._announcing is not None:
            self._announce()
        meta = {"permission_request": True, "acp_session_id": self.session_id}
        known = self._calls.get(tool_call.tool_call_id)
        call = known or tool_call_of(tool_call, self._canonical)
        payload = {"name": call.name, "args": call.args, "tool_call_id": call.tool_call_id}
        if known is None or call.tool_call_id in self._unannounced:
            self._calls[call.tool_call_id] = call
            self._unannounced.discard(call.tool_call_id)
            self._event("tool_calls", json.dumps(payload), "tool_call", {**payload, **meta})
        if call.reported:
            return
        call.reported = True
        result = {**payload, "output": "Permission cancelled", "is_error": True}
        del result["args"]
        self._event("tool_calls", json.dumps(result), "tool_result", {**result, **meta})

    # -- posting --

    async def drain(self) -> None:
        """Post every queued event, in order (one poster at a time)."""
        async with self._lock:
            while self._queue:
                content, message_type, metadata = self._queue.pop(0)
                try:
                    await self._sink.send_event(content, message_type, metadata)
                except Exception:  # narration is best effort; the turn's outcome is not
                    log.exception("room %s: posting a %s event failed", self.room_id, message_type)

    def call(self, tool_call_id: str) -> ToolCallState | None:
        """The folded state of a call this turn reported."""
        return self._calls.get(tool_call_id)

    @property
    def held_text(self) -> str:
        """The agent's text outside tool calls, held until the turn ends."""
        return "\n\n".join(self._held)

    def _settle(self) -> None:
        """Queue what the stream left open: text, thoughts and a held announcement."""
        self._end_text_run()
        self._flush_thoughts()
        if self._announcing is not None:
            self._announce()

    async def flush(self) -> None:
        """Post everything streamed so far (a failed turn's narration)."""
        self._settle()
        await self.drain()

    async def close(self, *, interrupted: bool = False) -> None:
        """End of a prompt: held text as a thought unless replied, then the session.

        ``interrupted``: the turn was stopped; a note says so before the session event.
        """
        self._settle()
        await self.drain()
        for name in self._staged:
            self._sink.turn.record_tool(name)
        text = self.held_text
        if not self._sink.turn.replied and text.strip():
            self._event("thoughts", text, "thought", {"acp_session_id": self.session_id})
        if interrupted:
            # state, not narration (like the session event): posted whatever ``emit`` says
            meta: JsonObject = {"acp_session_id": self.session_id, "interrupted": True}
            self._queue.append((INTERRUPTED_NOTE, "task", meta))
        # session bookkeeping is state, not narration: posted whatever ``emit`` says
        self._queue.append(
            (
                SESSION_EVENT,
                "task",
                {"acp_client_session_id": self.session_id, "acp_client_room_id": self.room_id},
            )
        )
        await self.drain()
