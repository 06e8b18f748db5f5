"""Public facade of SubscriptionTracker, RoomRoster and the room topic helpers."""

from __future__ import annotations

from ._subscriptions_py import (
    RoomReconciliation,
    RoomRoster,
    SubscriptionTracker,
    chat_room_topic,
    room_participants_topic,
)

__all__ = [
    "RoomReconciliation",
    "RoomRoster",
    "SubscriptionTracker",
    "chat_room_topic",
    "room_participants_topic",
]
