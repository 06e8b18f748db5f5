"""Band SDK core: event-payload validation and inbound-delivery runtime state.

Pure computation, no I/O. Hot paths are compiled with Cython when available;
``USING_EXTENSIONS`` tells which implementation is active (decided once, at
import time; set ``BAND_SDK_CORE_NO_EXTENSIONS=1`` before importing to force
the pure-Python one).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

# first: beside the official band-sdk or band-sdk-core this raises ImportError with the fix
from . import _guard  # noqa: F401

# re-exported, but kept out of __all__, which must list exactly the reference's 49 names
from ._compat import USING_EXTENSIONS as USING_EXTENSIONS
from ._enums import (
    AgentTopicKind,
    AgentTopicStatus,
    ClaimOutcome,
    DeadReason,
    EventType,
    LeaveOutcome,
    MemoryListScope,
    MemorySegment,
    MemoryStatus,
    MemoryStoreScope,
    MemorySystem,
    MemoryType,
    ParkedReason,
    RoomMembership,
    RoomStatus,
    RoomSubscribeResult,
    SessionState,
    StaleReason,
    TurnEffect,
    TurnVerdict,
)

__version__ = "6.1.1"

__all__ = [
    "AgentFailure",
    "AgentTopicKind",
    "AgentTopicStatus",
    "CancelledDecisions",
    "ClaimOutcome",
    "ClaimRegistry",
    "DeadReason",
    "DecisionRegistry",
    "EventType",
    "LeaveOutcome",
    "MemoryListScope",
    "MemorySegment",
    "MemoryStatus",
    "MemoryStoreScope",
    "MemorySystem",
    "MemoryType",
    "ParkedReason",
    "ParticipantRoster",
    "RetryTracker",
    "RoomMembership",
    "RoomReconciliation",
    "RoomRoster",
    "RoomStatus",
    "RoomSubscribeResult",
    "Session",
    "SessionOutcome",
    "SessionPolicy",
    "SessionState",
    "StaleReason",
    "SubscriptionTracker",
    "TurnEffect",
    "TurnLedger",
    "TurnVerdict",
    "band_tool_effects",
    "chat_room_topic",
    "classify_close",
    "classify_upgrade",
    "evaluate_adapter_result",
    "evaluate_delivery_event",
    "evaluate_drain_candidate",
    "evaluate_next_message",
    "is_authorized_sender",
    "is_self_echo",
    "missing_reply_message",
    "no_reply_tool",
    "normalize_room_activity_snapshot",
    "room_participants_topic",
    "validate_event_payload",
    "validate_memory_type_for_system",
]

# public name -> facade module that provides it (loaded on first access)
_LAZY: dict[str, str] = {
    "AgentFailure": "failure",
    "CancelledDecisions": "decisions",
    "DecisionRegistry": "decisions",
    "is_authorized_sender": "decisions",
    "ClaimRegistry": "claims",
    "RetryTracker": "retry",
    "ParticipantRoster": "roster",
    "RoomReconciliation": "subscriptions",
    "RoomRoster": "subscriptions",
    "SubscriptionTracker": "subscriptions",
    "chat_room_topic": "subscriptions",
    "room_participants_topic": "subscriptions",
    "Session": "session",
    "SessionOutcome": "session",
    "SessionPolicy": "session",
    "classify_close": "session",
    "classify_upgrade": "session",
    "TurnLedger": "turn",
    "band_tool_effects": "turn",
    "missing_reply_message": "turn",
    "no_reply_tool": "turn",
    "evaluate_adapter_result": "delivery",
    "evaluate_delivery_event": "delivery",
    "evaluate_drain_candidate": "delivery",
    "evaluate_next_message": "delivery",
    "is_self_echo": "delivery",
    "normalize_room_activity_snapshot": "activity",
    "validate_event_payload": "payload",
    "validate_memory_type_for_system": "payload",
}
# the TypedDict return shapes and aliases (pure typing, never compiled)
for _name in (
    "EventIgnored EventCleanup EventSkipSelf EventInvocation EventDecision "
    "NextMessageNoPending NextMessageAlreadyProcessed NextMessageReadyToClaim "
    "NextMessageDecision DrainCandidate DrainNoCandidate DrainOutOfSnapshot DrainSelfEcho "
    "DrainMessage DrainStep AckProcessed AckFailed AckDecision ParkedReasonName "
    "PendingAckProcessed PendingAckFailed PendingAck ToolParameterSpec ToolSpec "
    "DeliveryEligibility SettlementFinished SettlementRetry SettlementContinuation "
    "PendingSettlementProcessed PendingSettlementFailed PendingSettlement "
    "RoomActivitySimple RoomActivityToolCall RoomActivity RoomActivityPeer"
).split():
    _LAZY[_name] = "_types"
del _name


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'band_sdk_core' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"band_sdk_core.{module}"), name)
    globals()[name] = value  # later lookups skip __getattr__
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


if TYPE_CHECKING:
    from ._types import *  # noqa: F403
    from .activity import normalize_room_activity_snapshot
    from .claims import ClaimRegistry
    from .decisions import CancelledDecisions, DecisionRegistry, is_authorized_sender
    from .delivery import (
        evaluate_adapter_result,
        evaluate_delivery_event,
        evaluate_drain_candidate,
        evaluate_next_message,
        is_self_echo,
    )
    from .failure import AgentFailure
    from .payload import validate_event_payload, validate_memory_type_for_system
    from .retry import RetryTracker
    from .roster import ParticipantRoster
    from .session import Session, SessionOutcome, SessionPolicy, classify_close, classify_upgrade
    from .subscriptions import (
        RoomReconciliation,
        RoomRoster,
        SubscriptionTracker,
        chat_room_topic,
        room_participants_topic,
    )
    from .turn import TurnLedger, band_tool_effects, missing_reply_message, no_reply_tool
