"""SubscriptionTracker and the room topic helpers (spec §8), against both implementations."""

from __future__ import annotations

import copy
import pickle
from collections.abc import Callable
from types import ModuleType
from typing import Any, NamedTuple

import pytest
from bandtest.core_cases import assert_exports
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from band_sdk_core import AgentTopicKind, AgentTopicStatus, LeaveOutcome, RoomStatus
from band_sdk_core import RoomSubscribeResult as R

U64 = 2**64
OUTCOMES = [LeaveOutcome.Left, LeaveOutcome.Failed, LeaveOutcome.Unknown]

# --------------------------------------------------------------------------- topic helpers


def _refused(bad: object, wanted: str, *calls: Callable[[], object]) -> None:
    """Each call raises the core's TypeError for ``bad`` where a ``wanted`` is expected."""
    kind = "'None'" if bad is None else f"'{type(bad).__name__}' object"
    for call in calls:
        with pytest.raises(TypeError) as info:
            call()
        assert str(info.value) == f"{kind} is not an instance of '{wanted}'"


def _str_only(method: Callable[[Any], object]) -> None:
    """``method`` takes a str: an int and None are refused, a lone surrogate cannot be encoded."""
    _refused(1, "str", lambda: method(1))
    _refused(None, "str", lambda: method(None))
    with pytest.raises(UnicodeEncodeError):
        method("\ud800")


def test_topic_helpers(subscriptions_impl: ModuleType) -> None:
    assert subscriptions_impl.chat_room_topic("room-1") == "chat_room:room-1"
    assert subscriptions_impl.room_participants_topic("room-1") == "room_participants:room-1"
    assert subscriptions_impl.chat_room_topic("") == "chat_room:"
    assert subscriptions_impl.room_participants_topic("a:b") == "room_participants:a:b"
    assert subscriptions_impl.chat_room_topic(room_id="x") == "chat_room:x"


def test_topic_helpers_reject_non_str(subscriptions_impl: ModuleType) -> None:
    for helper in (subscriptions_impl.chat_room_topic, subscriptions_impl.room_participants_topic):
        _str_only(helper)


def test_agent_topic_kind_topic() -> None:
    assert AgentTopicKind.Control.topic("a1") == "agent_control:a1"
    assert AgentTopicKind.Rooms.topic("a1") == "agent_rooms:a1"
    assert AgentTopicKind.Contacts.topic("a1") == "agent_contacts:a1"


# --------------------------------------------------------------------------- room states


def _room_in(tracker: Any, state: str, room: str = "r") -> int:
    """Drive ``room`` into ``state``; return its current ticket (-1 when Absent)."""
    if state == "absent":
        return -1
    ticket = tracker.begin_room_subscribe(room)
    if state == "pending":
        return ticket
    if state == "reconcile":
        assert tracker.record_room_participants_join_failed(room, ticket, False) is R.RollbackFailed
        return ticket
    assert tracker.record_both_room_topics_joined(room, ticket) is R.Subscribed
    if state == "subscribed":
        return ticket
    leave = tracker.unsubscribe_room(room)
    assert state == "leaving"
    return leave


ROOM_STATUS = {
    "absent": RoomStatus.Absent,
    "pending": RoomStatus.Pending,
    "subscribed": RoomStatus.Subscribed,
    "leaving": RoomStatus.Leaving,
    "reconcile": RoomStatus.NeedsReconciliation,
}
ALL_STATES = list(ROOM_STATUS)


def test_room_begin_from_absent(subscriptions_impl: ModuleType) -> None:
    tracker = subscriptions_impl.SubscriptionTracker()
    assert tracker.room_status("r") is RoomStatus.Absent
    ticket = tracker.begin_room_subscribe("r")
    assert ticket == 0
    assert tracker.room_status("r") is RoomStatus.Pending
    assert tracker.is_room_claim_current("r", ticket) is True
    assert tracker.is_room_subscribed("r") is False


@pytest.mark.parametrize("state", ["pending", "subscribed", "leaving", "reconcile"])
def test_room_begin_refused_when_claimed(subscriptions_impl: ModuleType, state: str) -> None:
    tracker = subscriptions_impl.SubscriptionTracker()
    _room_in(tracker, state)
    issued = tracker.begin_agent_topic_join("probe")
    assert tracker.begin_room_subscribe("r") is None
    assert tracker.room_status("r") is ROOM_STATUS[state]
    # the refused call consumed no ticket
    assert tracker.begin_agent_topic_join("probe2") == issued + 1


