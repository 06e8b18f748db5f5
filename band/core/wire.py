"""The typed wire model: frames, envelopes, messages, participants, rooms, pushes, tool results.

Everything Band sends is decoded here, with msgspec, by the client, the runtime, the tools,
band-mcp and band dev alike (shapes: ``shared/spec/platform.md`` sections 2 and 3):

- ``PhoenixFrame``: one Phoenix Channels V2 frame ``[join_ref, ref, topic, event, payload]``
  (``FRAME_DECODER`` reads it from text, ``encode_frame`` writes it);
- ``Envelope`` / ``ErrorEnvelope``: the REST success body ``{"data", "metadata"|"meta"}`` and
  error body ``{"error": {code, message, ...}}`` (``JSON_DECODER``, ``ERROR_DECODER``);
- ``MessageRow``, ``Participant``, ``Room`` and the push payloads (``MessageCreated``,
  ``ParticipantAdded``, ``RoomAdded``, ...);
- the REST results the direct ``AgentTools`` methods return, with band-sdk 6.0.1's class and
  field names (``send_message(...).id``, ``lookup_peers().metadata.total_count``).

Every field the platform may omit is optional and unknown keys are ignored, so a body with
fewer or more keys still decodes; a value of the wrong type is a ``msgspec.ValidationError``
naming the field (``Expected `str`, got `int` - at `$.id```). Adapters and preprocessors get
messages, participants and rooms as the plain dicts band-sdk 6.0.1 gives them (the validated
push itself, or ``to_dict`` of a row the runtime built); the direct tool methods return the
result Structs.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Generic, TypeVar

import msgspec

__all__ = [
    "ERROR_DECODER",
    "FRAME_DECODER",
    "JSON_DECODER",
    "LAZY_FRAME_DECODER",
    "TOO_DEEP",
    "ActivityResponse",
    "AddAgentContactResponseData",
    "AgentContact",
    "AgentControl",
    "AgentMe",
    "AgentMemory",
    "Attachment",
    "Board",
    "ChatParticipant",
    "ChatParticipantDetails",
    "Envelope",
    "ErrorBody",
    "ErrorEnvelope",
    "EventCreatedResponse",
    "GetChatTaskHistoryResponse",
    "GetChatTaskHistoryResponseMetadata",
    "JsonObject",
    "JsonValue",
    "LazyFrame",
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
    "MeChatRoom",
    "MeChatRoomAgentsItem",
    "MessageCreated",
    "MessageRow",
    "MessageSentResponse",
    "MessageStatusResponse",
    "MessageSentResponseRecipientsItem",
    "Page",
    "Paging",
    "Participant",
    "ParticipantAdded",
    "ParticipantRemoved",
    "Peer",
    "PhoenixFrame",
    "ReplyPayload",
    "ReceivedContactRequest",
    "RemoveAgentContactResponseData",
    "RespondToAgentContactRequestResponseData",
    "Room",
    "RoomAdded",
    "RoomDetails",
    "RoomDeleted",
    "RoomRemoved",
    "SentContactRequest",
    "Task",
    "Supersede",
    "TaskActor",
    "TaskAssignment",
    "TaskEvent",
    "WireModel",
    "decode_as",
    "decode_error",
    "decode_json",
    "decode_frame",
    "decode_rows",
    "parse_instant",
    "encode_frame",
    "to_dict",
]

#: Arbitrary JSON as decoded (``msgspec``/``json``): what a model's tool arguments, message
#: metadata, an event's payload or a tool result returned to the model may hold. Kept as
#: ``Any``: the platform and the models define these shapes, not this SDK.
JsonValue = Any
#: A JSON object as decoded: keys are strings, values arbitrary (``JsonValue``).
JsonObject = dict[str, JsonValue]

M = TypeVar("M", bound="WireModel")
D = TypeVar("D")
#: a page's row type and its metadata type
RowT = TypeVar("RowT")
MetaT = TypeVar("MetaT")


class WireModel(msgspec.Struct, kw_only=True):
    """Base of the wire models: attribute access, plus ``model_dump`` and read-only ``[key]``.

    ``model_dump`` matches what pydantic callers of the official SDK use; ``[key]``/``get``
    keep code written against our earlier dict results working.
    """

    def model_dump(self, *, mode: str = "python", exclude_none: bool = False) -> JsonObject:
        """The model as a dict (``mode="json"``: datetimes as ISO strings)."""
        keep = () if mode == "json" else (datetime,)
        out = msgspec.to_builtins(self, builtin_types=keep)
        if exclude_none:
            return _drop_none(out)
        return dict(out)

    def __getitem__(self, key: str) -> JsonValue:
        if key not in self.__struct_fields__:
            raise KeyError(key)
        return getattr(self, key)

    def __contains__(self, key: object) -> bool:
        return key in self.__struct_fields__

    def get(self, key: str, default: JsonValue = None) -> JsonValue:
        """The field ``key``, or ``default`` when the model has no such field."""
        return getattr(self, key, default) if key in self.__struct_fields__ else default


def _drop_none(obj: JsonObject) -> JsonObject:
    """``obj`` without its None values, at any depth."""
    return {k: _drop_none_in(v) for k, v in obj.items() if v is not None}


def _drop_none_in(value: JsonValue) -> JsonValue:
    if isinstance(value, dict):
        return _drop_none(value)
    if isinstance(value, list):
        return [_drop_none_in(v) for v in value]
    return value


def decode_as(model: type[M], body: JsonValue) -> M:
    """``body`` (a decoded JSON object) as ``model``; unknown keys are ignored."""
    return msgspec.convert(body, type=model, strict=False)


def decode_rows(model: type[M], rows: JsonValue) -> list[M]:
    """``rows`` (a decoded JSON list of objects) as a list of ``model``."""
    return msgspec.convert(rows, type=list[model], strict=False)  # type: ignore[valid-type]


def parse_instant(value: object) -> datetime | None:
    """A wire timestamp (ISO 8601, ``Z`` accepted); None when missing or unreadable."""
    if not isinstance(value, str):
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None


def to_dict(model: msgspec.Struct) -> JsonObject:
    """A Struct as the plain dict band-sdk 6.0.1 hands adapters (fields left None omitted)."""
    out = msgspec.to_builtins(model)
    return {k: v for k, v in out.items() if v is not None} if isinstance(out, dict) else {}


# --- frames and envelopes --------------------------------------------------------------------


class PhoenixFrame(msgspec.Struct, array_like=True, forbid_unknown_fields=True, frozen=True):
    """One Phoenix Channels V2 frame, ``[join_ref, ref, topic, event, payload]`` on the wire.

    Refs are strings (numbers are tolerated: ``join_ref_str``/``ref_str`` give them as text);
    ``payload`` is kept as decoded, since a non-object payload counts as ``{}`` (``body``).
    """

    join_ref: str | int | None
    ref: str | int | None
    topic: str
    event: str
    payload: JsonValue

    @property
    def join_ref_str(self) -> str | None:
        """``join_ref`` as text (None stays None)."""
        return None if self.join_ref is None else str(self.join_ref)

    @property
    def ref_str(self) -> str | None:
        """``ref`` as text (None stays None)."""
        return None if self.ref is None else str(self.ref)

    @property
    def body(self) -> JsonObject:
        """The payload when it is a JSON object, else ``{}`` (what the V2 client does)."""
        return self.payload if isinstance(self.payload, dict) else {}


class LazyFrame(msgspec.Struct, array_like=True, forbid_unknown_fields=True, frozen=True):
    """A :class:`PhoenixFrame` whose ``payload`` is left as its JSON text (``msgspec.Raw``).

    The socket reader decodes a payload only for a push some handler takes; a push nobody
    takes (a ``message_updated`` on a room topic) costs a scan, not a parse.
    """

    join_ref: str | int | None
    ref: str | int | None
    topic: str
    event: str
    payload: msgspec.Raw


class ReplyPayload(msgspec.Struct, kw_only=True):
    """The payload of a ``phx_reply``: ``{"status": "ok"|"error", "response": {...}}``."""

    status: str
    response: JsonObject = msgspec.field(default_factory=dict)


class ErrorBody(msgspec.Struct, kw_only=True, omit_defaults=True):
    """The ``error`` object of a REST error body (and of a refused WebSocket upgrade)."""

    code: str | None = None
    message: str | None = None
    request_id: str | None = None
    details: JsonValue = None
    retry_after: float | None = None


class ErrorEnvelope(msgspec.Struct, kw_only=True):
    """A REST error body: ``{"error": {code, message, request_id, details?, retry_after?}}``."""

    error: ErrorBody


class Paging(WireModel):
    """The pagination object of a list (offset and cursor fields; any may be absent)."""

    page: int | None = None
    page_size: int | None = None
    total_count: int | None = None
    total_pages: int | None = None
    has_more: bool | None = None
    limit: int | None = None
    next_cursor: str | None = None


class Envelope(msgspec.Struct, Generic[D], kw_only=True):
    """A REST success body: ``{"data": D, "metadata"?: Paging, "meta"?: Paging}``."""

    data: D
    metadata: Paging | None = None
    meta: Paging | None = None

    @property
    def paging(self) -> Paging | None:
        """``metadata``, else the deprecated ``meta``."""
        return self.metadata if self.metadata is not None else self.meta


#: Any JSON document (the REST client's bodies).
JSON_DECODER: msgspec.json.Decoder[JsonValue] = msgspec.json.Decoder()
#: One Phoenix V2 frame.
FRAME_DECODER = msgspec.json.Decoder(PhoenixFrame)
#: One Phoenix V2 frame, its payload left undecoded.
LAZY_FRAME_DECODER = msgspec.json.Decoder(LazyFrame)
#: A REST error body.
ERROR_DECODER = msgspec.json.Decoder(ErrorEnvelope)
_ENCODER = msgspec.json.Encoder()
#: The decode error of JSON nested deeper than msgspec's recursion allows.
TOO_DEEP = "JSON is nested too deeply"


def decode_frame(raw: str | bytes) -> PhoenixFrame:
    """One text frame; ``msgspec.DecodeError`` (a ``ValidationError`` naming the bad slot, e.g.
    ``Expected `str`, got `int` - at `$[2]```) when it is not a V2 frame."""
    try:
        return FRAME_DECODER.decode(raw)
    except RecursionError:  # msgspec recurses once per level: a hostile frame is just a bad one
        raise msgspec.DecodeError(TOO_DEEP) from None


def decode_json(raw: str | bytes | msgspec.Raw) -> Any:
    """Any JSON document; ``msgspec.DecodeError`` when it is not JSON or nested too deeply."""
    try:
        return JSON_DECODER.decode(raw)
    except RecursionError:
        raise msgspec.DecodeError(TOO_DEEP) from None


def encode_frame(
    join_ref: str | None,
    ref: str | None,
    topic: str,
    event: str,
    payload: JsonObject | msgspec.Struct | msgspec.Raw,
) -> bytes:
    """One V2 frame as JSON bytes (``payload``: a dict, a Struct or its JSON as ``Raw``)."""
    return _ENCODER.encode((join_ref, ref, topic, event, payload))


def decode_error(raw: bytes | bytearray | str | None) -> ErrorBody | None:
    """The ``error`` object of an error body; None when the body is not one."""
    if not raw:
        return None
    try:
        return ERROR_DECODER.decode(raw).error
    except (msgspec.DecodeError, RecursionError):
        return None


# --- people, peers, participants -------------------------------------------------------------


class TaskActor(WireModel):
    """Who did something to a task or board."""

    id: str | None = None
    name: str | None = None
    handle: str | None = None
    type: str | None = None


class ChatParticipant(WireModel):
    """A member of a room (``avatar_url`` UNSET: left out of the JSON, as band dev does)."""

    id: str | None = None
    name: str | None = None
    handle: str | None = None
    type: str | None = None
    role: str | None = None
    status: str | None = None
    online: bool | None = None
    avatar_url: str | msgspec.UnsetType | None = None


class _DirectoryEntry(WireModel):
    """The fields a peer and a contact share: who they are and how they are listed."""

    id: str | None = None
    name: str | None = None
    handle: str | None = None
    type: str | None = None
    description: str | None = None
    # UNSET: fields some answers leave out (band dev's peers list none of the four)
    avatar_url: str | msgspec.UnsetType | None = None
    is_external: bool | msgspec.UnsetType | None = None
    listed_in_directory: bool | msgspec.UnsetType | None = None
    online: bool | None = None
    tags: list[str] | msgspec.UnsetType | None = None


class Peer(_DirectoryEntry):
    """An agent or person this agent may add to a room."""

    is_contact: bool | None = None
    source: str | None = None


class ListAgentPeersResponseMetadata(WireModel):
    """Offset paging of a peers page."""

    page: int | None = None
    page_size: int | None = None
    total_count: int | None = None
    total_pages: int | None = None


class Page(WireModel, Generic[RowT, MetaT]):
    """A page of ``RowT`` rows with its paging metadata ``MetaT`` (the list results below)."""

    data: list[RowT] = msgspec.field(default_factory=list)
    metadata: MetaT | None = None


class ListAgentPeersResponse(Page[Peer, ListAgentPeersResponseMetadata]):
    """A page of peers."""


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


class AgentContact(_DirectoryEntry):
    """One of the agent's contacts."""

    inserted_at: datetime | None = None


