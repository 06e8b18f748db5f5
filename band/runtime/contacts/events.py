"""Contact events from ``agent_contacts:{agent_id}``, as handed to contact callbacks."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from band.core.wire import JsonObject
from band.runtime.pushes import PartyPayload, PushEvent, push_event

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

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
class ContactRequestState:
    """What both contact request pushes carry: the request's id and its status."""

    id: str
    status: str


@dataclass(frozen=True, slots=True)
class ContactRequestReceivedPayload(ContactRequestState):
    """Someone asked to become the agent's contact."""

    inserted_at: str
    from_handle: str | None = None
    from_name: str | None = None
    message: str | None = None


@dataclass(frozen=True, slots=True)
class ContactRequestUpdatedPayload(ContactRequestState):
    """A request the agent sent or received changed status."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ContactAddedPayload(PartyPayload):
    """A new contact of the agent."""

    inserted_at: str
    name: str | None = None


@dataclass(frozen=True, slots=True)
class ContactRemovedPayload:
    """A contact of the agent was removed (``id`` is the former contact's id)."""

    id: str


class ContactRequestReceivedEvent(PushEvent[ContactRequestReceivedPayload]):
    """``contact_request_received``."""

    type: Literal["contact_request_received"] = "contact_request_received"


class ContactRequestUpdatedEvent(PushEvent[ContactRequestUpdatedPayload]):
    """``contact_request_updated``."""

    type: Literal["contact_request_updated"] = "contact_request_updated"


class ContactAddedEvent(PushEvent[ContactAddedPayload]):
    """``contact_added``."""

    type: Literal["contact_added"] = "contact_added"


class ContactRemovedEvent(PushEvent[ContactRemovedPayload]):
    """``contact_removed``."""

    type: Literal["contact_removed"] = "contact_removed"


ContactEvent = (
    ContactRequestReceivedEvent
    | ContactRequestUpdatedEvent
    | ContactAddedEvent
    | ContactRemovedEvent
)


#: Each contact push's event class and payload class.
_EVENTS: dict[str, tuple[Callable[..., ContactEvent], type[DataclassInstance]]] = {
    "contact_request_received": (ContactRequestReceivedEvent, ContactRequestReceivedPayload),
    "contact_request_updated": (ContactRequestUpdatedEvent, ContactRequestUpdatedPayload),
    "contact_added": (ContactAddedEvent, ContactAddedPayload),
    "contact_removed": (ContactRemovedEvent, ContactRemovedPayload),
}


def contact_event(event: str, data: JsonObject) -> ContactEvent | None:
    """The typed event for a validated push (None for an event name that is not a contact's)."""
    kinds = _EVENTS.get(event)
    return None if kinds is None else push_event(*kinds, data)