@pytest.mark.parametrize(
    ("record", "expected", "new_status"),
    [
        (
            lambda t, r, k: t.record_both_room_topics_joined(r, k),
            R.Subscribed,
            RoomStatus.Subscribed,
        ),
        (lambda t, r, k: t.record_chat_room_join_failed(r, k), R.JoinFailed, RoomStatus.Absent),
        (
            lambda t, r, k: t.record_room_participants_join_failed(r, k, True),
            R.RolledBack,
            RoomStatus.Absent,
        ),
        (
            lambda t, r, k: t.record_room_participants_join_failed(r, k, False),
            R.RollbackFailed,
            RoomStatus.NeedsReconciliation,
        ),
    ],
)
def test_room_pending_records(
    subscriptions_impl: ModuleType,
    record: Callable[[Any, str, int], Any],
    expected: Any,
    new_status: Any,
) -> None:
    tracker = subscriptions_impl.SubscriptionTracker()
    ticket = _room_in(tracker, "pending")
    assert record(tracker, "r", ticket) is expected
    assert tracker.room_status("r") is new_status
    assert tracker.is_room_claim_current("r", ticket) is False
    assert tracker.is_room_subscribed("r") is (new_status is RoomStatus.Subscribed)


RECORDERS = [
    lambda t, r, k: t.record_both_room_topics_joined(r, k),
    lambda t, r, k: t.record_chat_room_join_failed(r, k),
    lambda t, r, k: t.record_room_participants_join_failed(r, k, True),
    lambda t, r, k: t.record_room_participants_join_failed(r, k, False),
]


@pytest.mark.parametrize("record", RECORDERS)
@pytest.mark.parametrize("state", ALL_STATES)
def test_room_records_stale(
    subscriptions_impl: ModuleType, record: Callable[[Any, str, int], Any], state: str
) -> None:
    tracker = subscriptions_impl.SubscriptionTracker()
    current = _room_in(tracker, state)
    tickets = [0, 1, 2, 7, U64 - 1]
    if state != "pending":
        tickets.append(max(current, 0))
    for ticket in tickets:
        if state == "pending" and ticket == current:
            continue
        assert record(tracker, "r", ticket) is R.Stale
        assert tracker.room_status("r") is ROOM_STATUS[state]
    # another room never matches
    assert record(tracker, "other", max(current, 0)) is R.Stale
    assert tracker.room_status("other") is RoomStatus.Absent


def test_room_record_after_completion_is_stale(subscriptions_impl: ModuleType) -> None:
    tracker = subscriptions_impl.SubscriptionTracker()
    ticket = tracker.begin_room_subscribe("r")
    assert tracker.record_chat_room_join_failed("r", ticket) is R.JoinFailed
    fresh = tracker.begin_room_subscribe("r")
    assert fresh == ticket + 1
    assert tracker.record_both_room_topics_joined("r", ticket) is R.Stale
    assert tracker.record_both_room_topics_joined("r", fresh) is R.Subscribed
    # a Subscribed room's own ticket is stale for the record_* calls
    assert tracker.record_both_room_topics_joined("r", fresh) is R.Stale
    assert tracker.record_chat_room_join_failed("r", fresh) is R.Stale
    assert tracker.room_status("r") is RoomStatus.Subscribed


def test_room_unsubscribe(subscriptions_impl: ModuleType) -> None:
    tracker = subscriptions_impl.SubscriptionTracker()
    sub = _room_in(tracker, "subscribed")
    leave = tracker.unsubscribe_room("r")
    assert leave == sub + 1
    assert tracker.room_status("r") is RoomStatus.Leaving
    assert tracker.is_room_subscribed("r") is False
    assert tracker.is_room_claim_current("r", leave) is False
    assert tracker.subscribed_room_ids() == []
    assert tracker.room_rejoin_candidates() == []


@pytest.mark.parametrize("state", ["absent", "pending", "leaving", "reconcile"])
def test_room_unsubscribe_refused(subscriptions_impl: ModuleType, state: str) -> None:
    tracker = subscriptions_impl.SubscriptionTracker()
    _room_in(tracker, state)
    assert tracker.unsubscribe_room("r") is None
    assert tracker.room_status("r") is ROOM_STATUS[state]


def test_room_claim_current_only_pending(subscriptions_impl: ModuleType) -> None:
    tracker = subscriptions_impl.SubscriptionTracker()
    for state in ALL_STATES:
        room = f"room-{state}"
        current = _room_in(tracker, state, room)
        assert tracker.is_room_claim_current(room, max(current, 0)) is (state == "pending")
        assert tracker.is_room_subscribed(room) is (state == "subscribed")


