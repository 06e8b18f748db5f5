"""The JSON bodies of every REST route, declared once (validation and ``/openapi.json``)."""

from __future__ import annotations

import unicodedata
import uuid
from typing import Annotated, Any, ClassVar, Literal

from pydantic import AfterValidator, Field, field_validator, model_validator
from pydantic_core import PydanticCustomError

from band.core.wire import JsonObject

from .fields import MemorySegment, MemorySystem, MemoryType, NonBlank, NonBlankOf, Obj, rule
from .inputs import PREDICATE, BodyModel, WrappedBody

EventType = Literal["tool_call", "tool_result", "thought", "error", "task", "attention"]
Role = Literal["owner", "admin", "member"]
MAX_EVENT_CHARS = 16384
#: a message's text (Band's documents give no figure; README "Limits" states this one)
MAX_MESSAGE_CHARS = 100_000
MAX_CONTACT_MESSAGE = 500
#: ids one bulk deletion may name (as on Band)
MAX_BULK_IDS = 100
TaskStatus = Literal["pending", "in_progress", "blocked", "in_review", "failed", "completed"]
TASK_UPDATE_MESSAGE = (
    "At least one of status, active_form, comment, subject, detail, or state must be set"
)
PROFILE_MESSAGE = "At least one field (first_name or last_name) must be provided"


def _handle(value: str) -> str:
    if not value.strip().lstrip("@"):
        raise PydanticCustomError(PREDICATE, "can't be blank")
    return value


#: a contact handle (``@user`` or ``@user/agent``); "@" alone is blank
Handle = Annotated[str, AfterValidator(_handle), Field(json_schema_extra={"pattern": r"[^\s@]"})]
ContactMessage = Annotated[str, Field(max_length=MAX_CONTACT_MESSAGE)]


# -- rooms and messages ----------------------------------------------------------


#: longest room title (after trimming), as on Band
MAX_TITLE = 120


def _title(value: str) -> str:
    """A room title: no control characters, at most ``MAX_TITLE`` characters once trimmed."""
    if any(unicodedata.category(c) == "Cc" for c in value):
        raise PydanticCustomError(PREDICATE, "must not contain control characters")
    if len(value.strip()) > MAX_TITLE:
        raise PydanticCustomError(PREDICATE, f"must be at most {MAX_TITLE} characters")
    return value


def _trimmed(value: str) -> str:
    return value.strip()


Title = Annotated[str, AfterValidator(_title), Field(json_schema_extra={"maxLength": MAX_TITLE})]


class ChatIn(Obj):
    """ChatRoomRequest (a blank title is the default title)."""

    title: Title | None = None
    task_id: str | None = None


class ChatBody(WrappedBody):
    """POST /agent/chats, POST /me/chats: ``{"chat": {title?, task_id?}}``."""

    chat: ChatIn


class RenameIn(Obj):
    """The new room title (trimmed; 1..120 characters after trimming)."""

    title: Annotated[NonBlank, AfterValidator(_title), AfterValidator(_trimmed)]


class RenameBody(WrappedBody):
    """PATCH /agent/chats/{id}: ``{"chat": {title}}``."""

    chat: RenameIn


class Mention(Obj):
    """A mention of a room participant (by id, else handle or name).

    ``kind``: ``mention`` (the default) is delivered to the participant; ``reference`` only
    names it (kept on the message, never delivered). An explicit null is refused.
    """

    id: str | None = None
    handle: str | None = None
    name: str | None = None
    kind: Literal["mention", "reference"] = "mention"


class MessageIn(Obj):
    """A text message."""

    content: NonBlankOf[Annotated[str, Field(max_length=MAX_MESSAGE_CHARS)]]
    mentions: list[Mention] = Field(default_factory=list)
    attachment_ids: list[Annotated[str, Field(min_length=1)]] = Field(default_factory=list)


