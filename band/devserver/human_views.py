"""Shapes of the human API (``/me/...``) that the official agent SDK has no model for.

Declared as wire models (``band.core.wire.WireModel``) so band dev encodes every answer the
same way; ``None`` fields are sent as null, as the pinned shapes in
``tests/devserver/test_response_shapes.py`` require.
"""

from __future__ import annotations

from datetime import datetime

import msgspec

from band.core.wire import WireModel


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