def test_subscribed_order_is_order_of_becoming_subscribed(
    subscriptions_impl: ModuleType,
) -> None:
    tracker = subscriptions_impl.SubscriptionTracker()
    ta = tracker.begin_room_subscribe("a")
    tb = tracker.begin_room_subscribe("b")
    tc = tracker.begin_room_subscribe("c")
    assert tracker.record_both_room_topics_joined("c", tc) is R.Subscribed
    assert tracker.record_both_room_topics_joined("a", ta) is R.Subscribed
    assert tracker.record_both_room_topics_joined("b", tb) is R.Subscribed
    assert tracker.subscribed_room_ids() == ["c", "a", "b"]
    assert tracker.room_rejoin_candidates() == [("c", tc), ("a", ta), ("b", tb)]
    # leave and rejoin "c": it moves to the end
    leave = tracker.unsubscribe_room("c")
    assert tracker.mark_room_leave_complete("c", leave, LeaveOutcome.Left) is True
    tc2 = tracker.begin_room_subscribe("c")
    assert tracker.record_both_room_topics_joined("c", tc2) is R.Subscribed
    assert tracker.subscribed_room_ids() == ["a", "b", "c"]
    assert tracker.room_rejoin_candidates() == [("a", ta), ("b", tb), ("c", tc2)]
    assert isinstance(tracker.subscribed_room_ids(), list)
    assert tracker.subscribed_room_ids() is not tracker.subscribed_room_ids()


def test_end_session_and_on_reconnected(subscriptions_impl: ModuleType) -> None:
    tracker = subscriptions_impl.SubscriptionTracker()
    for state in ALL_STATES:
        _room_in(tracker, state, f"room-{state}")
    join = tracker.begin_agent_topic_join("t")
    snapshot = (
        [tracker.room_status(f"room-{s}") for s in ALL_STATES],
        tracker.subscribed_room_ids(),
        tracker.room_rejoin_candidates(),
        tracker.is_agent_topic_claim_current("t", join),
    )
    assert tracker.on_reconnected() is None
    after = (
        [tracker.room_status(f"room-{s}") for s in ALL_STATES],
        tracker.subscribed_room_ids(),
        tracker.room_rejoin_candidates(),
        tracker.is_agent_topic_claim_current("t", join),
    )
    assert after == snapshot
    next_ticket = tracker.begin_room_subscribe("fresh")
    assert tracker.end_session() is None
    for state in ALL_STATES:
        assert tracker.room_status(f"room-{state}") is RoomStatus.Absent
    assert tracker.agent_topic_status("t") is AgentTopicStatus.Absent
    assert tracker.subscribed_room_ids() == []
    assert tracker.joined_agent_topics() == []
    # the ticket counter is never reset
    assert tracker.begin_room_subscribe("room-pending") == next_ticket + 1


def test_shared_ticket_counter(subscriptions_impl: ModuleType) -> None:
    tracker = subscriptions_impl.SubscriptionTracker()
    assert tracker.begin_room_subscribe("r") == 0
    assert tracker.begin_agent_topic_join("t") == 1
    assert tracker.begin_room_subscribe("r") is None
    assert tracker.begin_agent_topic_join("t") is None
    assert tracker.unsubscribe_room("r") is None
    assert tracker.leave_agent_topic("t") is None
    assert tracker.record_both_room_topics_joined("r", 0) is R.Subscribed
    assert tracker.record_agent_topic_join("t", 1, True) is True
    assert tracker.unsubscribe_room("r") == 2
    assert tracker.leave_agent_topic("t") == 3
    assert tracker.begin_room_subscribe("r2") == 4


def test_rooms_and_topics_are_independent(subscriptions_impl: ModuleType) -> None:
    tracker = subscriptions_impl.SubscriptionTracker()
    room = tracker.begin_room_subscribe("same")
    topic = tracker.begin_agent_topic_join("same")
    assert topic == room + 1
    assert tracker.room_status("same") is RoomStatus.Pending
    assert tracker.agent_topic_status("same") is AgentTopicStatus.Pending
    assert tracker.record_agent_topic_join("same", room, True) is False
    assert tracker.record_both_room_topics_joined("same", topic) is R.Stale
    assert tracker.record_both_room_topics_joined("same", room) is R.Subscribed
    assert tracker.agent_topic_status("same") is AgentTopicStatus.Pending


def test_readme_lifecycle(subscriptions_impl: ModuleType) -> None:
    tracker = subscriptions_impl.SubscriptionTracker()
    ticket = tracker.begin_room_subscribe("room-1")
    assert ticket is not None
    result = tracker.record_room_participants_join_failed("room-1", ticket, False)
    assert result is R.RollbackFailed
    assert tracker.room_status("room-1") is RoomStatus.NeedsReconciliation
    assert tracker.begin_room_subscribe("room-1") is None
    assert tracker.acknowledge_room_reconciled("room-1") is True
    ticket = tracker.begin_room_subscribe("room-1")
    assert ticket is not None
    assert tracker.record_both_room_topics_joined("room-1", ticket) is R.Subscribed
    leave_ticket = tracker.unsubscribe_room("room-1")
    assert leave_ticket is not None
    assert tracker.mark_room_leave_complete("room-1", leave_ticket, LeaveOutcome.Left) is True
    assert tracker.room_status("room-1") is RoomStatus.Absent


