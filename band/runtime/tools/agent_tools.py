"""``AgentTools``: the platform tools bound to one room and one turn."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any, TypeVar

from pydantic import BaseModel

from band.client.rest import RestClient, path
from band.core import wire as w
from band.core.turn import AgentFailure, Turn
from band.core.types import Capability, ToolParam

from . import ops
from . import registry as t
from .registry import TOOL_MODELS, ToolCallOutcome, run_tool, select_tools
from .spec import FORMATS, ToolSpec

log = logging.getLogger("band.tools")

__all__ = ["AgentTools"]

R = TypeVar("R")


class AgentTools:
    """Band's platform tools for one room; tool methods record their effect on ``turn``.

    Every ``band_<name>`` tool is the method ``<name>``. Methods validate their arguments
    like the tool call does (``InvalidToolArgumentsError``) and raise on failure;
    ``execute_tool_call`` turns failures into error strings for the model.
    """

    def __init__(
        self,
        room_id: str,
        rest: RestClient,
        participants: list[dict[str, Any]] | None = None,
        *,
        hub_room_id: str | None = None,
        agent_id: str | None = None,
    ) -> None:
        self.room_id = room_id
        self.rest = rest
        self.hub_room_id = hub_room_id
        self.turn = Turn()
        cached = [dict(p) for p in participants] if participants is not None else None
        self._ctx = ops.ToolContext(rest, room_id, agent_id, cached)

    def __repr__(self) -> str:
        return f"AgentTools(room_id={self.room_id!r}, agent_id={self.agent_id!r})"

    @classmethod
    def from_context(cls, ctx: Any, *, bind_scope: bool = True) -> AgentTools:
        """New tools for the room of ``ctx`` (an ``ExecutionContext``), with a fresh turn.

        ``bind_scope`` is accepted for band-sdk compatibility; the tools always belong to
        the context's room.
        """
        tools = ctx.new_tools()
        if not isinstance(tools, cls):
            raise TypeError(f"not an ExecutionContext: {type(ctx).__name__}")
        return tools

    # --- the protocol's plain members ---------------------------------------------------------

    @property
    def agent_id(self) -> str | None:
        """This agent's ID, or None when the tools are not bound to one."""
        return self._ctx.agent_id

    @property
    def participants(self) -> list[dict[str, Any]]:
        """A copy of the cached room participants (refreshed by ``get_participants``)."""
        return [dict(p) for p in self._ctx.participants or []]

    def set_participants(self, participants: list[dict[str, Any]]) -> None:
        """Replace the cached participants (the runtime calls this when the room changes)."""
        self._ctx.participants = [dict(p) for p in participants]

    @property
    def tool_models(self) -> dict[str, type[BaseModel]]:
        """Each platform tool's input model, by tool name."""
        return dict(TOOL_MODELS)

    def available_mention_handles(self) -> list[str]:
        """The handle of each cached participant other than this agent, as stored."""
        return [
            str(p["handle"])
            for p in self._ctx.participants or []
            if p.get("handle") and p.get("id") != self.agent_id
        ]

    @property
    def is_hub_room(self) -> bool:
        """True when bound to the agent's contact hub room."""
        return self.hub_room_id is not None and self.room_id == self.hub_room_id

    @property
    def context(self) -> ops.ToolContext:
        """The binding the tool functions run against (shared with band-mcp's tools)."""
        return self._ctx

    @property
    def posted(self) -> tuple[str, ...]:
        """Texts of the messages posted through these tools, answered or not."""
        return tuple(self._ctx.posted)

    async def _call(self, spec: ToolSpec[Any, R], **arguments: Any) -> R:
        """Validate and run one tool; record its effect only when it returns; its typed result."""
        value = await spec.run(self._ctx, spec.validate(arguments))
        self.turn.record(spec.effect)
        return spec.result(value)

    # --- chat ---------------------------------------------------------------------------------

    async def send_message(
        self,
        content: str,
        mentions: list[str] | list[dict[str, str]] | None = None,
        *,
        attachment_ids: list[str] | None = None,
    ) -> w.MessageSentResponse:
        """Post a message mentioning ``mentions``; it is the turn's reply."""
        return await self._call(
            t.SEND_MESSAGE,
            content=content,
            mentions=list(mentions or []),
            attachment_ids=attachment_ids,
        )

    async def send_notice(
        self, content: str, mentions: list[str] | list[dict[str, str]] | None = None
    ) -> w.MessageSentResponse:
        """Post a message the adapter wrote itself; it records nothing on the turn."""
        args = t.SEND_MESSAGE.validate({"content": content, "mentions": list(mentions or [])})
        posted = await ops.post_message(self._ctx, args.content, args.mentions)
        return t.SEND_MESSAGE.result(posted)

    async def send_event(
        self, content: str, message_type: str, metadata: dict[str, Any] | None = None
    ) -> w.EventCreatedResponse:
        """Post an event of any type (``tool_call``, ``tool_result``, ``thought``, ...)."""
        # any message_type an adapter narrates, not only the ones the model is offered
        result = await ops.post_event(self._ctx, content, message_type, metadata)
        self.turn.record(t.SEND_EVENT.effect)
        return t.SEND_EVENT.result(result)

    async def no_reply(self, reason: str | None = None) -> dict[str, Any]:
        """End the turn without posting; the reason is logged only."""
        return await self._call(t.NO_REPLY, reason=reason)

    async def send_failure(self, failure: AgentFailure) -> w.EventCreatedResponse | dict[str, Any]:
        """Post ``failure`` as an ``error`` event and note it on the turn; never raises.

        When the event cannot be posted the turn is left as it was, so the runtime still
        reports the turn itself; the result is then ``{"ok": False, "error": <reason>}``.
        """
        meta = {"provider": failure.provider, "code": failure.code, "detail": failure.detail}
        try:
            posted = await ops.post_event(self._ctx, failure.message, "error", meta)
        except Exception as exc:  # reporting a failure must not become a second failure
            log.warning(
                "could not post the failure of %s to room %s",
                failure.provider,
                self.room_id,
                exc_info=True,
            )
            return {"ok": False, "error": str(exc)}
        self.turn.note_reported()
        return t.SEND_EVENT.result(posted)

    async def add_participant(self, identifier: str, role: str = "member") -> dict[str, Any]:
        """Add a person or agent (ID, handle or name) to the room."""
        return await self._call(t.ADD_PARTICIPANT, identifier=identifier, role=role)

    async def remove_participant(self, identifier: str) -> dict[str, Any]:
        """Remove a participant (ID, handle or name) from the room."""
        return await self._call(t.REMOVE_PARTICIPANT, identifier=identifier)

    async def get_participants(self) -> list[w.ChatParticipant]:
        """The room's participants (refreshes ``participants``)."""
        return await self._call(t.GET_PARTICIPANTS)

    async def lookup_peers(self, page: int = 1, page_size: int = 50) -> w.ListAgentPeersResponse:
        """Peers that could join this room: ``{"data": [...], "metadata": {...}}``."""
        return await self._call(t.LOOKUP_PEERS, page=page, page_size=page_size)

    async def create_chatroom(self, task_id: str | None = None) -> str:
        """Create a room (optionally for a task) and return its ID."""
        return await self._call(t.CREATE_CHATROOM, task_id=task_id)

    async def fetch_room_context(
        self, *, room_id: str, page: int = 1, page_size: int = 50
    ) -> dict[str, Any]:
        """A page of another room's agent context: ``{"data": [message, ...], "meta": {...}}``."""
        if page < 1:
            raise ValueError("page must be at least 1")
        if not 1 <= page_size <= 100:
            raise ValueError("page_size must be between 1 and 100")
        url = path("/agent/chats/{}/context", room_id)
        resp = await self.rest.request("GET", url, params={"page": page, "page_size": page_size})
        body = ops.body_of(resp)
        rows = list(body.get("data") or [])
        # the required ``metadata`` first; ``meta`` is the deprecated twin (band-sdk's order)
        meta = body.get("metadata") or body.get("meta")
        if not isinstance(meta, dict):
            total = len(rows)
            meta = {"page": page, "page_size": page_size, "total_count": total}
            meta["total_pages"] = 1 if rows else 0
        return {"data": rows, "meta": dict(meta)}

    # --- contacts -----------------------------------------------------------------------------

    async def list_contacts(
        self, page: int = 1, page_size: int = 50
    ) -> w.ListAgentContactsResponse:
        """The agent's contacts, one page."""
        return await self._call(t.LIST_CONTACTS, page=page, page_size=page_size)

    async def add_contact(
        self, handle: str, message: str | None = None
    ) -> w.AddAgentContactResponseData:
        """Send a contact request."""
        return await self._call(t.ADD_CONTACT, handle=handle, message=message)

    async def remove_contact(
        self, handle: str | None = None, contact_id: str | None = None
    ) -> w.RemoveAgentContactResponseData:
        """Remove a contact by handle or contact ID."""
        return await self._call(t.REMOVE_CONTACT, handle=handle, contact_id=contact_id)

    async def list_contact_requests(
        self, page: int = 1, page_size: int = 50, sent_status: str = "pending"
    ) -> w.ListAgentContactRequestsResponse:
        """Received and sent contact requests."""
        return await self._call(
            t.LIST_CONTACT_REQUESTS, page=page, page_size=page_size, sent_status=sent_status
        )

    async def respond_contact_request(
        self, action: str, handle: str | None = None, request_id: str | None = None
    ) -> w.RespondToAgentContactRequestResponseData:
        """Approve, reject or cancel a contact request."""
        return await self._call(
            t.RESPOND_CONTACT_REQUEST, action=action, handle=handle, request_id=request_id
        )

    # --- memory -------------------------------------------------------------------------------

    async def list_memories(
        self,
        subject_id: str | None = None,
        scope: str | None = None,
        system: str | None = None,
        type: str | None = None,
        segment: str | None = None,
        content_query: str | None = None,
        page_size: int = 50,
        status: str | None = None,
    ) -> w.ListAgentMemoriesResponse:
        """Memories the agent can read, filtered."""
        return await self._call(
            t.LIST_MEMORIES,
            subject_id=subject_id,
            scope=scope,
            system=system,
            type=type,
            segment=segment,
            content_query=content_query,
            page_size=page_size,
            status=status,
        )

    async def store_memory(
        self,
        content: str,
        system: str,
        type: str,
        segment: str,
        thought: str,
        scope: str,
        subject_id: str | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> w.AgentMemory:
        """Store a memory."""
        return await self._call(
            t.STORE_MEMORY,
            content=content,
            system=system,
            type=type,
            segment=segment,
            thought=thought,
            scope=scope,
            subject_id=subject_id,
            metadata=metadata,
        )

    async def get_memory(self, memory_id: str) -> w.AgentMemory:
        """Read one memory."""
        return await self._call(t.GET_MEMORY, memory_id=memory_id)

    async def supersede_memory(self, memory_id: str) -> w.AgentMemory:
        """Mark a memory superseded."""
        return await self._call(t.SUPERSEDE_MEMORY, memory_id=memory_id)

    async def archive_memory(self, memory_id: str) -> w.AgentMemory:
        """Archive a memory."""
        return await self._call(t.ARCHIVE_MEMORY, memory_id=memory_id)

    # --- files --------------------------------------------------------------------------------

    async def list_room_files(self, cursor: str | None = None) -> dict[str, Any]:
        """One page of the room's files: ``{"data": [attachment, ...], "next_cursor": ...}``."""
        return await self._call(t.LIST_ROOM_FILES, cursor=cursor)

    async def read_room_file(self, file_id: str) -> dict[str, Any]:
        """A room file: its text, an image block, or a description when not shown inline."""
        return await self._call(t.READ_ROOM_FILE, file_id=file_id)

    async def send_room_file(
        self, content: str, filename: str, caption: str = "", mentions: list[str] | None = None
    ) -> dict[str, Any]:
        """Share ``content`` as the file ``filename``; the message it rides on is the reply."""
        return await self._call(
            t.SEND_ROOM_FILE,
            content=content,
            filename=filename,
            caption=caption,
            mentions=list(mentions or []),
        )

    # --- tasks --------------------------------------------------------------------------------

    async def list_tasks(
        self, state: str | None = None, cursor: str | None = None, limit: int | None = None
    ) -> w.ListChatTasksResponse:
        """The room board's tasks in number order."""
        return await self._call(t.LIST_TASKS, state=state, cursor=cursor, limit=limit)

    async def create_task(
        self, subject: str, detail: str | None = None, supersedes_id: str | None = None
    ) -> w.Task:
        """Create a task on the room's board."""
        return await self._call(
            t.CREATE_TASK, subject=subject, detail=detail, supersedes_id=supersedes_id
        )

    async def get_task(self, id: str, include: str | None = None) -> w.Task:
        """Read one task (``include="history"`` embeds its recent events)."""
        return await self._call(t.GET_TASK, id=id, include=include)

    async def update_task(
        self,
        id: str,
        status: str | None = None,
        active_form: str | None = None,
        comment: str | None = None,
        subject: str | None = None,
        detail: str | None = None,
        state: str | None = None,
    ) -> w.Task:
        """Update a task (at least one field)."""
        return await self._call(
            t.UPDATE_TASK,
            id=id,
            status=status,
            active_form=active_form,
            comment=comment,
            subject=subject,
            detail=detail,
            state=state,
        )

    async def get_task_history(
        self, id: str, cursor: str | None = None, limit: int | None = None
    ) -> w.GetChatTaskHistoryResponse:
        """A task's full history, oldest first."""
        return await self._call(t.GET_TASK_HISTORY, id=id, cursor=cursor, limit=limit)

    async def get_board(self, include: str | None = None) -> w.Board:
        """The room's goal."""
        return await self._call(t.GET_BOARD, include=include)

    async def set_board(
        self, goal_title: str | None = None, goal_summary: str | None = None
    ) -> w.Board:
        """Set or update the room's goal."""
        return await self._call(t.SET_BOARD, goal_title=goal_title, goal_summary=goal_summary)

    # --- schemas and dispatch -----------------------------------------------------------------

    def _specs(self, capabilities: frozenset[Capability] | None) -> list[ToolSpec[Any, Any]]:
        return select_tools(capabilities, hub_room=self.is_hub_room)

    def get_tool_schemas(
        self, format: str, *, capabilities: frozenset[Capability] | None = None
    ) -> list[dict[str, Any]] | list[ToolParam]:
        """Tool definitions in ``"openai"`` or ``"anthropic"`` format."""
        if format not in FORMATS:
            raise ValueError(f"Invalid format: {format}. Must be 'openai' or 'anthropic'")
        return [s.schema(format) for s in self._specs(capabilities)]

    def get_anthropic_tool_schemas(
        self, *, capabilities: frozenset[Capability] | None = None
    ) -> list[ToolParam]:
        """Tool definitions as Anthropic ``ToolParam`` dicts."""
        return [s.anthropic_schema() for s in self._specs(capabilities)]

    def get_openai_tool_schemas(
        self, *, capabilities: frozenset[Capability] | None = None
    ) -> list[dict[str, Any]]:
        """Tool definitions as OpenAI function tools."""
        return [s.schema("openai") for s in self._specs(capabilities)]

    async def execute_tool_call(self, tool_name: str, arguments: Mapping[str, Any]) -> Any:
        """Run a tool by name; failures come back as error strings."""
        return (await self.execute_tool_call_structured(tool_name, arguments)).value

    async def execute_tool_call_structured(
        self, tool_name: str, arguments: Mapping[str, Any]
    ) -> ToolCallOutcome:
        """Run a tool by name; ``ok`` says whether it succeeded (and its effect was recorded)."""
        outcome = await run_tool(self._ctx, tool_name, arguments)
        if outcome.ok:
            self.turn.record_tool(tool_name)
        return outcome
