# cython: annotation_typing=False
"""Pure-Python SubscriptionTracker, RoomRoster and topic naming (spec sections 8 and 9)."""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any, TypeVar

from ._base import (
    check_bool,
    refuse_copy,
    refuse_create,
    refuse_setattr,
    refuse_subclasses,
    word_missing_attributes,
)
from ._enums import (
    AgentTopicStatus,
    LeaveOutcome,
    RoomMembership,
    RoomStatus,
    RoomSubscribeResult,
    not_instance_message,
)

__all__ = [
    "RoomReconciliation",
    "RoomRoster",
    "SubscriptionTracker",
    "chat_room_topic",
    "room_participants_topic",
]

#: True when this source runs compiled as ``_subscriptions_c`` (C attributes are set directly).
_COMPILED = __name__ != "band_sdk_core._subscriptions_py"

_U64_MAX = 0xFFFFFFFFFFFFFFFF

# key states shared by rooms and agent topics (Subscribed and Joined are the same state)
_ABSENT = 0
_PENDING = 1
_ACTIVE = 2
_LEAVING = 3
_RECONCILE = 4

_Status = TypeVar("_Status", RoomStatus, AgentTopicStatus, RoomMembership)

_ROOM_STATUS = (
    RoomStatus.Absent,
    RoomStatus.Pending,
    RoomStatus.Subscribed,
    RoomStatus.Leaving,
    RoomStatus.NeedsReconciliation,
)
_TOPIC_STATUS = (
    AgentTopicStatus.Absent,
    AgentTopicStatus.Pending,
    AgentTopicStatus.Joined,
    AgentTopicStatus.Leaving,
    AgentTopicStatus.NeedsReconciliation,
)

# roster states: the key states under the roster's names
_ADMITTING = _PENDING
_ADMITTED = _ACTIVE
_MEMBERSHIP = (RoomMembership.Unadmitted, RoomMembership.Admitting, RoomMembership.Admitted)

# the members the hot paths return or compare, bound once: each Class.Member was a global
# lookup and a type attribute lookup per call
_LEFT = LeaveOutcome.Left
_STALE = RoomSubscribeResult.Stale
_JOIN_FAILED = RoomSubscribeResult.JoinFailed
_SUBSCRIBED = RoomSubscribeResult.Subscribed
_ROLLED_BACK = RoomSubscribeResult.RolledBack
_ROLLBACK_FAILED = RoomSubscribeResult.RollbackFailed


def _text(value: Any) -> str:
    """Return ``value`` as an exact str, rejecting non-str and unencodable text."""
    if type(value) is not str:
        if not isinstance(value, str):
            raise TypeError(not_instance_message(value, "str"))
        value = str.__str__(value)
    # typed str when compiled: isascii is then a direct C call, not a method lookup
    text: str = value
    if not text.isascii():
        text.encode("utf-8")
    return text


def _ticket(value: Any) -> int:
    """Convert a ticket argument to an unsigned 64-bit int."""
    # an exact int is its own index: skip the call through the operator module
    number = value if type(value) is int else operator.index(value)
    if number < 0:
        raise OverflowError("can't convert negative int to unsigned")
    if number > _U64_MAX:
        raise OverflowError("int too big to convert")
    return int(number)


def _outcome(value: Any) -> LeaveOutcome:
    """Reject anything that is not a LeaveOutcome member."""
    if not isinstance(value, LeaveOutcome):
        raise TypeError(not_instance_message(value, "LeaveOutcome"))
    return value


def chat_room_topic(room_id: str) -> str:
    """Return the chat_room channel topic of a room."""
    return "chat_room:" + _text(room_id)


def room_participants_topic(room_id: str) -> str:
    """Return the room_participants channel topic of a room."""
    return "room_participants:" + _text(room_id)


class _Sealed:
    """Refusals shared by this module's C types: no pickling, copying or attribute changes."""

    # no __getattr__: the public classes get the reference wording from word_missing_attributes

    __slots__ = ()

    __reduce_ex__ = __reduce__ = __copy__ = __deepcopy__ = refuse_copy

    def __setattr__(self, name: str, value: object) -> None:
        refuse_setattr(self, name, value)

    def __delattr__(self, name: str) -> None:
        refuse_setattr(self, name)


