"""The events the runtime hands to user code (contact callbacks, participant callbacks,
preprocessors), importable as ``band.platform.event``."""

from __future__ import annotations

from band.runtime.contacts.events import (
    ContactAddedEvent,
    ContactAddedPayload,
    ContactEvent,
    ContactRemovedEvent,
    ContactRemovedPayload,
    ContactRequestReceivedEvent,
    ContactRequestReceivedPayload,
    ContactRequestUpdatedEvent,
    ContactRequestUpdatedPayload,
)
from band.runtime.rooms.events import (
    MessageCreatedPayload,
    MessageEvent,
    ParticipantAddedEvent,
    ParticipantPayload,
    ParticipantRemovedEvent,
)

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
    "MessageCreatedPayload",
    "MessageEvent",
    "ParticipantAddedEvent",
    "ParticipantPayload",
    "ParticipantRemovedEvent",
    "PlatformEvent",
]

#: Every event type above.
PlatformEvent = MessageEvent | ParticipantAddedEvent | ParticipantRemovedEvent | ContactEvent
