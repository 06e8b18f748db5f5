"""Contact events from ``agent_contacts:{agent_id}``, as handed to contact callbacks."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from band.runtime.pushes import PushEvent

__all__ = [
    "ContactAddedEvent",
    "ContactAddedPayload",
    "ContactEvent",
    "ContactRemovedEvent",
    "ContactRemovedPayload",
    "ContactRequestReceivedEvent",
    "ContactRequestReceivedPayload",
    "ContactRequestUpdatedEvent",
    "ContactRequestUpdatedPayload",
    "contact_event",
]


@dataclass(frozen=True, slots=True)
class ContactRequestReceivedPayload:
    """Someone asked to become the agent's contact."""

    id: str
    status: str
    inserted_at: str
    from_handle: str | None = None
    from_name: str | None = None
    message: str | None = None


@dataclass(frozen=True, slots=True)
class ContactRequestUpdatedPayload:
    """A request the agent sent or received changed status."""

    id: str
    status: str


@dataclass(frozen=True, slots=True)
class ContactAddedPayload:
    """A new contact of the agent."""

    id: str
    type: str
    inserted_at: str
    handle: str | None = None
    name: str | None = None
    description: str | None = None
    is_remote: bool | None = None
    is_external: bool | None = None


@dataclass(frozen=True, slots=True)
class ContactRemovedPayload:
    """A contact of the agent was removed (``id`` is the former contact's id)."""

    id: str


@dataclass
class ContactRequestReceivedEvent(PushEvent[ContactRequestReceivedPayload]):
    """``contact_request_received``."""

    type: Literal["contact_request_received"] = "contact_request_received"


@dataclass
class ContactRequestUpdatedEvent(PushEvent[ContactRequestUpdatedPayload]):
    """``contact_request_updated``."""

    type: Literal["contact_request_updated"] = "contact_request_updated"


@dataclass
class ContactAddedEvent(PushEvent[ContactAddedPayload]):
    """``contact_added``."""

    type: Literal["contact_added"] = "contact_added"


@dataclass
class ContactRemovedEvent(PushEvent[ContactRemovedPayload]):
    """``contact_removed``."""

    type: Literal["contact_removed"] = "contact_removed"


ContactEvent = (
    ContactRequestReceivedEvent
    | ContactRequestUpdatedEvent
    | ContactAddedEvent
    | ContactRemovedEvent
)


def contact_event(event: str, data: dict[str, Any]) -> ContactEvent | None:
    """The typed event for a validated push (None for an event name that is not a contact's)."""
    if event == "contact_request_received":
        return ContactRequestReceivedEvent(
            payload=ContactRequestReceivedPayload(
                id=str(data["id"]),
                status=str(data["status"]),
                inserted_at=str(data["inserted_at"]),
                from_handle=data.get("from_handle"),
                from_name=data.get("from_name"),
                message=data.get("message"),
            ),
            raw=data,
        )
    if event == "contact_request_updated":
        payload = ContactRequestUpdatedPayload(id=str(data["id"]), status=str(data["status"]))
        return ContactRequestUpdatedEvent(payload=payload, raw=data)
    if event == "contact_added":
        return ContactAddedEvent(
            payload=ContactAddedPayload(
                id=str(data["id"]),
                type=str(data["type"]),
                inserted_at=str(data["inserted_at"]),
                handle=data.get("handle"),
                name=data.get("name"),
                description=data.get("description"),
                is_remote=data.get("is_remote"),
                is_external=data.get("is_external"),
            ),
            raw=data,
        )
    if event == "contact_removed":
        return ContactRemovedEvent(payload=ContactRemovedPayload(id=str(data["id"])), raw=data)
    return None