# --------------------------------------------------------------------------- agent topics

TOPIC_STATUS = {
    "absent": AgentTopicStatus.Absent,
    "pending": AgentTopicStatus.Pending,
    "joined": AgentTopicStatus.Joined,
    "leaving": AgentTopicStatus.Leaving,
    "reconcile": AgentTopicStatus.NeedsReconciliation,
}
TOPIC_STATES = list(TOPIC_STATUS)


def _topic_in(tracker: Any, state: str, topic: str = "t") -> int:
    """Drive ``topic`` into ``state``; return its current ticket (-1 when Absent)."""
    if state == "absent":
        return -1
    ticket = tracker.begin_agent_topic_join(topic)
    if state == "pending":
        return ticket
    if state == "reconcile":
        assert tracker.record_agent_topic_join_ambiguous(topic, ticket) is True
        return ticket
    assert tracker.record_agent_topic_join(topic, ticket, True) is True
    if state == "joined":
        return ticket
    assert state == "leaving"
    return tracker.leave_agent_topic(topic)


@pytest.mark.parametrize("state", TOPIC_STATES)
def test_topic_begin(subscriptions_impl: ModuleType, state: str) -> None:
    tracker = subscriptions_impl.SubscriptionTracker()
    _topic_in(tracker, state)
    ticket = tracker.begin_agent_topic_join("t")
    if state == "absent":
        assert ticket == 0
        assert tracker.agent_topic_status("t") is AgentTopicStatus.Pending
        assert tracker.is_agent_topic_claim_current("t", 0) is True
    else:
        assert ticket is None
        assert tracker.agent_topic_status("t") is TOPIC_STATUS[state]


def test_topic_join_recorded(subscriptions_impl: ModuleType) -> None:
    tracker = subscriptions_impl.SubscriptionTracker()
    ticket = _topic_in(tracker, "pending")
    assert tracker.record_agent_topic_join("t", ticket, True) is True
    assert tracker.agent_topic_status("t") is AgentTopicStatus.Joined
    assert tracker.is_agent_topic_joined("t") is True
    assert tracker.is_agent_topic_claim_current("t", ticket) is False
    assert tracker.joined_agent_topics() == ["t"]
    assert tracker.agent_topic_rejoin_candidates() == [("t", ticket)]


def test_topic_join_refused(subscriptions_impl: ModuleType) -> None:
    tracker = subscriptions_impl.SubscriptionTracker()
    ticket = _topic_in(tracker, "pending")
    assert tracker.record_agent_topic_join("t", ticket, False) is False
    assert tracker.agent_topic_status("t") is AgentTopicStatus.Absent
    assert tracker.begin_agent_topic_join("t") == ticket + 1


def test_topic_join_ambiguous(subscriptions_impl: ModuleType) -> None:
    tracker = subscriptions_impl.SubscriptionTracker()
    ticket = _topic_in(tracker, "pending")
    assert tracker.record_agent_topic_join_ambiguous("t", ticket + 1) is False
    assert tracker.record_agent_topic_join_ambiguous("t", ticket) is True
    assert tracker.agent_topic_status("t") is AgentTopicStatus.NeedsReconciliation
    assert tracker.record_agent_topic_join_ambiguous("t", ticket) is False


@pytest.mark.parametrize("joined", [True, False])
@pytest.mark.parametrize("state", TOPIC_STATES)
def test_topic_records_otherwise(subscriptions_impl: ModuleType, state: str, joined: bool) -> None:
    tracker = subscriptions_impl.SubscriptionTracker()
    current = _topic_in(tracker, state)
    for ticket in {0, 1, 9, max(current, 0)}:
        if state == "pending" and ticket == current:
            continue
        assert tracker.record_agent_topic_join("t", ticket, joined) is False
        assert tracker.record_agent_topic_join_ambiguous("t", ticket) is False
        assert tracker.agent_topic_status("t") is TOPIC_STATUS[state]


@pytest.mark.parametrize("state", TOPIC_STATES)
def test_topic_leave(subscriptions_impl: ModuleType, state: str) -> None:
    tracker = subscriptions_impl.SubscriptionTracker()
    current = _topic_in(tracker, state)
    leave = tracker.leave_agent_topic("t")
    if state == "joined":
        assert leave == current + 1
        assert tracker.agent_topic_status("t") is AgentTopicStatus.Leaving
        assert tracker.joined_agent_topics() == []
        assert tracker.is_agent_topic_claim_current("t", leave) is False
    else:
        assert leave is None
        assert tracker.agent_topic_status("t") is TOPIC_STATUS[state]