class ListAgentContactsResponseMetadata(ListAgentPeersResponseMetadata):
    """Offset paging of a contacts page."""


class ListAgentContactsResponse(Page[AgentContact, ListAgentContactsResponseMetadata]):
    """A page of contacts."""


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
    metadata: JsonObject | None = None
    inserted_at: datetime | None = None


class ListAgentMemoriesResponseMetadata(Paging):
    """Paging of a memories page (offset and cursor fields)."""


class ListAgentMemoriesResponseMeta(ListAgentMemoriesResponseMetadata):
    """The same paging under the optional ``meta`` key."""


class ListAgentMemoriesResponse(Page[AgentMemory, ListAgentMemoriesResponseMetadata]):
    """A page of memories."""

    meta: ListAgentMemoriesResponseMeta | None = None


# --- tasks and the board ---------------------------------------------------------------------


class TaskEvent(WireModel):
    """One entry of a task's or the board's history."""

    event: str | None = None
    actor: TaskActor | None = None
    at: datetime | None = None
    payload: JsonObject | None = None


class TaskAssignment(WireModel):
    """One assignee's status on a task."""

    assignee: TaskActor | None = None
    status: str | None = None
    active_form: str | None = None
    linked_native_id: str | None = None
    updated_at: datetime | None = None


class _BoardRecord(WireModel):
    """The fields a task and the board share: room, author, history and timestamps."""

    chat_room_id: str | None = None
    created_by: TaskActor | None = None
    # UNSET: absent from the JSON unless the history was asked for (``include=history``)
    history: list[TaskEvent] | msgspec.UnsetType | None = None
    history_truncated: bool | msgspec.UnsetType | None = None
    inserted_at: datetime | None = None
    updated_at: datetime | None = None


