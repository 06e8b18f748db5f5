"""The benchmarked band_sdk_core operations, shared by compare.py and the pytest suite.

Each operation names the core topic it exercises and builds a zero-argument
callable from a ``core`` object that offers the public names of
``band_sdk_core`` (the package itself, or one topic's implementation module
with the package behind it). Standard library only: compare.py imports this
module in other interpreters too (``--against``).
"""

from __future__ import annotations

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

    @property
    def slug(self) -> str:
        """Identifier-safe name (pytest ids, history keys)."""
        return re.sub(r"[^a-z0-9]+", "_", self.name.lower()).strip("_")


MESSAGE = {
    "id": "3f1e2d4c-0000-4000-8000-000000000001",
    "content": "@[[agent-1]] could you summarise the thread so far?",
    "message_type": "text",
    "sender_type": "User",
    "sender_id": "user-1",
    "sender_name": "Ada",
    "chat_room_id": "room-1",
    "inserted_at": "2026-12-02T12:00:00.000000Z",
    "updated_at": "2026-12-02T12:00:00.000000Z",
    "metadata": {
        "mentions": [{"id": "agent-1", "handle": "ada/helper", "name": "Helper"}],
        "status": "sent",
    },
    "attachments": [],
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
)
NAMES: tuple[str, ...] = tuple(op.name for op in OPERATIONS)
