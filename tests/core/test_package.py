"""The package surface: names, order, and which implementation is active."""

from __future__ import annotations

import importlib

import pytest

import band_sdk_core as core
from band_sdk_core import _compat

EXPECTED_ALL = """
AgentFailure AgentTopicKind AgentTopicStatus CancelledDecisions ClaimOutcome
ClaimRegistry DeadReason DecisionRegistry EventType LeaveOutcome
MemoryListScope MemorySegment MemoryStatus MemoryStoreScope MemorySystem
MemoryType ParkedReason ParticipantRoster RetryTracker RoomMembership
RoomReconciliation RoomRoster RoomStatus RoomSubscribeResult Session
SessionOutcome SessionPolicy SessionState StaleReason SubscriptionTracker
TurnEffect TurnLedger TurnVerdict band_tool_effects chat_room_topic
classify_close classify_upgrade evaluate_adapter_result
evaluate_delivery_event evaluate_drain_candidate evaluate_next_message
is_authorized_sender is_self_echo missing_reply_message no_reply_tool
normalize_room_activity_snapshot room_participants_topic
validate_event_payload validate_memory_type_for_system
""".split()

TYPED_NAMES = """
EventIgnored EventCleanup EventSkipSelf EventInvocation EventDecision
NextMessageNoPending NextMessageAlreadyProcessed NextMessageReadyToClaim
NextMessageDecision DrainCandidate DrainNoCandidate DrainOutOfSnapshot DrainSelfEcho
DrainMessage DrainStep AckProcessed AckFailed AckDecision ParkedReasonName
PendingAckProcessed PendingAckFailed PendingAck ToolParameterSpec ToolSpec
DeliveryEligibility SettlementFinished SettlementRetry SettlementContinuation
PendingSettlementProcessed PendingSettlementFailed PendingSettlement
RoomActivitySimple RoomActivityToolCall RoomActivity RoomActivityPeer
""".split()


def test_all_is_exact_and_ordered() -> None:
    assert list(core.__all__) == EXPECTED_ALL
    assert len(core.__all__) == 49


def test_every_public_name_resolves() -> None:
    for name in EXPECTED_ALL + TYPED_NAMES:
        assert getattr(core, name) is not None, name
    for name in EXPECTED_ALL:
        obj = getattr(core, name)
        if isinstance(obj, type):
            assert obj.__module__ == "band_sdk_core", name


def test_star_import_gives_all_names() -> None:
    namespace: dict[str, object] = {}
    exec("from band_sdk_core import *", namespace)
    assert set(EXPECTED_ALL) <= set(namespace)


def test_unknown_attribute_raises_attribute_error() -> None:
    try:
        core.does_not_exist  # type: ignore[attr-defined]  # noqa: B018
    except AttributeError as error:
        assert "does_not_exist" in str(error)
    else:
        raise AssertionError("expected AttributeError")


def test_using_extensions_matches_environment() -> None:
    assert core.USING_EXTENSIONS is _compat.USING_EXTENSIONS
    if _compat.env_flag("BAND_SDK_CORE_NO_EXTENSIONS"):
        assert core.USING_EXTENSIONS is False
        assert core.RetryTracker.__module__ == "band_sdk_core"
    if _compat.env_flag("BAND_SDK_CORE_REQUIRE_EXTENSIONS") and not _compat.env_flag(
        "BAND_SDK_CORE_NO_EXTENSIONS"
    ):
        assert core.USING_EXTENSIONS is True
        from band_sdk_core import _retry_c

        assert core.RetryTracker is _retry_c.RetryTracker


@pytest.mark.compiled
def test_every_hot_module_is_compiled() -> None:
    if not core.USING_EXTENSIONS:  # REQUIRE_EXTENSIONS=1 fails at import instead
        pytest.skip("the compiled modules are not built")
    for name in _compat.COMPILED_MODULES:
        module = importlib.import_module(f"band_sdk_core.{name}")
        assert module.__file__ is not None
        assert not module.__file__.endswith(".py"), name
    from band_sdk_core import _activity_c, _delivery_c, _payload_c

    assert core.validate_event_payload is _payload_c.validate_event_payload
    assert core.evaluate_delivery_event is _delivery_c.evaluate_delivery_event
    assert core.normalize_room_activity_snapshot is _activity_c.normalize_room_activity_snapshot