class Task(_BoardRecord):
    """A task on a room's board."""

    id: str | None = None
    number: int | None = None
    subject: str | None = None
    detail: str | None = None
    state: str | None = None
    overall_status: str | None = None
    assignments: list[TaskAssignment] | None = None
    superseded_by_id: str | None = None


class ListChatTasksResponseMetadata(WireModel):
    """Cursor paging of a task list."""

    has_more: bool | None = None
    limit: int | None = None
    next_cursor: str | None = None


class ListChatTasksResponse(Page[Task, ListChatTasksResponseMetadata]):
    """A page of tasks."""


class GetChatTaskHistoryResponseMetadata(ListChatTasksResponseMetadata):
    """Cursor paging of a task's history."""


class GetChatTaskHistoryResponse(Page[TaskEvent, GetChatTaskHistoryResponseMetadata]):
    """A page of a task's history."""


class Board(_BoardRecord):
    """A room's goal."""

    goal_title: str | None = None
    goal_summary: str | None = None
    updated_by: TaskActor | None = None


# --- messages, participants, rooms: REST rows and push payloads ------------------------------


class Attachment(WireModel):
    """A room file listed on a message (``sha_256``: the spelling some deployments use; UNSET
    leaves it out of the JSON)."""

    id: str | None = None
    name: str | None = None
    content_type: str | None = None
    bytes: int | None = None
    sha256: str | None = None
    sha_256: str | msgspec.UnsetType | None = None
    has_thumb: bool | None = None
    expires_at: str | None = None