# --------------------------------------------------------------------------- rooms and topics
# leaving, reconciling and a failed rejoin follow one set of rules for rooms and agent topics


class Kind(NamedTuple):
    """A kind of subscription the tracker keeps: its key, states and methods."""

    key: str
    drive: Callable[..., int]
    statuses: dict[str, Any]
    status: Any  # the status enum
    live: str  # the state a rejoin can fail from
    begin: str
    status_of: str
    leave_complete: str
    acknowledge: str
    rejoin_failed: str


ROOM = Kind(
    "r", _room_in, ROOM_STATUS, RoomStatus, "subscribed", "begin_room_subscribe", "room_status",
    "mark_room_leave_complete", "acknowledge_room_reconciled", "mark_room_rejoin_failed",
)  # fmt: skip
TOPIC = Kind(
    "t", _topic_in, TOPIC_STATUS, AgentTopicStatus, "joined", "begin_agent_topic_join",
    "agent_topic_status", "mark_agent_topic_leave_complete",
    "acknowledge_agent_topic_reconciled", "mark_agent_topic_rejoin_failed",
)  # fmt: skip
KIND_STATES = [
    pytest.param(kind, state, id=f"{name}-{state}")
    for name, kind in (("room", ROOM), ("topic", TOPIC))
    for state in kind.statuses
]


def _in(impl: ModuleType, kind: Kind, state: str) -> tuple[Any, int, Callable[[], Any]]:
    """A tracker with ``kind``'s key in ``state``: (tracker, current ticket, its status)."""
    tracker = impl.SubscriptionTracker()
    current = kind.drive(tracker, state)
    return tracker, current, lambda: getattr(tracker, kind.status_of)(kind.key)


@pytest.mark.parametrize("outcome", OUTCOMES)
@pytest.mark.parametrize("kind", [ROOM, TOPIC], ids=["room", "topic"])
def test_leave_complete(subscriptions_impl: ModuleType, kind: Kind, outcome: Any) -> None:
    tracker, leave, status = _in(subscriptions_impl, kind, "leaving")
    complete = getattr(tracker, kind.leave_complete)
    after = kind.status.Absent if outcome is LeaveOutcome.Left else kind.status.NeedsReconciliation
    assert complete(kind.key, leave - 1, outcome) is False
    assert complete(kind.key, leave, outcome) is True
    assert status() is after
    assert complete(kind.key, leave, outcome) is False
    assert status() is after


@pytest.mark.parametrize("outcome", OUTCOMES)
@pytest.mark.parametrize(("kind", "state"), KIND_STATES)
def test_leave_complete_otherwise(
    subscriptions_impl: ModuleType, kind: Kind, state: str, outcome: Any
) -> None:
    tracker, current, status = _in(subscriptions_impl, kind, state)
    for ticket in {0, 1, 5, max(current, 0)}:
        if state == "leaving" and ticket == current:
            continue
        assert getattr(tracker, kind.leave_complete)(kind.key, ticket, outcome) is False
        assert status() is kind.statuses[state]


@pytest.mark.parametrize(("kind", "state"), KIND_STATES)
def test_acknowledge_reconciled(subscriptions_impl: ModuleType, kind: Kind, state: str) -> None:
    tracker, _, status = _in(subscriptions_impl, kind, state)
    acknowledge = getattr(tracker, kind.acknowledge)
    if state == "reconcile":
        assert acknowledge(kind.key) is True
        assert status() is kind.status.Absent
        assert getattr(tracker, kind.begin)(kind.key) is not None
    else:
        assert acknowledge(kind.key) is False
        assert status() is kind.statuses[state]


@pytest.mark.parametrize(("kind", "state"), KIND_STATES)
def test_rejoin_failed(subscriptions_impl: ModuleType, kind: Kind, state: str) -> None:
    tracker, current, status = _in(subscriptions_impl, kind, state)
    rejoin_failed = getattr(tracker, kind.rejoin_failed)
    if state == kind.live:
        assert rejoin_failed(kind.key, current + 1) is False
        assert status() is kind.statuses[state]
        assert rejoin_failed(kind.key, current) is True
        assert status() is kind.status.NeedsReconciliation
        assert rejoin_failed(kind.key, current) is False
    else:
        assert rejoin_failed(kind.key, max(current, 0)) is False
        assert status() is kind.statuses[state]


def test_joined_order(subscriptions_impl: ModuleType) -> None:
    tracker = subscriptions_impl.SubscriptionTracker()
    tx = tracker.begin_agent_topic_join("x")
    ty = tracker.begin_agent_topic_join("y")
    assert tracker.record_agent_topic_join("y", ty, True) is True
    assert tracker.record_agent_topic_join("x", tx, True) is True
    assert tracker.joined_agent_topics() == ["y", "x"]
    assert tracker.agent_topic_rejoin_candidates() == [("y", ty), ("x", tx)]


