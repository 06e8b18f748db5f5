"""Pydantic input models of the platform tools: arguments, defaults, limits and their checks.

Each model's docstring is the tool's description and each field's ``description`` is what the
model reads about the argument. Validation errors carry the seed's exact messages.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    Field,
    field_validator,
    model_validator,
)
from pydantic.json_schema import SkipJsonSchema, WithJsonSchema

import band_sdk_core
from band.core.wire import JsonObject

from .files import ListRoomFilesInput, ReadRoomFileInput, SendRoomFileInput
from .human import *  # noqa: F403 -- the human-scope tools' models, under both names
from .human import __all__ as _human_all
from .identifiers import ID_ERROR, ResourceId, check_id

__all__ = [
    "ID_ERROR",
    "AddContactInput",
    "AddParticipantInput",
    "ArchiveMemoryInput",
    "CreateChatroomInput",
    "CreateTaskInput",
    "GetBoardInput",
    "GetMemoryInput",
    "GetParticipantsInput",
    "GetTaskHistoryInput",
    "GetTaskInput",
    "ListContactRequestsInput",
    "ListContactsInput",
    "ListMemoriesInput",
    "ListTasksInput",
    "LookupPeersInput",
    "NoReplyInput",
    "RemoveContactInput",
    "RemoveParticipantInput",
    "RespondContactRequestInput",
    "SendEventInput",
    "SendMessageInput",
    "SetBoardInput",
    "StoreMemoryInput",
    "SupersedeMemoryInput",
    "UpdateTaskInput",
    "check_id",
    # the room-file models live in .files (the official module path) and are re-exported here
    "ListRoomFilesInput",
    "ReadRoomFileInput",
    "SendRoomFileInput",
    # the human-scope tools' models (.human): ours and band-sdk's <Tool>Input names
    *_human_all,
]

INCLUDE_ERROR = "include must be 'history' or omitted"
SUBJECT_SCOPE_ERROR = (
    'scope="subject" requires a subject_id (the UUID of the person or agent the memory is '
    "about). You did not provide one. If you do not have a concrete subject UUID, retry with "
    'scope="agent" and omit subject_id. Do not invent a UUID.'
)
UPDATE_TASK_EMPTY = (
    "At least one of status, active_form, comment, subject, detail, or state must be set"
)
SET_BOARD_EMPTY = "At least one of goal_title or goal_summary must be set"


def _strip_board_hash(value: object) -> object:
    """``#12`` names board task 12: the platform takes the bare number."""
    return value[1:] if isinstance(value, str) and value.startswith("#") else value


def _check_include(value: object) -> object:
    if value is not None and value != "history":
        raise ValueError(INCLUDE_ERROR)
    return value


TaskId = Annotated[str, BeforeValidator(_strip_board_hash), AfterValidator(check_id)]
Include = Annotated[Literal["history"] | None, BeforeValidator(_check_include)]
Page = Annotated[int, Field(ge=1, description="Page number, starting at 1")]

MemorySystem = Literal["sensory", "working", "long_term"]
MemoryType = Literal["iconic", "echoic", "haptic", "episodic", "semantic", "procedural"]
MemorySegment = Literal["user", "agent", "tool", "guideline"]
MemoryStoreScope = Literal["agent", "subject", "organization"]
MemoryListScope = Literal["agent", "subject", "organization", "all"]
MemoryStatus = Literal["active", "superseded", "archived", "all"]
TaskListState = Literal["active", "cancelled", "superseded", "archived", "all"]
TaskStatus = Literal["pending", "in_progress", "blocked", "in_review", "failed", "completed"]
TaskState = Literal["cancelled", "archived", "active"]

_NO_REPLY = band_sdk_core.no_reply_tool()


# --- chat -------------------------------------------------------------------------------------


class SendMessageInput(BaseModel):
    """Post a message to this room; it is your reply for the turn.

    Every message must mention at least one participant. If nothing you could say is needed,
    call band_no_reply instead of posting.
    """

    content: str = Field(description="Text of the message")
    # legacy callers pass {"id": ..., "handle": ...} dicts; models are only offered strings
    mentions: Annotated[
        list[str | dict[str, str]],
        WithJsonSchema({"type": "array", "items": {"type": "string"}}),
    ] = Field(
        description=(
            "Who the message is for; at least one. Give a participant's ID when you know it, "
            "or a handle: @<username> for a person, @<username>/<agent-name> for an agent."
        )
    )
    attachment_ids: SkipJsonSchema[list[str] | None] = Field(default=None, exclude=True)

    @field_validator("content")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("can't be blank")
        return value


