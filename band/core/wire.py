"""Typed wire models: the REST bodies Band returns, as msgspec Structs.

The direct ``AgentTools`` methods return these (attribute access with the field names of
band-sdk 6.0.1's results: ``send_message(...).id``, ``lookup_peers().metadata.total_count``);
``execute_tool_call`` and the MCP/ACP surfaces keep the plain dicts the spec gives. This is the
start of the one typed wire layer (issue 21): every field is optional so a body with fewer or
more keys still decodes, and unknown keys are ignored.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, TypeVar

import msgspec

__all__ = [
    "AddAgentContactResponseData",
    "AgentContact",
    "AgentMemory",
    "Board",
    "ChatParticipant",
    "EventCreatedResponse",
    "GetChatTaskHistoryResponse",
    "GetChatTaskHistoryResponseMetadata",
    "ListAgentContactRequestsResponse",
    "ListAgentContactRequestsResponseData",
    "ListAgentContactRequestsResponseMetadata",
    "ListAgentContactRequestsResponseMetadataReceived",
    "ListAgentContactRequestsResponseMetadataSent",
    "ListAgentContactsResponse",
    "ListAgentContactsResponseMetadata",
    "ListAgentMemoriesResponse",
    "ListAgentMemoriesResponseMeta",
    "ListAgentMemoriesResponseMetadata",
    "ListAgentPeersResponse",
    "ListAgentPeersResponseMetadata",
    "ListChatTasksResponse",
    "ListChatTasksResponseMetadata",
    "MessageSentResponse",
    "MessageSentResponseRecipientsItem",
    "Peer",
    "ReceivedContactRequest",
    "RemoveAgentContactResponseData",
    "RespondToAgentContactRequestResponseData",
    "SentContactRequest",
    "Task",
    "TaskActor",
    "TaskAssignment",
    "TaskEvent",
    "WireModel",
    "decode_as",
]

M = TypeVar("M", bound="WireModel")


class WireModel(msgspec.Struct, kw_only=True):
    """Base of the wire models: attribute access, plus ``model_dump`` and read-only ``[key]``.

    ``model_dump`` matches what pydantic callers of the official SDK use; ``[key]``/``get``
    keep code written against our earlier dict results working.
    """

    def model_dump(self, *, mode: str = "python", exclude_none: bool = False) -> dict[str, Any]:
        """The model as a dict (``mode="json"``: datetimes as ISO strings)."""
        keep = () if mode == "json" else (datetime,)
        out = msgspec.to_builtins(self, builtin_types=keep)
        if exclude_none:
            return _drop_none(out)
        return dict(out)

    def __getitem__(self, key: str) -> Any:
        if key not in self.__struct_fields__:
            raise KeyError(key)
        return getattr(self, key)

    def __contains__(self, key: object) -> bool:
        return key in self.__struct_fields__

    def get(self, key: str, default: Any = None) -> Any:
        """The field ``key``, or ``default`` when the model has no such field."""
        return getattr(self, key, default) if key in self.__struct_fields__ else default


def _drop_none(obj: dict[str, Any]) -> dict[str, Any]:
    """``obj`` without its None values, at any depth."""
    return {k: _drop_none_in(v) for k, v in obj.items() if v is not None}


def _drop_none_in(value: Any) -> Any:
    if isinstance(value, dict):
        return _drop_none(value)
    if isinstance(value, list):
        return [_drop_none_in(v) for v in value]
    return value


def decode_as(model: type[M], body: Any) -> M:
    """``body`` (a decoded JSON object) as ``model``; unknown keys are ignored."""
    return msgspec.convert(body, type=model, strict=False)


# --- people, peers, participants -------------------------------------------------------------


class TaskActor(WireModel):
    """Who did something to a task or board."""

    id: str | None = None
    name: str | None = None
    handle: str | None = None
    type: str | None = None


class ChatParticipant(WireModel):
    """A member of a room."""

    id: str | None = None
    name: str | None = None
    handle: str | None = None
    type: str | None = None
    role: str | None = None
    status: str | None = None
    online: bool | None = None
    avatar_url: str | None = None


class Peer(WireModel):
    """An agent or person this agent may add to a room."""

    id: str | None = None
    name: str | None = None
    handle: str | None = None
    type: str | None = None
    description: str | None = None
    avatar_url: str | None = None
    is_contact: bool | None = None
    is_external: bool | None = None
    listed_in_directory: bool | None = None
    online: bool | None = None
    source: str | None = None
    tags: list[str] | None = None


class ListAgentPeersResponseMetadata(WireModel):
    """Offset paging of a peers page."""

    page: int | None = None
    page_size: int | None = None
    total_count: int | None = None
    total_pages: int | None = None


class ListAgentPeersResponse(WireModel):
    """A page of peers."""

    data: list[Peer] = msgspec.field(default_factory=list)
    metadata: ListAgentPeersResponseMetadata | None = None


# --- messages and events ---------------------------------------------------------------------


class MessageSentResponseRecipientsItem(WireModel):
    """One mentioned recipient of a posted message."""

    id: str | None = None
    name: str | None = None
    handle: str | None = None


class MessageSentResponse(WireModel):
    """A posted message."""

    id: str | None = None
    success: bool | None = None
    recipients: list[MessageSentResponseRecipientsItem] | None = None


class EventCreatedResponse(WireModel):
    """A posted event."""

    id: str | None = None
    success: bool | None = None
    message_type: str | None = None


# --- contacts --------------------------------------------------------------------------------


class AgentContact(WireModel):
    """One of the agent's contacts."""

    id: str | None = None
    name: str | None = None
    handle: str | None = None
    type: str | None = None
    description: str | None = None
    avatar_url: str | None = None
    is_external: bool | None = None
    listed_in_directory: bool | None = None
    online: bool | None = None
    tags: list[str] | None = None
    inserted_at: datetime | None = None