# --------------------------------------------------------------------------- argument errors

TICKET_METHODS = [
    ("record_chat_room_join_failed", ()),
    ("record_both_room_topics_joined", ()),
    ("record_room_participants_join_failed", (True,)),
    ("is_room_claim_current", ()),
    ("mark_room_leave_complete", (LeaveOutcome.Left,)),
    ("mark_room_rejoin_failed", ()),
    ("record_agent_topic_join", (True,)),
    ("record_agent_topic_join_ambiguous", ()),
    ("is_agent_topic_claim_current", ()),
    ("mark_agent_topic_leave_complete", (LeaveOutcome.Left,)),
    ("mark_agent_topic_rejoin_failed", ()),
]
STR_METHODS = [
    "begin_room_subscribe",
    "is_room_subscribed",
    "room_status",
    "unsubscribe_room",
    "acknowledge_room_reconciled",
    "begin_agent_topic_join",
    "is_agent_topic_joined",
    "agent_topic_status",
    "leave_agent_topic",
    "acknowledge_agent_topic_reconciled",
]


@pytest.mark.parametrize(("name", "rest"), TICKET_METHODS)
def test_ticket_overflow(subscriptions_impl: ModuleType, name: str, rest: tuple[Any, ...]) -> None:
    method = getattr(subscriptions_impl.SubscriptionTracker(), name)
    with pytest.raises(OverflowError) as info:
        method("r", -1, *rest)
    assert str(info.value) == "can't convert negative int to unsigned"
    with pytest.raises(OverflowError) as info:
        method("r", U64, *rest)
    assert str(info.value) == "int too big to convert"
    with pytest.raises(OverflowError):
        method("r", -(2**80), *rest)
    assert method("r", U64 - 1, *rest) in (False, R.Stale)
    for bad in (1.0, "1", None):
        with pytest.raises(TypeError):
            method("r", bad, *rest)


def test_bool_ticket_is_an_int(subscriptions_impl: ModuleType) -> None:
    tracker = subscriptions_impl.SubscriptionTracker()
    tracker.begin_room_subscribe("zero")
    assert tracker.begin_room_subscribe("r") == 1
    assert tracker.is_room_claim_current("r", True) is True
    assert tracker.record_both_room_topics_joined("r", True) is R.Subscribed


@pytest.mark.parametrize("name", STR_METHODS)
def test_str_arguments(subscriptions_impl: ModuleType, name: str) -> None:
    _str_only(getattr(subscriptions_impl.SubscriptionTracker(), name))


@pytest.mark.parametrize(("name", "rest"), TICKET_METHODS)
def test_str_checked_before_ticket(
    subscriptions_impl: ModuleType, name: str, rest: tuple[Any, ...]
) -> None:
    method = getattr(subscriptions_impl.SubscriptionTracker(), name)
    with pytest.raises(TypeError) as info:
        method(b"r", -1, *rest)
    assert str(info.value) == "'bytes' object is not an instance of 'str'"


@pytest.mark.parametrize("bad", [1, 0, None, "true"])
def test_bool_flags_must_be_exact(subscriptions_impl: ModuleType, bad: object) -> None:
    tracker = subscriptions_impl.SubscriptionTracker()
    ticket = tracker.begin_room_subscribe("r")
    topic = tracker.begin_agent_topic_join("t")
    _refused(
        bad,
        "bool",
        lambda: tracker.record_room_participants_join_failed("r", ticket, bad),
        lambda: tracker.record_agent_topic_join("t", topic, bad),
    )
    assert tracker.room_status("r") is RoomStatus.Pending
    assert tracker.agent_topic_status("t") is AgentTopicStatus.Pending


@pytest.mark.parametrize("bad", ["left", None, 0, RoomStatus.Absent])
def test_leave_outcome_must_be_member(subscriptions_impl: ModuleType, bad: object) -> None:
    tracker = subscriptions_impl.SubscriptionTracker()
    leave = _room_in(tracker, "leaving")
    _refused(
        bad,
        "LeaveOutcome",
        lambda: tracker.mark_room_leave_complete("r", leave, bad),
        lambda: tracker.mark_agent_topic_leave_complete("t", 0, bad),
    )
    assert tracker.room_status("r") is RoomStatus.Leaving