class SendEventInput(BaseModel):
    """Post an event to this room without mentioning anyone; it does not answer the turn.

    Types: 'thought' shares your plan or reasoning before you act, 'error' reports a problem,
    'task' reports progress on work.
    """

    content: str = Field(description="Text of the event")
    message_type: Literal["thought", "error", "task"] = Field(description="Kind of event")
    metadata: JsonObject | None = Field(
        default=None, description="Structured data to attach to the event"
    )


class NoReplyInput(BaseModel):
    __doc__ = _NO_REPLY["description"]

    reason: str | None = Field(default=None, description=_NO_REPLY["parameters"][0]["description"])


class AddParticipantInput(BaseModel):
    """Bring a person or an agent into this room.

    Find candidates with band_lookup_peers first and pass the ID it returns.
    """

    identifier: str = Field(
        description=(
            "ID (preferred, from band_lookup_peers), handle or name of the person or agent to add"
        )
    )
    role: Literal["owner", "admin", "member"] = Field(
        default="member", description="Role the participant gets in this room"
    )


class RemoveParticipantInput(BaseModel):
    """Take a participant out of this room."""

    identifier: str = Field(description="ID, handle or name of the participant to remove")


class GetParticipantsInput(BaseModel):
    """List who is in this room: people and agents, with their IDs, handles and roles."""


class LookupPeersInput(BaseModel):
    """List the people and agents you could add to this room (current participants excluded).

    Use it to find an agent that can help with a request, or to answer who else is available.
    The result has a 'data' list of peers and 'metadata' with the page counts.
    """

    page: Page = 1
    page_size: int = Field(default=50, ge=1, le=100, description="Peers per page, at most 100")


class CreateChatroomInput(BaseModel):
    """Open a new room, optionally tied to a task; returns the new room's ID."""

    task_id: str | None = Field(default=None, description="Task the room is about, if any")


# --- contacts ---------------------------------------------------------------------------------


class ListContactsInput(BaseModel):
    """List your contacts, a page at a time."""

    page: Page = 1
    page_size: int = Field(default=50, ge=1, le=100, description="Contacts per page, at most 100")


class AddContactInput(BaseModel):
    """Ask someone to become your contact.

    The result's status is 'pending' for a new request, or 'approved' when they had already
    asked you and the request was accepted at once.
    """

    handle: str = Field(
        description="Handle to ask: '@john' for a person, '@john/agent' for an agent"
    )
    message: str | None = Field(default=None, description="Note to send with the request")


class RemoveContactInput(BaseModel):
    """Drop a contact, by handle or by contact ID (one of the two is required)."""

    handle: str | None = Field(default=None, description="Handle of the contact")
    contact_id: str | None = Field(default=None, description="ID of the contact record")


class ListContactRequestsInput(BaseModel):
    """List contact requests: those you received (always pending) and those you sent."""

    page: Page = 1
    page_size: int = Field(
        default=50, ge=1, le=100, description="Requests per page in each direction, at most 100"
    )
    sent_status: Literal["pending", "approved", "rejected", "cancelled", "all"] = Field(
        default="pending", description="Which of your sent requests to list"
    )


class RespondContactRequestInput(BaseModel):
    """Answer a contact request: approve or reject one you received, or cancel one you sent."""

    action: Literal["approve", "reject", "cancel"] = Field(
        description="'approve' or 'reject' a received request; 'cancel' a sent one"
    )
    handle: str | None = Field(
        default=None, description="The other side's handle (requester, or recipient for cancel)"
    )
    request_id: str | None = Field(default=None, description="ID of the request, instead of handle")


# --- memory -----------------------------------------------------------------------------------

_SCOPE_NOTE = (
    "'agent' is private to you and always works; 'organization' needs your owner to be in an "
    "organization."
)


class ListMemoriesInput(BaseModel):
    """Search the memories you can read: your own, those about a subject, and shared ones."""

    subject_id: str | None = Field(
        default=None, description="Only memories about this subject (ID of a person or agent)"
    )
    scope: MemoryListScope | None = Field(default=None, description=f"Scope filter. {_SCOPE_NOTE}")
    system: MemorySystem | None = Field(default=None, description="Memory system filter")
    type: MemoryType | None = Field(default=None, description="Memory type filter")
    segment: MemorySegment | None = Field(default=None, description="Segment filter")
    content_query: str | None = Field(default=None, description="Full-text search in the content")
    page_size: int = Field(default=50, ge=1, le=50, description="Memories per page, at most 50")
    status: MemoryStatus | None = Field(default=None, description="Status filter")


