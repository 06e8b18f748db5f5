"""Public facade of SubscriptionTracker, RoomRoster and the room topic helpers."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._compat import USING_EXTENSIONS

if TYPE_CHECKING or not USING_EXTENSIONS:
    from ._subscriptions_py import (
        RoomReconciliation,
        RoomRoster,
        SubscriptionTracker,
        chat_room_topic,
        room_participants_topic,
    )
else:
    from ._subscriptions_c import (
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