class _Ticketed(_Sealed):
    """A C type that numbers its claims with one increasing ticket counter."""

    __slots__ = ("_next_ticket",)

    _next_ticket: int

    def _issue(self) -> int:
        """Consume and return the next ticket."""
        ticket = self._next_ticket
        if _COMPILED:
            self._next_ticket = ticket + 1
        else:
            object.__setattr__(self, "_next_ticket", ticket + 1)
        return ticket


def _in_state(table: dict[str, list[int]], key: str, state: int, ticket: int) -> bool:
    """Whether ``key`` is in ``state`` under exactly ``ticket``."""
    entry = table.get(key)
    return entry is not None and entry[0] == state and entry[1] == ticket


def _move(table: dict[str, list[int]], key: str, ticket: int, source: int, target: int) -> bool:
    """Move ``key`` from ``source`` under exactly ``ticket`` to ``target``; False if not there.

    _ABSENT frees the key. A key becoming _ACTIVE goes to the end of the table, so the
    listings keep the order keys became active; any other target keeps its place.
    """
    entry = table.get(key)
    if entry is None or entry[0] != source or entry[1] != ticket:
        return False
    if target == _ABSENT or target == _ACTIVE:
        del table[key]
        if target == _ACTIVE:
            entry[0] = _ACTIVE  # the same list, re-inserted at the end: no new one
            table[key] = entry
    else:
        entry[0] = target
    return True


def _keys_in(table: dict[str, list[int]], state: int) -> list[str]:
    """Return the keys in ``state``, in table order."""
    return [key for key, entry in table.items() if entry[0] == state]


# One state machine for rooms and agent topics: each function takes the table
# (SubscriptionTracker._rooms or ._topics) and checks its arguments in call order.


def _is_active(table: dict[str, list[int]], key_arg: Any) -> bool:
    """Whether the key is Subscribed (a room) or Joined (a topic)."""
    entry = table.get(_text(key_arg))
    return entry is not None and entry[0] == _ACTIVE


def _is_claim_current(table: dict[str, list[int]], key_arg: Any, ticket_arg: Any) -> bool:
    """Whether the key is Pending under exactly this ticket."""
    key = _text(key_arg)
    return _in_state(table, key, _PENDING, _ticket(ticket_arg))


def _status(table: dict[str, list[int]], key_arg: Any, statuses: tuple[_Status, ...]) -> _Status:
    """Return the key's status from ``statuses`` (indexed by key state; Absent when unknown)."""
    entry = table.get(_text(key_arg))
    if entry is None:
        return statuses[_ABSENT]
    return statuses[entry[0]]


def _leave_complete(
    table: dict[str, list[int]], key_arg: Any, ticket_arg: Any, outcome_arg: Any
) -> bool:
    """Finish a leave: Left frees the key, other outcomes need reconciliation."""
    key = _text(key_arg)
    tk = _ticket(ticket_arg)
    result = _outcome(outcome_arg)
    return _move(table, key, tk, _LEAVING, _ABSENT if result is _LEFT else _RECONCILE)


def _acknowledge(table: dict[str, list[int]], key_arg: Any) -> bool:
    """Clear a key that needed reconciliation back to Absent."""
    key = _text(key_arg)
    entry = table.get(key)
    if entry is None or entry[0] != _RECONCILE:
        return False
    del table[key]
    return True


def _rejoin_candidates(table: dict[str, list[int]]) -> list[tuple[str, int]]:
    """Return ``(key, ticket)`` for each active key, in the order they became active."""
    return [(key, entry[1]) for key, entry in table.items() if entry[0] == _ACTIVE]


def _rejoin_failed(table: dict[str, list[int]], key_arg: Any, ticket_arg: Any) -> bool:
    """Record a failed rejoin of an active key; it needs reconciliation."""
    key = _text(key_arg)
    tk = _ticket(ticket_arg)
    return _move(table, key, tk, _ACTIVE, _RECONCILE)