class MessageBody(WrappedBody):
    """POST .../messages: ``{"message": {content, mentions?, attachment_ids?}}``."""

    field_messages: ClassVar[dict[str, str]] = {
        "attachment_ids": "attachment_ids must be a list of file ids (omit it for none)"
    }
    message: MessageIn


class EventIn(Obj):
    """A non-text room event."""

    content: NonBlankOf[Annotated[str, Field(max_length=MAX_EVENT_CHARS)]]
    message_type: EventType
    metadata: JsonObject | None = None


class EventBody(WrappedBody):
    """POST .../events: ``{"event": {content, message_type, metadata?}}``."""

    event: EventIn


class FailedBody(BodyModel):
    """POST .../messages/{id}/failed: ``{"error": str}`` (flat; ``Unknown error`` if absent)."""

    error: str | None = None


class ActivityIn(Obj):
    """What the agent is busy with."""

    kind: Literal["reasoning", "tool_call", "memory", "permission"]
    name: str | None = None


class ActivityBody(BodyModel):
    """POST .../activity: ``{"working": bool, "activity"?: {kind, name?}}``."""

    working: bool = False
    activity: ActivityIn | None = None


class ParticipantIn(Obj):
    """A participant to add."""

    participant_id: NonBlank
    role: Role = "member"


class ParticipantBody(WrappedBody):
    """POST .../participants: ``{"participant": {participant_id, role?}}``."""

    participant: ParticipantIn


# -- people and agents -------------------------------------------------------------


class RegisterIn(Obj):
    """A new agent."""

    name: NonBlank
    description: NonBlank


class RegisterBody(WrappedBody):
    """POST /me/agents/register: ``{"agent": {name, description}}``."""

    agent: RegisterIn


class ProfileIn(Obj):
    """The person's names (at least one)."""

    first_name: str | None = None
    last_name: str | None = None

    @model_validator(mode="after")
    def _one_name(self) -> ProfileIn:
        if not self.first_name and self.last_name is None:
            raise rule("first_name", PROFILE_MESSAGE)
        return self


class ProfileBody(WrappedBody):
    """PUT /me/profile: ``{"user": {first_name?, last_name?}}``."""

    user: ProfileIn


class BulkIdsBody(BodyModel):
    """POST /me/agents/bulk-delete, /me/chats/bulk-delete: ``{"ids": [str, ...]}``."""

    field_messages: ClassVar[dict[str, str]] = {
        "ids": f"ids must be a non-empty array of at most {MAX_BULK_IDS} strings"
    }
    ids: Annotated[list[str], Field(min_length=1, max_length=MAX_BULK_IDS)]


class BulkAgentsBody(BulkIdsBody):
    """POST /me/agents/bulk-delete: ``{"ids": [...], "force"?: bool}`` (a JSON boolean)."""

    force: bool = False


class ControlBody(BodyModel):
    """POST /me/agents/{id}/control: ``{"mode", "reason"?}`` (or wrapped in ``control``)."""

    mode: Literal["stop", "play", "interrupt"]
    reason: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _unwrap(cls, value: Any) -> Any:
        if isinstance(value, dict) and isinstance(value.get("control"), dict):
            return value["control"]
        return value


class RoomControlBody(ControlBody):
    """POST /me/chats/{id}/control: ``{"mode", "agent_id", "reason"?}`` (flat or wrapped)."""

    agent_id: NonBlank


# -- contacts ----------------------------------------------------------------------


class AddContactBody(BodyModel):
    """POST /agent/contacts/add: ``{"handle", "message"?}``."""

    bad_request_fields: ClassVar[frozenset[str]] = frozenset({"handle"})
    handle: Handle
    message: ContactMessage | None = None


class RemoveContactBody(BodyModel):
    """POST /agent/contacts/remove, /me/contacts/remove: ``{"handle"?, "contact_id"?}``."""

    handle: str | None = None
    contact_id: str | None = None