def test_keyword_arguments(subscriptions_impl: ModuleType) -> None:
    tracker = subscriptions_impl.SubscriptionTracker()
    ticket = tracker.begin_room_subscribe(room_id="r")
    assert (
        tracker.record_room_participants_join_failed(
            room_id="r", ticket=ticket, chat_room_left=True
        )
        is R.RolledBack
    )
    topic = tracker.begin_agent_topic_join(topic="t")
    assert tracker.record_agent_topic_join(topic="t", ticket=topic, joined=True) is True
    leave = tracker.leave_agent_topic(topic="t")
    assert tracker.mark_agent_topic_leave_complete(
        topic="t", ticket=leave, outcome=LeaveOutcome.Left
    )
    with pytest.raises(TypeError):
        subscriptions_impl.SubscriptionTracker(1)


def test_str_subclass_keys(subscriptions_impl: ModuleType) -> None:
    class Name(str):
        pass

    tracker = subscriptions_impl.SubscriptionTracker()
    ticket = tracker.begin_room_subscribe(Name("r"))
    assert tracker.record_both_room_topics_joined("r", ticket) is R.Subscribed
    [room] = tracker.subscribed_room_ids()
    assert room == "r"
    assert type(room) is str


# --------------------------------------------------------------------------- class behaviour


def test_class_behaviour(subscriptions_impl: ModuleType) -> None:
    info: pytest.ExceptionInfo[BaseException]
    cls = subscriptions_impl.SubscriptionTracker
    tracker = cls()
    assert cls.__module__ == "band_sdk_core"
    assert repr(tracker).startswith("<band_sdk_core.SubscriptionTracker object at 0x")
    with pytest.raises(TypeError) as info:

        class Sub(cls):  # type: ignore[misc, valid-type]
            pass

    assert (
        str(info.value) == "type 'band_sdk_core.SubscriptionTracker' is not an acceptable base type"
    )
    for dump in (pickle.dumps, copy.copy, copy.deepcopy):
        with pytest.raises(TypeError) as info:
            dump(tracker)
        assert str(info.value) == "cannot pickle 'band_sdk_core.SubscriptionTracker' object"
    with pytest.raises(AttributeError) as info:
        tracker.extra = 1
    assert str(info.value) == "'band_sdk_core.SubscriptionTracker' object has no attribute 'extra'"
    with pytest.raises(AttributeError):
        tracker.room_status = None
    assert not hasattr(tracker, "__dict__")
    assert tracker == tracker
    assert tracker != cls()
    assert hash(tracker) == hash(tracker)


def test_public_names() -> None:
    from band_sdk_core import subscriptions

    assert_exports(
        subscriptions,
        {
            "RoomReconciliation",
            "RoomRoster",
            "SubscriptionTracker",
            "chat_room_topic",
            "room_participants_topic",
        },
    )


# --------------------------------------------------------------------------- model-based


class _Model:
    """Reference model of the two §8 transition tables."""

    def __init__(self) -> None:
        self.next = 0
        self.rooms: dict[str, tuple[str, int]] = {}
        self.topics: dict[str, tuple[str, int]] = {}
        self.room_order: list[str] = []
        self.topic_order: list[str] = []

    def issue(self) -> int:
        self.next += 1
        return self.next - 1

    def set(
        self, table: dict[str, tuple[str, int]], order: list[str], key: str, state: str, ticket: int
    ) -> None:
        if key in order:
            order.remove(key)
        if state == "absent":
            table.pop(key, None)
            return
        table[key] = (state, ticket)
        if state == "active":
            order.append(key)

    def apply(self, op: tuple[Any, ...]) -> Any:
        name, key, ticket, flag, outcome = op
        is_room = name.startswith("room")
        table = self.rooms if is_room else self.topics
        order = self.room_order if is_room else self.topic_order
        state, cur = table.get(key, ("absent", -1))
        same = ticket == cur
        verb = name.split(".", 1)[1]
        if verb == "begin":
            if state != "absent":
                return None
            t = self.issue()
            self.set(table, order, key, "pending", t)
            return t
        if verb == "leave":
            if state != "active":
                return None
            t = self.issue()
            self.set(table, order, key, "leaving", t)
            return t
        if verb in ("joined", "chat_failed", "participants_failed"):
            if state != "pending" or not same:
                return R.Stale
            if verb == "joined":
                self.set(table, order, key, "active", cur)
                return R.Subscribed
            if verb == "chat_failed":
                self.set(table, order, key, "absent", 0)
                return R.JoinFailed
            if flag:
                self.set(table, order, key, "absent", 0)
                return R.RolledBack
            self.set(table, order, key, "reconcile", cur)
            return R.RollbackFailed
        if verb == "join":
            if state != "pending" or not same:
                return False
            self.set(table, order, key, "active" if flag else "absent", cur)
            return flag
        if verb == "ambiguous":
            if state != "pending" or not same:
                return False
            self.set(table, order, key, "reconcile", cur)
            return True
        if verb == "leave_complete":
            if state != "leaving" or not same:
                return False
            new = "absent" if outcome is LeaveOutcome.Left else "reconcile"
            self.set(table, order, key, new, cur)
            return True
        if verb == "ack":
            if state != "reconcile":
                return False
            self.set(table, order, key, "absent", 0)
            return True
        if verb == "rejoin_failed":
            if state != "active" or not same:
                return False
            self.set(table, order, key, "reconcile", cur)
            return True
        if verb == "current":
            return state == "pending" and same
        raise AssertionError(verb)


