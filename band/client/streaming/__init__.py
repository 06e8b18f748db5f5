"""band-sdk's ``band.client.streaming``: the socket client, its vocabulary (event names, typed
push payloads) and its refusals, on our Phoenix client (:mod:`band.client.phoenix`).

``WebSocketClient`` is band-sdk's constructor and channel methods over
:class:`~band.client.phoenix.PhoenixClient`; the payloads the runtime hands to user code are the
runtime's own classes under band-sdk's names. The package sits above the runtime's event types
(it exports them), not beside the transport.
"""

from __future__ import annotations

from band.runtime.contacts.events import (
    ContactAddedPayload,
    ContactRemovedPayload,
    ContactRequestReceivedPayload,
    ContactRequestUpdatedPayload,
)
from band.runtime.rooms.events import MessageCreatedPayload

from .client import WebSocketClient
from .errors import WebSocketDisconnectReason, WebSocketUpgradeError
from .wire import (
    AgentControlPayload,
    ControlMode,
    DeliveryStatus,
    Mention,
    MessageMetadata,
    ParticipantAddedPayload,
    ParticipantRemovedPayload,
    RoomAddedPayload,
    RoomDeletedPayload,
    RoomRemovedPayload,
    SupersedePayload,
    WireEvent,
    payload_of,
)

__all__ = [
    "AgentControlPayload",
    "ContactAddedPayload",
    "ContactRemovedPayload",
    "ContactRequestReceivedPayload",
    "ContactRequestUpdatedPayload",
    "ControlMode",
    "DeliveryStatus",
    "Mention",
    "MessageCreatedPayload",
    "MessageMetadata",
    "ParticipantAddedPayload",
    "ParticipantRemovedPayload",
    "RoomAddedPayload",
    "RoomDeletedPayload",
    "RoomRemovedPayload",
    "SupersedePayload",
    "WebSocketClient",
    "WebSocketDisconnectReason",
    "WebSocketUpgradeError",
    "WireEvent",
    "payload_of",
]
