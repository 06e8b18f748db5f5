"""Typed records of the store's rows: what ``Store`` returns, ``shapes`` makes wire models of."""

from __future__ import annotations

import builtins
import sqlite3
from collections.abc import Callable
from datetime import datetime
from functools import cache
from operator import attrgetter
from typing import Any, TypeVar

import msgspec

from band.core.wire import Attachment, JsonObject

R = TypeVar("R", bound=msgspec.Struct)
W = TypeVar("W", bound=msgspec.Struct)


class Record(msgspec.Struct, frozen=True, kw_only=True):
    """Base of the records: immutable (each subclass repeats the options for mypy).

    A timestamp is a ``datetime`` (parsed by ``record``) where the wire model answering with it
    carries one (tasks, boards, memories, contacts: band-sdk 6.0.1's types), and the stored ISO
    text where the wire model carries text (rooms, messages, agents, people, files).
    """

    def as_wire(self, kind: type[W], /, **fields: Any) -> W:
        """This record as the wire model ``kind``: each field of ``kind`` the record also has,
        as it is, and ``fields`` (set or replaced: renamed, derived or wire-only fields)."""
        names, values = _shared(type(self), kind)
        carried = dict(zip(names, values(self), strict=True))
        carried.update(fields)
        return kind(**carried)


@cache
def _shared(
    record_kind: type[msgspec.Struct], kind: type[msgspec.Struct]
) -> tuple[tuple[str, ...], Callable[[Any], tuple[Any, ...]]]:
    """The field names ``kind`` shares with ``record_kind`` and what reads their values from a
    record, as a tuple (a pair's are fixed: computed once)."""
    names = tuple(n for n in kind.__struct_fields__ if n in record_kind.__struct_fields__)
    if len(names) > 1:  # one C call reads them all
        return names, attrgetter(*names)
    return names, lambda row: tuple(getattr(row, n) for n in names)


def record(kind: type[R], row: sqlite3.Row, **more: object) -> R:
    """``row`` as a ``kind``, with ``more`` fields set or replaced (a column the record does not
    declare is dropped; a value of the wrong type is a ``msgspec.ValidationError``)."""
    return msgspec.convert({**dict(row), **more}, kind)


class UserRow(Record, frozen=True, kw_only=True):
    """A person (``users``)."""

    id: str
    handle: str
    name: str
    email: str
    key_hash: str
    inserted_at: str
    updated_at: str


class AgentRow(Record, frozen=True, kw_only=True):
    """An agent (``agents``)."""

    id: str
    name: str
    handle: str
    description: str
    owner_id: str
    key_hash: str
    inserted_at: str
    updated_at: str


class Entity(Record, frozen=True, kw_only=True):
    """A person or an agent by id, as rooms, contacts and tasks name them (no key hash)."""

    id: str
    type: str  # "User" | "Agent"
    name: str
    handle: str
    description: str | None
    email: str | None = None  # people only
    owner_id: str | None = None  # agents only


class Member(Entity, frozen=True, kw_only=True):
    """A room participant: the entity and its role in the room."""

    role: str


class PeerRow(Entity, frozen=True, kw_only=True):
    """A peer: the entity and whether it is one of the caller's contacts."""

    is_contact: bool


class RoomRow(Record, frozen=True, kw_only=True):
    """A room (``rooms``)."""

    id: str
    title: str | None
    task_id: str | None
    type: str
    status: str
    inserted_at: str
    updated_at: str


class MessageRecord(Record, frozen=True, kw_only=True):
    """A message with its metadata (delivery status included) and attachments, in log order."""

    seq: int
    id: str
    room_id: str
    content: str
    message_type: str
    sender_id: str
    sender_type: str
    sender_name: str | None
    metadata: JsonObject
    inserted_at: str
    updated_at: str
    attachments: list[Attachment]


class MemoryRecord(Record, frozen=True, kw_only=True):
    """A memory (``memories``), its metadata decoded, in write order (``seq``)."""

    seq: int
    id: str
    content: str
    system: str
    type: str
    segment: str
    scope: str
    status: str
    thought: str | None
    subject_id: str | None
    source_agent_id: str | None
    owner_id: str
    organization_id: str | None
    chat_room_id: str | None
    metadata: JsonObject
    inserted_at: datetime
    updated_at: datetime


class TaskRow(Record, frozen=True, kw_only=True):
    """A task on a room's board (``tasks``)."""

    id: str
    room_id: str
    number: int
    subject: str
    detail: str
    state: str
    created_by: str
    superseded_by_id: str | None
    inserted_at: datetime
    updated_at: datetime


class AssignmentRow(Record, frozen=True, kw_only=True):
    """One assignee's work on a task (``task_assignments``)."""

    assignee_id: str
    status: str
    active_form: str
    linked_native_id: str
    updated_at: datetime


class BoardRow(Record, frozen=True, kw_only=True):
    """A room's goal (``boards``)."""

    goal_title: str | None
    goal_summary: str | None
    created_by: str
    updated_by: str
    inserted_at: datetime
    updated_at: datetime


class EventRow(Record, frozen=True, kw_only=True):
    """One entry of a task's or a board's history (``task_events`` / ``board_events``)."""

    seq: int
    actor_id: str
    event: str
    payload: str  # JSON text
    at: datetime


class ContactRequestRecord(Record, frozen=True, kw_only=True):
    """A contact request (``contact_requests``) with both parties (None: an identity gone)."""

    id: str
    requester_id: str
    requester_type: str
    recipient_id: str
    recipient_type: str
    status: str
    message: str | None
    inserted_at: datetime
    responded_at: datetime | None
    requester: Entity | None
    recipient: Entity | None


class ContactRecord(Record, frozen=True, kw_only=True):
    """One direction of a contact (``contacts``) with the contact (None: an identity gone)."""

    id: str
    owner_id: str
    contact_id: str
    contact_type: str
    inserted_at: datetime
    entity: Entity | None


class FileRow(Record, frozen=True, kw_only=True):
    """A room file with its bytes (``files``)."""

    id: str
    room_id: str
    name: str
    content_type: str
    bytes: int
    sha256: str
    data: builtins.bytes  # the field ``bytes`` (the size) shadows the type here
    uploader_id: str
    inserted_at: str


class BulkFailure(Record, frozen=True, kw_only=True):
    """One id a bulk deletion could not delete: its error code and message."""

    id: str
    code: str
    message: str