class MessageRow(WireModel):
    """A ChatMessage: a REST row (``/next``, listings) or a ``message_created`` push.

    Timestamps stay ISO strings: adapters receive them as the platform sent them. Attachments
    stay objects (``Attachment`` reads one): band_sdk_core's validator requires only their
    ``id``, and a message is not dropped for an odd attachment field.
    """

    id: str | None = None
    content: str | None = None
    message_type: str | None = None
    sender_id: str | None = None
    sender_type: str | None = None
    sender_name: str | None = None
    chat_room_id: str | None = None
    # unchecked by the validator, unread by the runtime: kept as sent (UNSET: not in the JSON)
    thread_id: JsonValue = None
    inserted_at: str | None = None
    updated_at: str | None = None
    attachments: list[JsonObject] | None = None
    metadata: JsonObject | None = None


class MessageCreated(MessageRow):
    """The ``message_created`` (and ``message_updated``) push on ``chat_room:{id}``."""


class Participant(ChatParticipant):
    """A room member as rows and pushes carry it: ``ChatParticipant`` (the tools' result) plus
    the fields of the ``participant_added``/``_removed`` pushes."""

    description: str | None = None
    is_external: bool | None = None
    is_remote: bool | None = None


class ChatParticipantDetails(Participant):
    """A room member as the human API lists it (``GET /me/chats/{id}/participants``)."""

    username: str | None = None
    first_name: str | None = None
    connection_status: str | None = None


