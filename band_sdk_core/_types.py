"""TypedDict return shapes and type aliases of the public API (§16)."""

from __future__ import annotations

from typing import Literal as _Literal
from typing import TypedDict as _TypedDict

__all__ = [
    "AckDecision",
    "AckFailed",
    "AckProcessed",
    "DeliveryEligibility",
    "DrainCandidate",
    "DrainMessage",
    "DrainNoCandidate",
    "DrainOutOfSnapshot",
    "DrainSelfEcho",
    "DrainStep",
    "EventCleanup",
    "EventDecision",
    "EventIgnored",
    "EventInvocation",
    "EventSkipSelf",
    "NextMessageAlreadyProcessed",
    "NextMessageDecision",
    "NextMessageNoPending",
    "NextMessageReadyToClaim",
    "ParkedReasonName",
    "PendingAck",
    "PendingAckFailed",
    "PendingAckProcessed",
    "PendingSettlement",
    "PendingSettlementFailed",
    "PendingSettlementProcessed",
    "RoomActivity",
    "RoomActivityPeer",
    "RoomActivitySimple",
    "RoomActivityToolCall",
    "SettlementContinuation",
    "SettlementFinished",
    "SettlementRetry",
    "ToolParameterSpec",
    "ToolSpec",
]


class EventIgnored(_TypedDict):
    """An event this agent does not act on."""

    decision: _Literal["ignored"]
    event_type: str


class EventCleanup(_TypedDict):
    """A room removal: drop local room state."""

    decision: _Literal["cleanup"]
    room_id: str


class EventSkipSelf(_TypedDict):
    """A message this agent sent itself."""

    decision: _Literal["skip_self"]
    room_id: str
    message_id: str


class EventInvocation(_TypedDict):
    """A message that should invoke the agent."""

    decision: _Literal["invocation"]
    room_id: str
    message_id: str
    sender_id: str
    sender_type: str


class NextMessageNoPending(_TypedDict):
    """The room has no open message."""

    decision: _Literal["no_pending"]


class NextMessageAlreadyProcessed(_TypedDict):
    """Another message is next; the trigger was already handled."""

    decision: _Literal["already_processed"]
    next_open_id: str


class NextMessageReadyToClaim(_TypedDict):
    """The triggering message is the next open one."""

    decision: _Literal["ready_to_claim"]


class DrainCandidate(_TypedDict):
    """One fetched drain candidate."""

    id: str
    sender_id: str
    sender_type: str


class DrainNoCandidate(_TypedDict):
    """The fetch returned nothing."""

    decision: _Literal["no_candidate"]


class DrainOutOfSnapshot(_TypedDict):
    """The candidate is outside the snapshot: stop draining."""

    decision: _Literal["out_of_snapshot"]
    message_id: str


class DrainSelfEcho(_TypedDict):
    """The candidate is this agent's own message."""

    decision: _Literal["self_echo"]
    message_id: str


class DrainMessage(_TypedDict):
    """The candidate is in the snapshot: drain it."""

    decision: _Literal["drain"]
    message_id: str


class AckProcessed(_TypedDict):
    """The adapter processed the message."""

    decision: _Literal["processed"]
    room_id: str
    message_id: str


class AckFailed(_TypedDict):
    """The adapter failed the message."""

    decision: _Literal["failed"]
    room_id: str
    message_id: str


ParkedReasonName = _Literal["not_found", "rejected"]


class PendingAckProcessed(_TypedDict):
    """A pending processed acknowledgement."""

    status: _Literal["processed"]
    parked: ParkedReasonName | None


class PendingAckFailed(_TypedDict):
    """A pending failed acknowledgement."""

    status: _Literal["failed"]
    error: str
    parked: ParkedReasonName | None


class ToolParameterSpec(_TypedDict):
    """One parameter of a tool definition."""

    name: str
    description: str
    required: bool


class ToolSpec(_TypedDict):
    """A tool definition."""

    name: str
    description: str
    parameters: list[ToolParameterSpec]


DeliveryEligibility = _Literal[
    "self", "completed", "pending", "inflight", "exhausted", "failed", "runnable"
]


class SettlementFinished(_TypedDict):
    """Settlement needs no retry."""

    kind: _Literal["finished"]


class SettlementRetry(_TypedDict):
    """Settlement continues with a retry."""

    kind: _Literal["retry"]
    attempts: int
    max_retries: int


SettlementContinuation = SettlementFinished | SettlementRetry


class PendingSettlementProcessed(_TypedDict):
    """A pending processed settlement."""

    status: _Literal["processed"]
    parked: ParkedReasonName | None
    token: str
    continuation: SettlementContinuation


class PendingSettlementFailed(_TypedDict):
    """A pending failed settlement."""

    status: _Literal["failed"]
    error: str
    parked: ParkedReasonName | None
    token: str
    continuation: SettlementContinuation


class RoomActivitySimple(_TypedDict):
    """A peer's activity without a tool name."""

    kind: _Literal["reasoning", "memory", "permission"]


class RoomActivityToolCall(_TypedDict):
    """A peer running a tool."""

    kind: _Literal["tool_call"]
    name: str


RoomActivity = RoomActivitySimple | RoomActivityToolCall


class RoomActivityPeer(_TypedDict):
    """Another agent working in the room."""

    agent_id: str
    agent_name: str
    activity: RoomActivity


EventDecision = EventIgnored | EventCleanup | EventSkipSelf | EventInvocation
NextMessageDecision = NextMessageNoPending | NextMessageAlreadyProcessed | NextMessageReadyToClaim
DrainStep = DrainNoCandidate | DrainOutOfSnapshot | DrainSelfEcho | DrainMessage
AckDecision = AckProcessed | AckFailed
PendingAck = PendingAckProcessed | PendingAckFailed
PendingSettlement = PendingSettlementProcessed | PendingSettlementFailed

for _cls in (
    EventIgnored, EventCleanup, EventSkipSelf, EventInvocation, NextMessageNoPending,
    NextMessageAlreadyProcessed, NextMessageReadyToClaim, DrainCandidate, DrainNoCandidate,
    DrainOutOfSnapshot, DrainSelfEcho, DrainMessage, AckProcessed, AckFailed,
    PendingAckProcessed, PendingAckFailed, ToolParameterSpec, ToolSpec, SettlementFinished,
    SettlementRetry, PendingSettlementProcessed, PendingSettlementFailed, RoomActivitySimple,
    RoomActivityToolCall, RoomActivityPeer,
):  # fmt: skip
    _cls.__module__ = "band_sdk_core"
del _cls