class ListAgentContactsResponseMetadata(ListAgentPeersResponseMetadata):
    """Offset paging of a contacts page."""


class ListAgentContactsResponse(WireModel):
    """A page of contacts."""

    data: list[AgentContact] = msgspec.field(default_factory=list)
    metadata: ListAgentContactsResponseMetadata | None = None


class AddAgentContactResponseData(WireModel):
    """A sent contact request (or the contact it completed)."""

    id: str | None = None
    status: str | None = None


class RemoveAgentContactResponseData(WireModel):
    """The outcome of removing a contact."""

    status: str | None = None


class RespondToAgentContactRequestResponseData(WireModel):
    """The outcome of approving, rejecting or cancelling a request."""

    id: str | None = None
    status: str | None = None


class ReceivedContactRequest(WireModel):
    """A contact request someone sent this agent."""

    id: str | None = None
    status: str | None = None
    message: str | None = None
    from_name: str | None = None
    from_handle: str | None = None
    from_avatar_url: str | None = None
    inserted_at: datetime | None = None


class SentContactRequest(WireModel):
    """A contact request this agent sent."""

    id: str | None = None
    status: str | None = None
    message: str | None = None
    to_name: str | None = None
    to_handle: str | None = None
    to_avatar_url: str | None = None
    inserted_at: datetime | None = None


class ListAgentContactRequestsResponseData(WireModel):
    """Received and sent requests."""

    received: list[ReceivedContactRequest] = msgspec.field(default_factory=list)
    sent: list[SentContactRequest] = msgspec.field(default_factory=list)


class ListAgentContactRequestsResponseMetadataReceived(WireModel):
    """Counts of received requests."""

    total: int | None = None
    total_pages: int | None = None


class ListAgentContactRequestsResponseMetadataSent(
    ListAgentContactRequestsResponseMetadataReceived
):
    """Counts of sent requests."""