class _Tracker(_Ticketed):
    """The state and transitions of SubscriptionTracker (compiled: a C type)."""

    __slots__ = ("_rooms", "_topics")

    _rooms: dict[str, list[int]]
    _topics: dict[str, list[int]]

    def __init__(self) -> None:
        """Create a tracker with every room and topic Absent."""
        if _COMPILED:
            self._next_ticket = 0
            self._rooms = {}
            self._topics = {}
        else:
            object.__setattr__(self, "_next_ticket", 0)
            object.__setattr__(self, "_rooms", {})
            object.__setattr__(self, "_topics", {})

    def _claim(self, table: dict[str, list[int]], key_arg: Any) -> int | None:
        """Claim an Absent key: it becomes Pending under a fresh ticket (None if not Absent)."""
        key = _text(key_arg)
        # one hash lookup: insert the Pending entry unless the key already has one
        entry = [_PENDING, 0]  # its ticket is issued below, only if inserted
        if table.setdefault(key, entry) is not entry:
            return None
        ticket = self._issue()
        entry[1] = ticket
        return ticket

    def _leave(self, table: dict[str, list[int]], key_arg: Any) -> int | None:
        """Start leaving an active key under a fresh ticket (None if not active)."""
        entry = table.get(_text(key_arg))
        if entry is None or entry[0] != _ACTIVE:
            return None
        ticket = self._issue()
        entry[0] = _LEAVING
        entry[1] = ticket
        return ticket

    # ----- rooms -----

    def begin_room_subscribe(self, room_id: str) -> int | None:
        """Claim an Absent room for subscribing; return its ticket or None."""
        return self._claim(self._rooms, room_id)

    def record_chat_room_join_failed(self, room_id: str, ticket: int) -> RoomSubscribeResult:
        """Record that the chat_room join failed; the claim is released."""
        room = _text(room_id)
        tk = _ticket(ticket)
        if not _move(self._rooms, room, tk, _PENDING, _ABSENT):
            return _STALE
        return _JOIN_FAILED

    def record_both_room_topics_joined(self, room_id: str, ticket: int) -> RoomSubscribeResult:
        """Record that both room topics joined; the room becomes Subscribed."""
        room = _text(room_id)
        tk = _ticket(ticket)
        if not _move(self._rooms, room, tk, _PENDING, _ACTIVE):
            return _STALE
        return _SUBSCRIBED

    def record_room_participants_join_failed(
        self, room_id: str, ticket: int, chat_room_left: bool
    ) -> RoomSubscribeResult:
        """Record that room_participants failed after chat_room joined, with the rollback."""
        room = _text(room_id)
        tk = _ticket(ticket)
        # the test inline, check_bool only to raise: a call to it is a Python frame per call
        if chat_room_left is not True and chat_room_left is not False:
            check_bool(chat_room_left)  # raises
        if not _move(self._rooms, room, tk, _PENDING, _ABSENT if chat_room_left else _RECONCILE):
            return _STALE
        if chat_room_left:
            return _ROLLED_BACK
        return _ROLLBACK_FAILED

    def is_room_subscribed(self, room_id: str) -> bool:
        """Whether the room is Subscribed."""
        return _is_active(self._rooms, room_id)

    def is_room_claim_current(self, room_id: str, ticket: int) -> bool:
        """Whether the room is Pending under exactly this ticket."""
        return _is_claim_current(self._rooms, room_id, ticket)

    def room_status(self, room_id: str) -> RoomStatus:
        """Return the room's status (Absent when unknown)."""
        return _status(self._rooms, room_id, _ROOM_STATUS)

    def unsubscribe_room(self, room_id: str) -> int | None:
        """Start leaving a Subscribed room; return the leave ticket or None."""
        return self._leave(self._rooms, room_id)

    def mark_room_leave_complete(self, room_id: str, ticket: int, outcome: LeaveOutcome) -> bool:
        """Finish a room leave: Left frees the room, other outcomes need reconciliation."""
        return _leave_complete(self._rooms, room_id, ticket, outcome)

    def acknowledge_room_reconciled(self, room_id: str) -> bool:
        """Clear a room that needed reconciliation back to Absent."""
        return _acknowledge(self._rooms, room_id)

    def room_rejoin_candidates(self) -> list[tuple[str, int]]:
        """Return ``(room, subscribe ticket)`` for each Subscribed room."""
        return _rejoin_candidates(self._rooms)

    def mark_room_rejoin_failed(self, room_id: str, ticket: int) -> bool:
        """Record a failed rejoin of a Subscribed room; it needs reconciliation."""
        return _rejoin_failed(self._rooms, room_id, ticket)

    def subscribed_room_ids(self) -> list[str]:
        """Return the Subscribed rooms in the order they became Subscribed."""
        return _keys_in(self._rooms, _ACTIVE)

    def on_reconnected(self) -> None:
        """Note a transport reconnect (no state change)."""
        return None

    def end_session(self) -> None:
        """Forget every room and agent topic (tickets keep counting)."""
        self._rooms.clear()
        self._topics.clear()

    # ----- agent topics -----

    def begin_agent_topic_join(self, topic: str) -> int | None:
        """Claim an Absent agent topic for joining; return its ticket or None."""
        return self._claim(self._topics, topic)

    def record_agent_topic_join(self, topic: str, ticket: int, joined: bool) -> bool:
        """Record a join reply: joined makes it Joined, a refusal frees it."""
        key = _text(topic)
        tk = _ticket(ticket)
        if joined is not True and joined is not False:
            check_bool(joined)  # raises
        # a refused join frees the topic and reports False, like a stale one
        return _move(self._topics, key, tk, _PENDING, _ACTIVE if joined else _ABSENT) and joined

    def record_agent_topic_join_ambiguous(self, topic: str, ticket: int) -> bool:
        """Record a join with no clear reply; the topic needs reconciliation."""
        key = _text(topic)
        tk = _ticket(ticket)
        return _move(self._topics, key, tk, _PENDING, _RECONCILE)

    def is_agent_topic_joined(self, topic: str) -> bool:
        """Whether the agent topic is Joined."""
        return _is_active(self._topics, topic)

    def is_agent_topic_claim_current(self, topic: str, ticket: int) -> bool:
        """Whether the topic is Pending under exactly this ticket."""
        return _is_claim_current(self._topics, topic, ticket)

    def agent_topic_status(self, topic: str) -> AgentTopicStatus:
        """Return the topic's status (Absent when unknown)."""
        return _status(self._topics, topic, _TOPIC_STATUS)

    def leave_agent_topic(self, topic: str) -> int | None:
        """Start leaving a Joined topic; return the leave ticket or None."""
        return self._leave(self._topics, topic)

    def mark_agent_topic_leave_complete(
        self, topic: str, ticket: int, outcome: LeaveOutcome
    ) -> bool:
        """Finish a topic leave: Left frees the topic, other outcomes need reconciliation."""
        return _leave_complete(self._topics, topic, ticket, outcome)

    def acknowledge_agent_topic_reconciled(self, topic: str) -> bool:
        """Clear a topic that needed reconciliation back to Absent."""
        return _acknowledge(self._topics, topic)

    def agent_topic_rejoin_candidates(self) -> list[tuple[str, int]]:
        """Return ``(topic, join ticket)`` for each Joined topic."""
        return _rejoin_candidates(self._topics)

    def mark_agent_topic_rejoin_failed(self, topic: str, ticket: int) -> bool:
        """Record a failed rejoin of a Joined topic; it needs reconciliation."""
        return _rejoin_failed(self._topics, topic, ticket)

    def joined_agent_topics(self) -> list[str]:
        """Return the Joined topics in the order they became Joined."""
        return _keys_in(self._topics, _ACTIVE)