class StoreMemoryInput(BaseModel):
    """Save a memory, with you as its source.

    Leave subject_id out for scope 'agent' (private to you) and 'organization' (shared with
    your owner's organization); scope 'subject' needs the subject's ID.
    """

    content: str = Field(description="What to remember")
    system: MemorySystem = Field(description="Memory system")
    type: MemoryType = Field(
        description=(
            "Memory type; it must fit the system: sensory takes iconic, echoic or haptic; "
            "working and long_term take episodic, semantic or procedural"
        )
    )
    segment: MemorySegment = Field(description="Segment the memory belongs to")
    thought: str = Field(description="Why this is worth remembering")
    scope: MemoryStoreScope = Field(description=f"Who may read it. {_SCOPE_NOTE}")
    subject_id: str | None = Field(
        default=None, description="ID of the person or agent it is about (scope 'subject' only)"
    )
    metadata: JsonObject | None = Field(
        default=None, description="Extra data, such as 'tags' and 'references' lists"
    )

    @model_validator(mode="after")
    def _consistent(self) -> StoreMemoryInput:
        band_sdk_core.validate_memory_type_for_system(self.system, self.type)
        if self.scope == "subject" and not self.subject_id:
            raise ValueError(SUBJECT_SCOPE_ERROR)
        return self


class GetMemoryInput(BaseModel):
    """Read one memory."""

    memory_id: ResourceId = Field(description="ID of the memory")


class SupersedeMemoryInput(BaseModel):
    """Mark a memory superseded because it is outdated or wrong.

    It stays on record but drops out of normal listings; only its source agent may do this.
    """

    memory_id: ResourceId = Field(description="ID of the memory")


class ArchiveMemoryInput(BaseModel):
    """Archive a memory that is still true but not needed now: hidden, kept, restorable.

    Only its source agent may do this.
    """

    memory_id: ResourceId = Field(description="ID of the memory")


# --- tasks ------------------------------------------------------------------------------------

_TASK_ID = "Task ID or board number (e.g. '12' or '#12')"


class ListTasksInput(BaseModel):
    """List the tasks on this room's board in board-number order.

    Active tasks by default; check here before creating a task or picking one up.
    """

    state: TaskListState | None = Field(
        default=None, description="Which tasks to list; 'active' when omitted"
    )
    cursor: str | None = Field(default=None, description="Cursor from the previous page")
    limit: int | None = Field(
        default=None, ge=1, le=100, description="Tasks per page, 1 to 100 (50 when omitted)"
    )


class CreateTaskInput(BaseModel):
    """Add a task to this room's board; the platform gives it an ID and a board number.

    Creating a task does not assign you: set your status with band_update_task to join it.
    With supersedes_id the old task is kept as a record pointing at the new one.
    """

    subject: str = Field(description="What has to be done")
    detail: str | None = Field(default=None, description="Longer description")
    supersedes_id: TaskId | None = Field(
        default=None, description="ID or board number of the active task this one replaces"
    )


class GetTaskInput(BaseModel):
    """Read one task, whatever its state."""

    id: TaskId = Field(description=_TASK_ID)
    include: Include = Field(default=None, description="'history' to add its recent events")


class UpdateTaskInput(BaseModel):
    """Change a task; send at least one field.

    status is your own progress on it (your first status joins you to the task), active_form
    is your current 'doing X' line, comment leaves a note, subject and detail edit the task,
    and state cancels it, archives it, or restores it with 'active'.
    """

    id: TaskId = Field(description=_TASK_ID)
    status: TaskStatus | None = Field(default=None, description="Your own status on this task")
    active_form: str | None = Field(default=None, description="What you are doing right now")
    comment: str | None = Field(default=None, description="A note for the other participants")
    subject: str | None = Field(default=None, description="New subject")
    detail: str | None = Field(default=None, description="New detail")
    state: TaskState | None = Field(default=None, description="New lifecycle state")

    @model_validator(mode="after")
    def _something(self) -> UpdateTaskInput:
        fields = (self.status, self.active_form, self.comment, self.subject, self.detail)
        if all(v is None for v in fields) and self.state is None:
            raise ValueError(UPDATE_TASK_EMPTY)
        return self


class GetTaskHistoryInput(BaseModel):
    """Read a task's full history (status changes, edits, comments), oldest first."""

    id: TaskId = Field(description=_TASK_ID)
    cursor: str | None = Field(default=None, description="Cursor from the previous page")
    limit: int | None = Field(
        default=None, ge=1, le=100, description="Events per page, 1 to 100 (50 when omitted)"
    )


class GetBoardInput(BaseModel):
    """Read this room's goal; goal_title is null while no goal is set."""

    include: Include = Field(default=None, description="'history' to add the goal's changes")


class SetBoardInput(BaseModel):
    """Set this room's goal; send at least one field, and only the fields sent change."""

    goal_title: str | None = Field(default=None, description="Short title of the goal")
    goal_summary: str | None = Field(default=None, description="A paragraph describing the goal")

    @model_validator(mode="after")
    def _something(self) -> SetBoardInput:
        if self.goal_title is None and self.goal_summary is None:
            raise ValueError(SET_BOARD_EMPTY)
        return self