def _call(tracker: Any, op: tuple[Any, ...]) -> Any:
    name, key, ticket, flag, outcome = op
    calls: dict[str, Callable[[], Any]] = {
        "room.begin": lambda: tracker.begin_room_subscribe(key),
        "room.leave": lambda: tracker.unsubscribe_room(key),
        "room.joined": lambda: tracker.record_both_room_topics_joined(key, ticket),
        "room.chat_failed": lambda: tracker.record_chat_room_join_failed(key, ticket),
        "room.participants_failed": lambda: tracker.record_room_participants_join_failed(
            key, ticket, flag
        ),
        "room.leave_complete": lambda: tracker.mark_room_leave_complete(key, ticket, outcome),
        "room.ack": lambda: tracker.acknowledge_room_reconciled(key),
        "room.rejoin_failed": lambda: tracker.mark_room_rejoin_failed(key, ticket),
        "room.current": lambda: tracker.is_room_claim_current(key, ticket),
        "topic.begin": lambda: tracker.begin_agent_topic_join(key),
        "topic.leave": lambda: tracker.leave_agent_topic(key),
        "topic.join": lambda: tracker.record_agent_topic_join(key, ticket, flag),
        "topic.ambiguous": lambda: tracker.record_agent_topic_join_ambiguous(key, ticket),
        "topic.leave_complete": lambda: tracker.mark_agent_topic_leave_complete(
            key, ticket, outcome
        ),
        "topic.ack": lambda: tracker.acknowledge_agent_topic_reconciled(key),
        "topic.rejoin_failed": lambda: tracker.mark_agent_topic_rejoin_failed(key, ticket),
        "topic.current": lambda: tracker.is_agent_topic_claim_current(key, ticket),
    }
    return calls[name]()


OP_NAMES = [
    "room.begin",
    "room.leave",
    "room.joined",
    "room.chat_failed",
    "room.participants_failed",
    "room.leave_complete",
    "room.ack",
    "room.rejoin_failed",
    "room.current",
    "topic.begin",
    "topic.leave",
    "topic.join",
    "topic.ambiguous",
    "topic.leave_complete",
    "topic.ack",
    "topic.rejoin_failed",
    "topic.current",
    "end_session",
]
OPS = st.lists(
    st.tuples(
        st.sampled_from(OP_NAMES),
        st.sampled_from(["a", "b"]),
        st.integers(0, 12),
        st.booleans(),
        st.sampled_from(OUTCOMES),
    ),
    max_size=60,
)
ROOM_MODEL_STATUS = {
    "absent": RoomStatus.Absent,
    "pending": RoomStatus.Pending,
    "active": RoomStatus.Subscribed,
    "leaving": RoomStatus.Leaving,
    "reconcile": RoomStatus.NeedsReconciliation,
}
TOPIC_MODEL_STATUS = {
    "absent": AgentTopicStatus.Absent,
    "pending": AgentTopicStatus.Pending,
    "active": AgentTopicStatus.Joined,
    "leaving": AgentTopicStatus.Leaving,
    "reconcile": AgentTopicStatus.NeedsReconciliation,
}


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(ops=OPS)
def test_against_model(subscriptions_impl: ModuleType, ops: list[tuple[Any, ...]]) -> None:
    tracker = subscriptions_impl.SubscriptionTracker()
    model = _Model()
    for op in ops:
        if op[0] == "end_session":
            assert tracker.end_session() is None
            model.rooms.clear()
            model.topics.clear()
            model.room_order.clear()
            model.topic_order.clear()
        else:
            assert _call(tracker, op) == model.apply(op), op
        for key in ("a", "b"):
            assert (
                tracker.room_status(key) is ROOM_MODEL_STATUS[model.rooms.get(key, ("absent",))[0]]
            )
            assert (
                tracker.agent_topic_status(key)
                is TOPIC_MODEL_STATUS[model.topics.get(key, ("absent",))[0]]
            )
        assert tracker.subscribed_room_ids() == model.room_order
        assert tracker.joined_agent_topics() == model.topic_order
        assert tracker.room_rejoin_candidates() == [
            (k, model.rooms[k][1]) for k in model.room_order
        ]
        assert tracker.agent_topic_rejoin_candidates() == [
            (k, model.topics[k][1]) for k in model.topic_order
        ]