class ListAgentContactRequestsResponseMetadata(WireModel):
    """Paging of both request lists."""

    page: int | None = None
    page_size: int | None = None
    received: ListAgentContactRequestsResponseMetadataReceived | None = None
    sent: ListAgentContactRequestsResponseMetadataSent | None = None


class ListAgentContactRequestsResponse(WireModel):
    """Contact requests, both directions."""

    data: ListAgentContactRequestsResponseData | None = None
    metadata: ListAgentContactRequestsResponseMetadata | None = None


# --- memories --------------------------------------------------------------------------------


class AgentMemory(WireModel):
    """One stored memory."""

    id: str | None = None
    content: str | None = None
    system: str | None = None
    type: str | None = None
    segment: str | None = None
    thought: str | None = None
    scope: str | None = None
    status: str | None = None
    subject_id: str | None = None
    source_agent_id: str | None = None
    organization_id: str | None = None
    metadata: dict[str, Any] | None = None
    inserted_at: datetime | None = None


class ListAgentMemoriesResponseMetadata(WireModel):
    """Paging of a memories page (offset and cursor fields)."""

    page: int | None = None
    page_size: int | None = None
    total_count: int | None = None
    total_pages: int | None = None
    has_more: bool | None = None
    limit: int | None = None
    next_cursor: str | None = None


class ListAgentMemoriesResponseMeta(ListAgentMemoriesResponseMetadata):
    """The same paging under the optional ``meta`` key."""


class ListAgentMemoriesResponse(WireModel):
    """A page of memories."""

    data: list[AgentMemory] = msgspec.field(default_factory=list)
    metadata: ListAgentMemoriesResponseMetadata | None = None
    meta: ListAgentMemoriesResponseMeta | None = None


# --- tasks and the board ---------------------------------------------------------------------


class TaskEvent(WireModel):
    """One entry of a task's or the board's history."""

    event: str | None = None
    actor: TaskActor | None = None
    at: datetime | None = None
    payload: dict[str, Any] | None = None


class TaskAssignment(WireModel):
    """One assignee's status on a task."""

    assignee: TaskActor | None = None
    status: str | None = None
    active_form: str | None = None
    linked_native_id: str | None = None
    updated_at: datetime | None = None


class Task(WireModel):
    """A task on a room's board."""

    id: str | None = None
    number: int | None = None
    subject: str | None = None
    detail: str | None = None
    state: str | None = None
    overall_status: str | None = None
    chat_room_id: str | None = None
    created_by: TaskActor | None = None
    assignments: list[TaskAssignment] | None = None
    superseded_by_id: str | None = None
    history: list[TaskEvent] | None = None
    history_truncated: bool | None = None
    inserted_at: datetime | None = None
    updated_at: datetime | None = None


class ListChatTasksResponseMetadata(WireModel):
    """Cursor paging of a task list."""

    has_more: bool | None = None
    limit: int | None = None
    next_cursor: str | None = None


class ListChatTasksResponse(WireModel):
    """A page of tasks."""

    data: list[Task] = msgspec.field(default_factory=list)
    metadata: ListChatTasksResponseMetadata | None = None


class GetChatTaskHistoryResponseMetadata(ListChatTasksResponseMetadata):
    """Cursor paging of a task's history."""


class GetChatTaskHistoryResponse(WireModel):
    """A page of a task's history."""

    data: list[TaskEvent] = msgspec.field(default_factory=list)
    metadata: GetChatTaskHistoryResponseMetadata | None = None


class Board(WireModel):
    """A room's goal."""

    chat_room_id: str | None = None
    goal_title: str | None = None
    goal_summary: str | None = None
    created_by: TaskActor | None = None
    updated_by: TaskActor | None = None
    history: list[TaskEvent] | None = None
    history_truncated: bool | None = None
    inserted_at: datetime | None = None
    updated_at: datetime | None = None
