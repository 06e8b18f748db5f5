"""The events the runtime hands to user code (contact callbacks, participant callbacks,
preprocessors), importable as ``band.platform.event``."""

from __future__ import annotations

# each name imported "as itself": the re-exports of this band-sdk import path, listed once
from band.runtime.contacts.events import ContactAddedEvent as ContactAddedEvent
from band.runtime.contacts.events import ContactAddedPayload as ContactAddedPayload
from band.runtime.contacts.events import ContactEvent as ContactEvent
from band.runtime.contacts.events import ContactRemovedEvent as ContactRemovedEvent
from band.runtime.contacts.events import ContactRemovedPayload as ContactRemovedPayload
from band.runtime.contacts.events import ContactRequestReceivedEvent as ContactRequestReceivedEvent
from band.runtime.contacts.events import (
    ContactRequestReceivedPayload as ContactRequestReceivedPayload,
)
from band.runtime.contacts.events import ContactRequestUpdatedEvent as ContactRequestUpdatedEvent
from band.runtime.contacts.events import (
    ContactRequestUpdatedPayload as ContactRequestUpdatedPayload,
)
from band.runtime.rooms.events import MessageCreatedPayload as MessageCreatedPayload
from band.runtime.rooms.events import MessageEvent as MessageEvent
from band.runtime.rooms.events import ParticipantAddedEvent as ParticipantAddedEvent
from band.runtime.rooms.events import ParticipantPayload as ParticipantPayload
from band.runtime.rooms.events import ParticipantRemovedEvent as ParticipantRemovedEvent

#: Every event type above.
PlatformEvent = MessageEvent | ParticipantAddedEvent | ParticipantRemovedEvent | ContactEvent