class SubscriptionTracker(_Tracker):
    """Ticketed join/leave decisions for room subscriptions and agent topics."""

    # the C base cannot refuse subclasses with the reference's message; this class can
    __slots__ = ()
    __module__ = "band_sdk_core"
    __init_subclass__ = refuse_subclasses


word_missing_attributes(SubscriptionTracker)


class _Reconciliation(_Sealed):
    """The fields of RoomReconciliation (compiled: a C type)."""

    __slots__ = ("_admitting", "_removed", "_resync")

    _removed: list[str]
    _admitting: list[tuple[str, int]]
    _resync: list[str]

    def __init__(self, *args: object, **kwargs: object) -> None:
        """Refuse construction from Python."""
        refuse_create(RoomReconciliation)

    @property
    def removed(self) -> list[str]:
        """Admitted rooms missing from the snapshot, now Unadmitted (sorted)."""
        return list(self._removed)

    @property
    def admitting(self) -> list[tuple[str, int]]:
        """Newly seen rooms with their fresh admission tickets (sorted)."""
        return list(self._admitting)

    @property
    def resync(self) -> list[str]:
        """Admitted rooms present in the snapshot (sorted)."""
        return list(self._resync)


class RoomReconciliation(_Reconciliation):
    """The outcome of reconciling a roster against a room snapshot (already applied)."""

    # the C base cannot refuse subclasses with the reference's message; this class can
    __slots__ = ()
    __module__ = "band_sdk_core"
    __init_subclass__ = refuse_subclasses


word_missing_attributes(RoomReconciliation)


