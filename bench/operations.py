"""The benchmarked band_sdk_core operations, shared by compare.py and the pytest suite.

Each operation names the core topic it exercises and builds a zero-argument
callable from a ``core`` object that offers the public names of
``band_sdk_core`` (the package itself, or one topic's implementation module
with the package behind it). Standard library only: compare.py imports this
module in other interpreters too (``--against``).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

Call = Callable[[], object]


@dataclass(frozen=True)
class Operation:
    """One benchmarked operation: display name, core topic and callable factory."""

    name: str
    topic: str
    build: Callable[[Any], Call]
    size: int | None = None  # ids tracked (registries kept full and evicting), if sized

    @property
    def slug(self) -> str:
        """Identifier-safe name (pytest ids, history keys)."""
        return re.sub(r"[^a-z0-9]+", "_", self.name.lower()).strip("_")


# a full message_created payload as the platform sends it: every field, two mentions, one
# attachment and the extra keys a real message carries
MESSAGE = {
    "id": "3f1e2d4c-0000-4000-8000-000000000001",
    "content": "@[[agent-1]] could you summarise the thread so far? @[[agent-2]] please review.",
    "message_type": "text",
    "sender_type": "User",
    "sender_id": "user-1",
    "sender_name": "Ada",
    "chat_room_id": "room-1",
    "inserted_at": "2026-12-02T12:00:00.000000Z",
    "updated_at": "2026-12-02T12:00:00.000000Z",
    "metadata": {
        "mentions": [
            {"id": "agent-1", "handle": "ada/helper", "name": "Helper"},
            {"id": "agent-2", "handle": "ada/reviewer", "name": "Reviewer"},
        ],
        "status": "sent",
        "thread_id": None,
    },
    "attachments": [
        {
            "id": "att-1",
            "filename": "notes.md",
            "content_type": "text/markdown",
            "size": 2048,
            "url": "https://files.example/att-1",
        }
    ],
    "message_source": "web",
    "edited": False,
}
PARTICIPANT = {
    "id": "agent-2",
    "type": "Agent",
    "name": "Reviewer",
    "handle": "ada/reviewer",
    "description": "Reviews code",
    "is_external": False,
}
CONTROL = {
    "mode": "stop",
    "scope": "room",
    "agent_id": "agent-1",
    "correlation_id": "c-1",
    "execution_id": None,
    "room_id": "room-1",
}
INVALID_MESSAGE = {"id": "", "content": 5, "metadata": {"mentions": [{"id": 3}]}}
PEOPLE = [
    {"id": f"p{i}", "name": f"P{i}", "type": "User", "handle": f"h{i}", "description": None}
    for i in range(50)
]
ACTIVITY = {
    "working_agents": [
        {
            "agent_id": f"agent-{i}",
            "agent_name": f"Agent {i}",
            "working": True,
            "activity": {"kind": "tool_call", "name": "search"} if i % 2 else {"kind": "reasoning"},
        }
        for i in range(5)
    ]
}


def _validate(event: str, payload: dict[str, Any]) -> Callable[[Any], Call]:
    def build(core: Any) -> Call:
        return lambda: core.validate_event_payload(event, payload)

    return build


def _invalid_message(core: Any) -> Call:
    def run() -> None:
        try:
            core.validate_event_payload("message_created", INVALID_MESSAGE)
        except ValueError:
            pass

    return run


def _delivery(core: Any) -> Call:
    return lambda: core.evaluate_delivery_event("message_created", "room-1", MESSAGE, "agent-1")


def _roster_add(core: Any) -> Call:
    def run() -> None:
        roster = core.ParticipantRoster()
        for person in PEOPLE:
            roster.add(person)

    return run


def _roster_set_all(core: Any) -> Call:
    return lambda: core.ParticipantRoster().set_all(PEOPLE)


def _roster_list(core: Any) -> Call:
    roster = core.ParticipantRoster()
    roster.set_all(PEOPLE)
    listing: Call = roster.list
    return listing


def _record_attempt(core: Any) -> Call:
    tracker = core.RetryTracker(max_retries=1_000_000_000, max_tracked=100)
    return lambda: tracker.record_attempt("m-1")


def _claim_cycle(core: Any) -> Call:
    claims = core.ClaimRegistry()
    tracker = core.RetryTracker(max_retries=3)
    counter = [0]

    def run() -> None:
        counter[0] += 1
        mid = str(counter[0] % 256)
        claims.guarded_claim("room", mid, tracker)
        tracker.record_attempt(mid)
        pending = claims.record_processed_settlement("room", mid)
        claims.release("room", mid)
        claims.confirm_settlement("room", mid, pending["token"], tracker)

    return run


def _session_cycle(core: Any) -> Call:
    session = core.Session(core.SessionPolicy.default())
    clock = [0.0]

    def run() -> None:
        now = clock[0] = clock[0] + 100.0
        epoch = session.begin_attempt(now)
        session.on_connected(epoch, now)
        session.on_socket_close(epoch, now + 70.0, 1006, 0.5)

    return run


def _ledger_cycle(core: Any) -> Call:
    effects = core.band_tool_effects()
    observe, reply = effects["band_get_participants"], effects["band_send_message"]

    def run() -> None:
        ledger = core.TurnLedger()
        ledger.record(observe)
        ledger.record(reply)
        ledger.reply_settled()
        ledger.settle()
        ledger.verdict()

    return run


def _normalize(core: Any) -> Call:
    return lambda: core.normalize_room_activity_snapshot(ACTIVITY, "agent-0")


# registries at these sizes, full and evicting on every call (bounded by the size)
SIZES = (100, 10_000, 100_000)


def _id_pool(prefix: str, size: int) -> Callable[[], str]:
    """Endless fresh ids: a cycle of 2 * size ids, so each id was evicted before it recurs."""
    return itertools.cycle([f"{prefix}-{i:07d}" for i in range(2 * size)]).__next__


def _attempt_churn(size: int) -> Callable[[Any], Call]:
    def build(core: Any) -> Call:
        tracker = core.RetryTracker(max_retries=3, max_tracked=size)
        fresh = _id_pool("m", size)
        for _ in range(size):
            tracker.record_attempt(fresh())
        record = tracker.record_attempt
        return lambda: record(fresh())

    return build


def _exhausted_churn(size: int) -> Callable[[Any], Call]:
    def build(core: Any) -> Call:
        # max_retries=0: every attempt exhausts, so the attempt map and the
        # permanently-failed set both evict on every call
        tracker = core.RetryTracker(max_retries=0, max_tracked=size)
        fresh = _id_pool("m", size)
        for _ in range(size):
            tracker.record_attempt(fresh())
        record = tracker.record_attempt
        return lambda: record(fresh())

    return build


def _claim_churn(size: int) -> Callable[[Any], Call]:
    def build(core: Any) -> Call:
        claims = core.ClaimRegistry(max_completed=size)
        tracker = core.RetryTracker(max_retries=3, max_tracked=size)
        fresh = _id_pool("m", size)
        for _ in range(size):
            claims.remember_completed("room", fresh())

        def run() -> None:
            mid = fresh()
            claims.guarded_claim("room", mid, tracker)
            tracker.record_attempt(mid)
            pending = claims.record_processed_settlement("room", mid)
            claims.release("room", mid)
            claims.confirm_settlement("room", mid, pending["token"], tracker)  # completes

        return run

    return build


def _full_claims(core: Any, size: int) -> tuple[Any, Any, Callable[[], str]]:
    """A ClaimRegistry and a RetryTracker each holding ``size`` ids, and fresh ids to come."""
    claims = core.ClaimRegistry(max_completed=size)
    tracker = core.RetryTracker(max_retries=3, max_tracked=size)
    fresh = _id_pool("m", size)
    for _ in range(size):
        mid = fresh()
        claims.remember_completed("room", mid)
        tracker.record_attempt(mid)
    return claims, tracker, fresh


def _ack_completion_churn(size: int) -> Callable[[Any], Call]:
    def build(core: Any) -> Call:
        # the ack-pending completion path: every remember_completed evicts the oldest id
        claims, tracker, fresh = _full_claims(core, size)

        def run() -> None:
            mid = fresh()
            claims.guarded_claim("room", mid, tracker)
            tracker.record_attempt(mid)
            claims.remember_ack_pending("room", mid)
            claims.remember_completed("room", mid)
            claims.release("room", mid)

        return run

    return build


def _ack_complete_churn(size: int) -> Callable[[Any], Call]:
    def build(core: Any) -> Call:
        # the two calls of the path above that write the pending entry and the completed list
        claims, _tracker, fresh = _full_claims(core, size)

        def run() -> None:
            mid = fresh()
            claims.remember_ack_pending("room", mid)
            claims.remember_completed("room", mid)

        return run

    return build


def _failed_retry_churn(size: int) -> Callable[[Any], Call]:
    def build(core: Any) -> Call:
        # the reference README's fenced settlement: a failed intent with a retry continuation,
        # confirmed into a replacement tracker (the message stays incomplete, its attempt kept)
        claims, previous, fresh = _full_claims(core, size)
        current = core.RetryTracker(max_retries=3, max_tracked=size)
        for _ in range(size):
            current.record_attempt(fresh())

        def run() -> None:
            mid = fresh()
            claims.guarded_claim("room", mid, previous)
            previous.record_attempt(mid)
            pending = claims.record_failed_settlement("room", mid, "failure", previous, True)
            claims.release("room", mid)
            claims.guarded_claim("room", mid, current)  # "pending"
            claims.confirm_settlement("room", mid, pending["token"], current)
            claims.is_completed("room", mid)

        return run

    return build


def _decision_lifecycle(size: int) -> Callable[[Any], Call]:
    def build(core: Any) -> Call:
        # the reference README's DecisionRegistry lifecycle in a registry holding ``size``
        # asks (other rooms, the older half claimed): register, list, claim twice, cancel
        decisions = core.DecisionRegistry(max_pending=size, seed=7)
        for index in range(size - 1):
            token, ticket = decisions.register_minted(f"room-{index % 100}")
            if index < size // 2:
                decisions.try_claim(token, ticket)
        mint, unclaimed = decisions.register_minted, decisions.unclaimed_in_room
        claim, cancel = decisions.try_claim, decisions.cancel_room

        def run() -> None:
            token, ticket = mint("room-x")
            unclaimed("room-x")
            claim(token, ticket)
            claim(token, ticket)
            cancel("room-x")

        return run

    return build


def _subscription_lifecycle(size: int) -> Callable[[Any], Call]:
    def build(core: Any) -> Call:
        # the reference README's SubscriptionTracker lifecycle (the rollback-failed branch, which
        # runs every call) beside ``size`` subscribed rooms
        tracker = core.SubscriptionTracker()
        for index in range(size):
            room = f"room-{index:07d}"
            tracker.record_both_room_topics_joined(room, tracker.begin_room_subscribe(room))
        left = core.LeaveOutcome.Left

        def run() -> None:
            ticket = tracker.begin_room_subscribe("room-x")
            tracker.record_room_participants_join_failed("room-x", ticket, False)
            tracker.room_status("room-x")
            tracker.acknowledge_room_reconciled("room-x")
            ticket = tracker.begin_room_subscribe("room-x")
            tracker.record_both_room_topics_joined("room-x", ticket)
            leave = tracker.unsubscribe_room("room-x")
            tracker.mark_room_leave_complete("room-x", leave, left)

        return run

    return build


def _decision_churn(size: int) -> Callable[[Any], Call]:
    def build(core: Any) -> Call:
        # the older half claimed (answered, not yet forgotten), the newer half pending:
        # evict_oldest must find the oldest unclaimed behind every claimed entry
        decisions = core.DecisionRegistry(max_pending=size, seed=7)
        for index in range(size):
            token, ticket = decisions.register_minted("room")
            if index < size // 2:
                decisions.try_claim(token, ticket)
        evict, mint = decisions.evict_oldest, decisions.register_minted

        def run() -> None:
            evict()
            mint("room")

        return run

    return build


def _sized() -> tuple[Operation, ...]:
    ops = []
    for size in SIZES:
        ops += [
            Operation(f"retry record_attempt churn @{size:,}", "retry", _attempt_churn(size), size),
            Operation(f"retry exhausted churn @{size:,}", "retry", _exhausted_churn(size), size),
            Operation(f"claim cycle churn (5 calls) @{size:,}", "claims", _claim_churn(size), size),
            Operation(f"decision evict+mint @{size:,}", "decisions", _decision_churn(size), size),
            Operation(
                f"claim ack completion churn (5 calls) @{size:,}",
                "claims",
                _ack_completion_churn(size),
                size,
            ),
            Operation(
                f"claim ack_pending+completed churn @{size:,}",
                "claims",
                _ack_complete_churn(size),
                size,
            ),
            Operation(
                f"claim failed-retry settlement (7 calls) @{size:,}",
                "claims",
                _failed_retry_churn(size),
                size,
            ),
            Operation(
                f"decision lifecycle (5 calls) @{size:,}",
                "decisions",
                _decision_lifecycle(size),
                size,
            ),
            Operation(
                f"subscription lifecycle (8 calls) @{size:,}",
                "subscriptions",
                _subscription_lifecycle(size),
                size,
            ),
        ]
    return tuple(ops)


OPERATIONS: tuple[Operation, ...] = (
    Operation("validate message_created", "payload", _validate("message_created", MESSAGE)),
    Operation("validate participant_added", "payload", _validate("participant_added", PARTICIPANT)),
    Operation("validate agent.control", "payload", _validate("agent.control", CONTROL)),
    Operation("validate invalid message (raising)", "payload", _invalid_message),
    Operation("evaluate_delivery_event", "delivery", _delivery),
    Operation("roster add x50", "roster", _roster_add),
    Operation("roster set_all(50)", "roster", _roster_set_all),
    Operation("roster list(50)", "roster", _roster_list),
    Operation("retry record_attempt", "retry", _record_attempt),
    Operation("claim cycle (5 calls)", "claims", _claim_cycle),
    Operation("session reconnect cycle (3 calls)", "session", _session_cycle),
    Operation("turn ledger cycle (new + 5 calls)", "turn", _ledger_cycle),
    Operation("activity normalize (5 rows)", "activity", _normalize),
    *_sized(),
)
NAMES: tuple[str, ...] = tuple(op.name for op in OPERATIONS)