class ParticipantAdded(WireModel):
    """The ``participant_added`` push on ``room_participants:{id}``.

    Only the fields band_sdk_core's validator checks (it passes others through unchecked).
    """

    id: str | None = None
    name: str | None = None
    type: str | None = None
    handle: str | None = None
    description: str | None = None
    is_external: bool | None = None
    is_remote: bool | None = None


class ParticipantRemoved(ParticipantAdded):
    """The ``participant_removed`` push on ``room_participants:{id}``."""


class Room(WireModel):
    """A ChatRoom: a rooms row, ``POST /agent/chats`` answer or ``room_added`` push (the five
    fields band_sdk_core's validator checks; extras such as ``status`` are ignored)."""

    id: str | None = None
    title: str | None = None
    task_id: str | None = None
    inserted_at: str | None = None
    updated_at: str | None = None


class RoomDetails(Room):
    """A ChatRoom with its ``type`` and ``status``, as band dev sends every room (the agent
    API's ChatRoom carries them as extras, spec 3.5; decode with ``Room`` to ignore them)."""

    type: str | None = None
    status: str | None = None


class MeChatRoomAgentsItem(WireModel):
    """An agent in a room, as ``MeChatRoom.agents`` lists it."""

    id: str | None = None
    name: str | None = None
    handle: str | None = None
    type: str | None = None


class MeChatRoom(RoomDetails):
    """A room as the human API gives it (``/me/chats``): its agents and work status too."""

    agents: list[MeChatRoomAgentsItem] | None = None
    work_status: str | None = None


class RoomAdded(Room):
    """The ``room_added`` push on ``agent_rooms:{id}``."""


class RoomRemoved(Room):
    """The ``room_removed`` push on ``agent_rooms:{id}``."""


class RoomDeleted(WireModel):
    """The ``room_deleted`` push on ``room_participants:{id}``."""

    id: str | None = None


class Supersede(WireModel):
    """The ``supersede`` push on ``agent_control:{id}``: a newer connection took over."""

    reason: str | None = None
    message: str | None = None
    correlation_id: str | None = None
    retryable: bool = False
    retry_after: float | None = None


class AgentControl(WireModel):
    """The ``agent.control`` push on ``agent_control:{id}``: interrupt, stop or play."""

    mode: str
    correlation_id: str
    scope: str | None = None
    agent_id: str | None = None
    execution_id: str | None = None
    room_id: str | None = None
    type: str | None = None
    reason: str | None = None


# --- the agent itself, delivery and activity answers -----------------------------------------


class AgentMe(WireModel):
    """``GET /agent/me``: the agent's identity and the deployment's feature flags."""

    id: str | None = None
    name: str | None = None
    handle: str | None = None
    description: str | None = None
    owner_uuid: str | None = None
    inserted_at: str | None = None
    updated_at: str | None = None
    feature_flags: JsonObject | None = None
    listed_in_directory: bool | None = None
    tags: list[str] | None = None


class MessageStatusResponse(WireModel):
    """The answer to a processing / processed / failed mark."""

    id: str | None = None
    status: str | None = None
    attempt_number: int | None = None
    success: bool | None = None


class ActivityResponse(WireModel):
    """The answer to an activity report: ``working`` False means the execution is stopped."""

    working: bool | None = None