def _reconciliation(
    removed: list[str], admitting: list[tuple[str, int]], resync: list[str]
) -> RoomReconciliation:
    """Build a RoomReconciliation without going through its constructor."""
    if _COMPILED:
        out = _Reconciliation.__new__(RoomReconciliation)
        out._removed = removed
        out._admitting = admitting
        out._resync = resync
        return out
    result = _Reconciliation.__new__(RoomReconciliation)
    object.__setattr__(result, "_removed", removed)
    object.__setattr__(result, "_admitting", admitting)
    object.__setattr__(result, "_resync", resync)
    return result


def _room_ids(value: Any) -> list[str]:
    """Convert a snapshot sequence of room ids to a list of exact str."""
    if isinstance(value, str):
        raise TypeError("Can't extract `str` to `Vec`")
    if not isinstance(value, Sequence):
        raise TypeError(not_instance_message(value, "Sequence"))
    return [_text(item) for item in value]


class _Roster(_Ticketed):
    """The state and transitions of RoomRoster (compiled: a C type)."""

    __slots__ = ("_rooms",)

    _rooms: dict[str, list[int]]

    def __init__(self) -> None:
        """Create a roster with every room Unadmitted."""
        if _COMPILED:
            self._next_ticket = 0
            self._rooms = {}
        else:
            object.__setattr__(self, "_next_ticket", 0)
            object.__setattr__(self, "_rooms", {})

    def room_membership(self, room_id: str) -> RoomMembership:
        """Return the room's membership (Unadmitted when unknown)."""
        return _status(self._rooms, room_id, _MEMBERSHIP)

    def begin_room_admission(self, room_id: str, passes_filter: bool) -> int | None:
        """Start admitting an Unadmitted room that passes the filter; return its ticket."""
        room = _text(room_id)
        if passes_filter is not True and passes_filter is not False:
            check_bool(passes_filter)  # raises
        if not passes_filter or room in self._rooms:
            return None
        ticket = self._issue()
        self._rooms[room] = [_ADMITTING, ticket]
        return ticket

    def record_room_admission(self, room_id: str, ticket: int, succeeded: bool) -> bool:
        """Finish an admission: success admits the room, failure frees it."""
        room = _text(room_id)
        tk = _ticket(ticket)
        if succeeded is not True and succeeded is not False:
            check_bool(succeeded)  # raises
        target = _ADMITTED if succeeded else _ABSENT
        # a failed admission frees the room and reports False, like a stale one
        return _move(self._rooms, room, tk, _ADMITTING, target) and succeeded

    def is_room_admission_current(self, room_id: str, ticket: int) -> bool:
        """Whether the room is Admitting under exactly this ticket."""
        room = _text(room_id)
        return _in_state(self._rooms, room, _ADMITTING, _ticket(ticket))

    def record_room_removed(self, room_id: str) -> bool:
        """Drop a room; True only if it was Admitted (an admission is cancelled)."""
        room = _text(room_id)
        entry = self._rooms.pop(room, None)
        return entry is not None and entry[0] == _ADMITTED

    def tracked_room_ids(self) -> list[str]:
        """Return the Admitted rooms in the order they became Admitted."""
        return _keys_in(self._rooms, _ADMITTED)

    def reconcile(self, current_room_ids: Sequence[str]) -> RoomReconciliation:
        """Reconcile against an authoritative snapshot of current room ids."""
        snapshot = set(_room_ids(current_room_ids))
        removed: list[str] = []
        resync: list[str] = []
        for room, entry in self._rooms.items():
            if entry[0] == _ADMITTED:
                if room in snapshot:
                    resync.append(room)
                else:
                    removed.append(room)
        removed.sort()
        resync.sort()
        for room in removed:
            del self._rooms[room]
        admitting: list[tuple[str, int]] = []
        for room in sorted(snapshot):
            if room not in self._rooms:
                ticket = self._issue()
                self._rooms[room] = [_ADMITTING, ticket]
                admitting.append((room, ticket))
        return _reconciliation(removed, admitting, resync)

    def clear(self) -> list[str]:
        """Forget every Admitting and Admitted room; return them sorted."""
        rooms = sorted(self._rooms)
        self._rooms.clear()
        return rooms


class RoomRoster(_Roster):
    """Ticketed room admission decisions, separate from the transport subscription."""

    # the C base cannot refuse subclasses with the reference's message; this class can
    __slots__ = ()
    __module__ = "band_sdk_core"
    __init_subclass__ = refuse_subclasses


word_missing_attributes(RoomRoster)
