"""Shapes of the human API (``/me/...``) that the official agent SDK has no model for.

Declared as wire models (``band.core.wire.WireModel``) so band dev encodes every answer the
same way; ``None`` fields are sent as null, as the pinned shapes in
``tests/devserver/test_response_shapes.py`` require.
"""

from __future__ import annotations

from datetime import datetime

import msgspec

from band.core.wire import (
    AgentMemory,
    ChatParticipantDetails,
    MeChatRoom,
    MessageRow,
    RoomDetails,
    WireModel,
)


class MyAgent(WireModel):
    """An agent as its owner sees it."""

    id: str
    name: str
    handle: str
    description: str | None = None
    owner_id: str | None = None
    inserted_at: str | None = None  # the stored ISO text, as AgentMe carries it
    updated_at: str | None = None
    avatar_url: str | None = None
    is_external: bool = False
    slug: str | None = None  # the URL-safe agent part of the handle (``owner/slug``)
    listed_in_directory: bool = False


class UserDetails(WireModel):
    """The signed-in person."""

    id: str
    handle: str
    email: str | None = None
    role: str = "user"
    first_name: str | None = None
    last_name: str | None = None
    listed_in_directory: bool = False


class ContactUser(WireModel):
    """The other side of a person's contact."""

    id: str
    name: str | None = None
    handle: str | None = None
    email: str | None = None
    avatar_url: str | None = None
    listed_in_directory: bool = False
    tags: list[str] = msgspec.field(default_factory=list)


class Contact(WireModel):
    """One of a person's contacts."""

    id: str
    contact_id: str
    contact_type: str
    online: bool
    user: ContactUser
    inserted_at: datetime | None = None
    status: str = "active"
    source: str = "request"


class ContactParty(WireModel):
    """One side of a contact request."""

    id: str
    name: str | None = None
    handle: str | None = None
    avatar_url: str | None = None


class ContactRequest(WireModel):
    """A contact request as a person sees it."""

    id: str
    requester_id: str
    recipient_id: str
    status: str
    requester: ContactParty
    recipient: ContactParty
    requester_type: str
    recipient_type: str
    inserted_at: datetime | None = None
    message: str | None = None
    responded_at: datetime | None = None


class ResolvedHandle(WireModel):
    """Who a handle names."""

    handle: str
    name: str
    type: str


#: how many participants a room row's ``participants`` include carries at most
ROSTER_ROWS = 100


class AgentChatRoom(RoomDetails):
    """A ``GET /agent/chats`` row: the room, plus (``include=participants``) its roster: the
    first ``ROSTER_ROWS`` participants by id, the whole count, and whether rows were left out
    (UNSET: not asked for, left out of the JSON)."""

    participants: list[ChatParticipantDetails] | msgspec.UnsetType = msgspec.UNSET
    participant_count: int | msgspec.UnsetType = msgspec.UNSET
    participants_truncated: bool | msgspec.UnsetType = msgspec.UNSET


class MyChatRoom(MeChatRoom):
    """A room as the human API gives it: ``MeChatRoom`` with its activity summary, plus the
    fields ``include`` adds (``GET /me/chats`` rows and ``GET /me/chats/{id}``)."""

    last_message_at: str | None = None
    task_counts: dict[str, int] | msgspec.UnsetType = msgspec.UNSET
    message_counts: dict[str, int] | msgspec.UnsetType = msgspec.UNSET
    last_message: MessageRow | msgspec.UnsetType | None = msgspec.UNSET
    membership: str | msgspec.UnsetType = msgspec.UNSET
    my_role: str | msgspec.UnsetType | None = msgspec.UNSET
    my_status: str | msgspec.UnsetType | None = msgspec.UNSET
    via_agent_ids: list[str] | msgspec.UnsetType = msgspec.UNSET
    participants: list[ChatParticipantDetails] | msgspec.UnsetType = msgspec.UNSET
    participant_count: int | msgspec.UnsetType = msgspec.UNSET
    participants_truncated: bool | msgspec.UnsetType = msgspec.UNSET


class UserMemory(AgentMemory):
    """A memory as its owner sees it (the human API; no official agent-SDK model)."""

    updated_at: datetime | None = None
    chat_room_id: str | None = None
    chat_room_title: str | None = None
    chat_room_type: str | None = None
    chat_room_status: str | None = None
    source_agent_name: str | None = None
    subject_name: str | None = None
    subject_type: str | None = None