class RespondBody(BodyModel):
    """POST /agent/contacts/requests/respond: ``{"action", "handle"?, "request_id"?}``."""

    bad_request_fields: ClassVar[frozenset[str]] = frozenset({"action"})
    action: Literal["approve", "reject", "cancel"]
    handle: str | None = None
    request_id: str | None = None


class ContactRequestIn(Obj):
    """A contact request to a handle."""

    recipient_handle: NonBlank
    message: ContactMessage | None = None


class ContactRequestBody(WrappedBody):
    """POST /me/contacts/requests: ``{"contact_request": {recipient_handle, message?}}``."""

    contact_request: ContactRequestIn


class ResolveBody(BodyModel):
    """POST /me/contacts/resolve: ``{"handle"}``."""

    bad_request_fields: ClassVar[frozenset[str]] = frozenset({"handle"})
    handle: Handle


# -- memories and tasks ------------------------------------------------------------


class MemoryIn(Obj):
    """A memory to store."""

    content: NonBlank
    system: MemorySystem
    type: MemoryType
    segment: MemorySegment
    thought: str
    scope: Literal["agent", "subject", "organization"] | None = None
    subject_id: str | None = None
    metadata: JsonObject | None = None

    @field_validator("metadata")
    @classmethod
    def _string_lists(cls, value: JsonObject | None) -> JsonObject | None:
        for key in ("tags", "references"):
            items = (value or {}).get(key)
            if items is not None and (
                not isinstance(items, list) or not all(isinstance(i, str) for i in items)
            ):
                raise rule(f"metadata.{key}", f"{key} must be a list of strings")
        return value


class MemoryBody(WrappedBody):
    """POST /agent/memories: ``{"memory": {content, system, type, segment, thought, ...}}``."""

    memory: MemoryIn


class TaskCreateBody(BodyModel):
    """POST /agent/chats/{id}/tasks: ``{"subject", "detail"?, "supersedes_id"?}``."""

    subject: NonBlank
    detail: str | None = None
    supersedes_id: str | None = None


class TaskUpdateBody(BodyModel):
    """POST /agent/chats/{id}/tasks/{task}: at least one field."""

    status: TaskStatus | None = None
    active_form: str | None = None
    comment: NonBlank | None = None
    subject: NonBlank | None = None
    detail: str | None = None
    state: Literal["cancelled", "archived", "active"] | None = None
    linked_native_id: str | None = None

    @model_validator(mode="after")
    def _some_field(self) -> TaskUpdateBody:
        if not self.model_dump(exclude_none=True):
            raise rule("body", TASK_UPDATE_MESSAGE)
        return self


class BoardBody(BodyModel):
    """PUT /agent/chats/{id}/board: ``{"goal_title"?, "goal_summary"?}`` (at least one)."""

    goal_title: str | None = None
    goal_summary: str | None = None

    @model_validator(mode="after")
    def _some_field(self) -> BoardBody:
        if self.goal_title is None and self.goal_summary is None:
            raise rule("body", "At least one of goal_title or goal_summary must be set")
        return self


# -- delegation ------------------------------------------------------------------------------


def _uuid(value: str) -> str:
    try:
        uuid.UUID(value)
    except ValueError:
        raise PydanticCustomError(PREDICATE, "must be a connector id (a UUID)") from None
    return value


#: an audience: the MCP connector id (a UUID) of the system a delegated token is for
Audience = Annotated[str, AfterValidator(_uuid), Field(json_schema_extra={"format": "uuid"})]


class DelegationTokenBody(BodyModel):
    """POST /agent/delegation/token: ``{"audience", "message_id"}`` (flat)."""

    audience: Audience
    message_id: NonBlank


class ConsentIn(Obj):
    """A consent: the agent, and the systems (audiences) it may act on for the person."""

    agent_id: NonBlank
    audiences: Annotated[list[Audience], Field(max_length=100)]


class ConsentBody(WrappedBody):
    """POST /me/delegation/consents: ``{"consent": {agent_id, audiences}}``."""

    consent: ConsentIn
