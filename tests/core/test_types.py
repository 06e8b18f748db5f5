"""TypedDict return shapes and aliases (spec §16)."""

from __future__ import annotations

import typing
from typing import Literal, get_args, get_type_hints

import pytest

import band_sdk_core
from band_sdk_core import _types

FIELDS = {
    "EventIgnored": ["decision", "event_type"],
    "EventCleanup": ["decision", "room_id"],
    "EventSkipSelf": ["decision", "room_id", "message_id"],
    "EventInvocation": ["decision", "room_id", "message_id", "sender_id", "sender_type"],
    "NextMessageNoPending": ["decision"],
    "NextMessageAlreadyProcessed": ["decision", "next_open_id"],
    "NextMessageReadyToClaim": ["decision"],
    "DrainCandidate": ["id", "sender_id", "sender_type"],
    "DrainNoCandidate": ["decision"],
    "DrainOutOfSnapshot": ["decision", "message_id"],
    "DrainSelfEcho": ["decision", "message_id"],
    "DrainMessage": ["decision", "message_id"],
    "AckProcessed": ["decision", "room_id", "message_id"],
    "AckFailed": ["decision", "room_id", "message_id"],
    "PendingAckProcessed": ["status", "parked"],
    "PendingAckFailed": ["status", "error", "parked"],
    "ToolParameterSpec": ["name", "description", "required"],
    "ToolSpec": ["name", "description", "parameters"],
    "SettlementFinished": ["kind"],
    "SettlementRetry": ["kind", "attempts", "max_retries"],
    "PendingSettlementProcessed": ["status", "parked", "token", "continuation"],
    "PendingSettlementFailed": ["status", "error", "parked", "token", "continuation"],
    "RoomActivitySimple": ["kind"],
    "RoomActivityToolCall": ["kind", "name"],
    "RoomActivityPeer": ["agent_id", "agent_name", "activity"],
}
ALIASES = {
    "EventDecision": ["EventIgnored", "EventCleanup", "EventSkipSelf", "EventInvocation"],
    "NextMessageDecision": [
        "NextMessageNoPending",
        "NextMessageAlreadyProcessed",
        "NextMessageReadyToClaim",
    ],
    "DrainStep": ["DrainNoCandidate", "DrainOutOfSnapshot", "DrainSelfEcho", "DrainMessage"],
    "AckDecision": ["AckProcessed", "AckFailed"],
    "PendingAck": ["PendingAckProcessed", "PendingAckFailed"],
    "SettlementContinuation": ["SettlementFinished", "SettlementRetry"],
    "PendingSettlement": ["PendingSettlementProcessed", "PendingSettlementFailed"],
    "RoomActivity": ["RoomActivitySimple", "RoomActivityToolCall"],
}


@pytest.mark.parametrize("name", sorted(FIELDS))
def test_typed_dict_fields(name: str) -> None:
    cls = getattr(band_sdk_core, name)
    assert cls is getattr(_types, name)
    assert typing.is_typeddict(cls)
    assert cls.__total__ is True
    assert list(get_type_hints(cls)) == FIELDS[name]
    assert cls.__required_keys__ == frozenset(FIELDS[name])
    assert cls.__module__ == "band_sdk_core"


@pytest.mark.parametrize("name", sorted(ALIASES))
def test_union_aliases(name: str) -> None:
    alias = getattr(band_sdk_core, name)
    assert list(get_args(alias)) == [getattr(_types, member) for member in ALIASES[name]]


def test_literal_aliases_and_field_types() -> None:
    assert get_args(band_sdk_core.ParkedReasonName) == ("not_found", "rejected")
    assert get_args(band_sdk_core.DeliveryEligibility) == (
        "self",
        "completed",
        "pending",
        "inflight",
        "exhausted",
        "failed",
        "runnable",
    )
    hints = get_type_hints(band_sdk_core.EventInvocation)
    assert hints["decision"] == Literal["invocation"]
    assert hints["sender_type"] is str
    assert (
        get_type_hints(band_sdk_core.RoomActivitySimple)["kind"]
        == Literal["reasoning", "memory", "permission"]
    )
    assert (
        get_type_hints(band_sdk_core.PendingAckFailed)["parked"]
        == band_sdk_core.ParkedReasonName | None
    )
    assert (
        get_type_hints(band_sdk_core.ToolSpec)["parameters"]
        == list[band_sdk_core.ToolParameterSpec]
    )
    assert get_type_hints(band_sdk_core.SettlementRetry)["attempts"] is int


def test_no_typing_helpers_leak() -> None:
    # "@py_builtins"/"@pytest_ar": pytest's assertion rewriting, which covers every module of a
    # distribution with a pytest11 entry point (band.testing's), not names of the module's own
    public = {name for name in vars(_types) if not name.startswith(("_", "@"))}
    assert public == set(_types.__all__) | {"annotations"}
    for leaked in ("TypedDict", "Literal", "Union"):
        assert not hasattr(_types, leaked)
    assert sorted(_types.__all__) == sorted(
        [*FIELDS, *ALIASES, "ParkedReasonName", "DeliveryEligibility"]
    )
