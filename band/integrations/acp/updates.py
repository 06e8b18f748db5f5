"""What the editor sees of a Band room: ``EventConverter`` turns a room message into an ACP
``session_update``; ``ACPPushHandler`` sends the ones no prompt is waiting for."""

from __future__ import annotations

import logging
from typing import Any, Protocol

from acp import (
    plan_entry,
    start_tool_call,
    text_block,
    tool_content,
    update_agent_message_text,
    update_agent_thought_text,
    update_plan,
    update_tool_call,
)
from acp.schema import AgentMessageChunk

from band.converters._events import ToolCallEvent, ToolResultEvent, parse
from band.core.turn import AgentFailure
from band.core.types import MessageType, PlatformMessage


class _SessionsOfRooms(Protocol):
    """What the push handler asks of ``BandACPServerAdapter``: a room's session and the editor."""

    def get_session_for_room(self, room_id: str) -> str | None: ...

    def get_acp_client(self) -> Any: ...


__all__ = ["ACPPushHandler", "EventConverter", "failure_of"]

log = logging.getLogger("band.acp.server")


def failure_of(msg: PlatformMessage) -> AgentFailure | None:
    """The ``AgentFailure`` an error event carries in its ``failure`` metadata, if any."""
    meta = msg.metadata.get("failure") if isinstance(msg.metadata, dict) else None
    if not isinstance(meta, dict) or not isinstance(meta.get("provider"), str):
        return None
    code = meta.get("code")
    return AgentFailure(
        meta["provider"],
        str(meta.get("message") or msg.content),
        code if isinstance(code, str) else None,
        meta.get("detail"),
    )


class EventConverter:
    """Room message -> ACP ``session_update`` (stateless).

    Text is the agent's message, a thought its thought, a ``tool_call``/``tool_result``
    event a tool call starting/ending (text when its JSON cannot be read), an error event an
    ``[Error] ...`` message carrying the failure in ``_meta``, a task a plan entry in
    progress; other kinds (usage records) are not shown (``None``).
    """

    @staticmethod
    def convert(msg: PlatformMessage, *, failure: AgentFailure | None = None) -> Any | None:
        """The update for ``msg``, or None when the editor has nothing to show for it."""
        kind = msg.message_type
        if kind == MessageType.TEXT:
            return update_agent_message_text(msg.content)
        if kind == MessageType.THOUGHT:
            return update_agent_thought_text(msg.content)
        if kind in (MessageType.TOOL_CALL, MessageType.TOOL_RESULT):
            return EventConverter._tool(msg)
        if kind == MessageType.ERROR:
            failure = failure or failure_of(msg)
            return AgentMessageChunk(
                session_update="agent_message_chunk",
                content=text_block(f"[Error] {msg.content}"),
                field_meta=failure.to_extension_data() if failure is not None else None,
            )
        if kind == MessageType.TASK:
            return update_plan([plan_entry(msg.content, status="in_progress")])
        log.debug("no ACP update for a %s message", kind)
        return None

    @staticmethod
    def _tool(msg: PlatformMessage) -> Any:
        event = parse({"message_type": msg.message_type, "content": msg.content})
        if isinstance(event, ToolCallEvent):
            return start_tool_call(
                event.tool_call_id,
                event.name,
                kind="other",
                status="in_progress",
                raw_input=event.args,
            )
        if isinstance(event, ToolResultEvent):
            return update_tool_call(
                event.tool_call_id,
                status="failed" if event.is_error else "completed",
                raw_output=event.output,
                content=[tool_content(text_block(event.output))],
            )
        return update_agent_message_text(msg.content)  # unreadable: shown as it is


class ACPPushHandler:
    """Sends the editor a room message no prompt is waiting for (a peer speaking on its own),
    in the session of that room."""

    def __init__(self, adapter: _SessionsOfRooms) -> None:
        self._adapter = adapter

    async def handle_push_event(self, msg: PlatformMessage, room_id: str) -> None:
        """Send ``msg`` as an update of ``room_id``'s session (nothing without a session,
        an editor, or an update for its kind)."""
        session_id = self._adapter.get_session_for_room(room_id)
        client = self._adapter.get_acp_client()
        if session_id is None or client is None:
            log.debug("room %s: no ACP session or editor, message %s not pushed", room_id, msg.id)
            return
        update = EventConverter.convert(msg)
        if update is not None:
            await client.session_update(session_id=session_id, update=update)
