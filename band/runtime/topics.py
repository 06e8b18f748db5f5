"""Topic subscriptions of the runtime, tracked by band_sdk_core's ``SubscriptionTracker``.

A room is two topics joined as a pair (``chat_room`` first; if ``room_participants`` fails
the first is left again). After a reconnect the Phoenix client rejoins every topic itself;
the topics it could not rejoin are recorded here as rejoin failures needing reconciliation.
"""

from __future__ import annotations

import logging
from collections.abc import Collection

from band.client.phoenix import PhoenixClient, PhoenixError, PushHandler
from band_sdk_core import (
    LeaveOutcome,
    RoomStatus,
    RoomSubscribeResult,
    SubscriptionTracker,
    chat_room_topic,
    room_participants_topic,
)

__all__ = ["Subscriptions"]

log = logging.getLogger("band.runtime.topics")


class Subscriptions:
    """Joins and leaves agent topics and room topic pairs on one Phoenix client."""

    def __init__(self, phoenix: PhoenixClient, tracker: SubscriptionTracker | None = None) -> None:
        self.phoenix = phoenix
        self.tracker = tracker or SubscriptionTracker()

    async def join_agent_topic(self, topic: str, handler: PushHandler) -> bool:
        """Join an agent-wide topic (``agent_control:<id>``...); True when joined."""
        ticket = self.tracker.begin_agent_topic_join(topic)
        if ticket is None:
            return self.tracker.is_agent_topic_joined(topic)
        try:
            await self.phoenix.join(topic, handler)
        except PhoenixError as exc:
            log.warning("could not join %s: %s", topic, exc)
            self.tracker.record_agent_topic_join(topic, ticket, joined=False)
            return False
        return self.tracker.record_agent_topic_join(topic, ticket, joined=True)

    async def join_room(
        self,
        room_id: str,
        on_messages: PushHandler,
        on_participants: PushHandler,
        *,
        message_events: Collection[str] | None = None,
    ) -> bool:
        """Join the room's two topics; True when both are joined.

        With ``message_events``, only those events of the ``chat_room`` topic reach
        ``on_messages`` (see :meth:`PhoenixClient.join`).
        """
        ticket = self.tracker.begin_room_subscribe(room_id)
        if ticket is None:
            return self.tracker.is_room_subscribed(room_id)
        chat = chat_room_topic(room_id)
        try:
            await self.phoenix.join(chat, on_messages, events=message_events)
        except PhoenixError as exc:
            log.warning("could not join %s: %s", chat, exc)
            self.tracker.record_chat_room_join_failed(room_id, ticket)
            return False
        try:
            await self.phoenix.join(room_participants_topic(room_id), on_participants)
        except PhoenixError as exc:
            log.warning("could not join the participants of %s: %s", room_id, exc)
            left = await self.phoenix.leave(chat)
            self.tracker.record_room_participants_join_failed(room_id, ticket, chat_room_left=left)
            self.tracker.acknowledge_room_reconciled(room_id)
            return False
        result = self.tracker.record_both_room_topics_joined(room_id, ticket)
        return bool(result == RoomSubscribeResult.Subscribed)

    async def leave_room(self, room_id: str) -> None:
        """Leave the room's topics (whatever state the pair is in)."""
        ticket = self.tracker.unsubscribe_room(room_id)
        results = [
            await self.phoenix.leave(chat_room_topic(room_id)),
            await self.phoenix.leave(room_participants_topic(room_id)),
        ]
        if ticket is not None:
            outcome = LeaveOutcome.Left if all(results) else LeaveOutcome.Failed
            self.tracker.mark_room_leave_complete(room_id, ticket, outcome)
        if self.tracker.room_status(room_id) == RoomStatus.NeedsReconciliation:
            self.tracker.acknowledge_room_reconciled(room_id)  # both handlers are gone locally

    def record_rejoin_failures(self, failed_topics: list[str]) -> list[str]:
        """Record topics the client could not rejoin; return the rooms that lost a topic."""
        failed = set(failed_topics)
        rooms = []
        for room_id, ticket in self.tracker.room_rejoin_candidates():
            if chat_room_topic(room_id) in failed or room_participants_topic(room_id) in failed:
                self.tracker.mark_room_rejoin_failed(room_id, ticket)
                rooms.append(room_id)
        for topic, ticket in self.tracker.agent_topic_rejoin_candidates():
            if topic in failed:
                self.tracker.mark_agent_topic_rejoin_failed(topic, ticket)
                self.tracker.acknowledge_agent_topic_reconciled(topic)
        return rooms

    def subscribed_rooms(self) -> list[str]:
        """Rooms whose two topics are joined."""
        return self.tracker.subscribed_room_ids()
