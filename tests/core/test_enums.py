"""The closed enum-like classes (spec §2.4), shared by both implementations."""

from __future__ import annotations

import copy
import pickle

import pytest

import band_sdk_core as core

WIRE = {
    "EventType": [
        ("MessageCreated", "message_created"),
        ("MessageUpdated", "message_updated"),
        ("RoomAdded", "room_added"),
        ("RoomRemoved", "room_removed"),
        ("RoomDeleted", "room_deleted"),
        ("ParticipantAdded", "participant_added"),
        ("ParticipantRemoved", "participant_removed"),
        ("ContactRequestReceived", "contact_request_received"),
        ("ContactRequestUpdated", "contact_request_updated"),
        ("ContactAdded", "contact_added"),
        ("ContactRemoved", "contact_removed"),
        ("Supersede", "supersede"),
        ("AgentControl", "agent.control"),
        ("EventCreated", "event_created"),
    ],
    "MemorySystem": [("Sensory", "sensory"), ("Working", "working"), ("LongTerm", "long_term")],
    "MemoryType": [
        ("Iconic", "iconic"),
        ("Echoic", "echoic"),
        ("Haptic", "haptic"),
        ("Episodic", "episodic"),
        ("Semantic", "semantic"),
        ("Procedural", "procedural"),
    ],
    "MemorySegment": [
        ("User", "user"),
        ("Agent", "agent"),
        ("Tool", "tool"),
        ("Guideline", "guideline"),
    ],
    "MemoryStoreScope": [("Subject", "subject"), ("Organization", "organization")],
    "MemoryListScope": [("Subject", "subject"), ("Organization", "organization"), ("All", "all")],
    "MemoryStatus": [
        ("Active", "active"),
        ("Superseded", "superseded"),
        ("Archived", "archived"),
        ("All", "all"),
    ],
    "ParkedReason": [("NotFound", "not_found"), ("Rejected", "rejected")],
    "TurnEffect": [
        ("Observe", "observe"),
        ("Act", "act"),
        ("Reply", "reply"),
        ("Decline", "decline"),
    ],
    "TurnVerdict": [("Complete", "complete"), ("MissingReply", "missing_reply")],
    "AgentTopicKind": [
        ("Control", "agent_control"),
        ("Rooms", "agent_rooms"),
        ("Contacts", "agent_contacts"),
    ],
}
VALUES = {
    "RoomSubscribeResult": [
        ("Subscribed", "subscribed"),
        ("JoinFailed", "join_failed"),
        ("RolledBack", "rolled_back"),
        ("RollbackFailed", "rollback_failed"),
        ("Stale", "stale"),
    ],
    "RoomStatus": [
        ("Absent", "absent"),
        ("Pending", "pending"),
        ("Subscribed", "subscribed"),
        ("Leaving", "leaving"),
        ("NeedsReconciliation", "needs_reconciliation"),
    ],
    "AgentTopicStatus": [
        ("Absent", "absent"),
        ("Pending", "pending"),
        ("Joined", "joined"),
        ("Leaving", "leaving"),
        ("NeedsReconciliation", "needs_reconciliation"),
    ],
    "LeaveOutcome": [("Left", "left"), ("Failed", "failed"), ("Unknown", "unknown")],
    "SessionState": [
        ("Connecting", "connecting"),
        ("Up", "up"),
        ("Reconnecting", "reconnecting"),
        ("Dead", "dead"),
    ],
    "DeadReason": [("Classified", "classified"), ("RapidDisconnect", "rapid_disconnect")],
    "StaleReason": [
        ("WrongEpoch", "wrong_epoch"),
        ("ClockRegression", "clock_regression"),
        ("DuplicateConnected", "duplicate_connected"),
        ("SupersedePredatesEpoch", "supersede_predates_epoch"),
    ],
    "RoomMembership": [
        ("Unadmitted", "unadmitted"),
        ("Admitting", "admitting"),
        ("Admitted", "admitted"),
    ],
    "ClaimOutcome": [
        ("Claimed", "claimed"),
        ("AlreadyClaimed", "already_claimed"),
        ("Stale", "stale"),
    ],
}
ALL = {**WIRE, **VALUES}
MEMBERS = [
    (cls, name, label, i) for cls, rows in ALL.items() for i, (name, label) in enumerate(rows)
]


@pytest.mark.parametrize(("cls_name", "name", "label", "index"), MEMBERS)
def test_member_basics(cls_name: str, name: str, label: str, index: int) -> None:
    cls = getattr(core, cls_name)
    member = getattr(cls, name)
    assert repr(member) == f"{cls_name}.{name}"
    assert str(member) == label
    assert f"{member}" == label
    assert int(member) == index
    assert bool(member) is True
    assert member == member
    assert member != label
    assert member != index
    assert (member == None) is False  # noqa: E711
    attr = "wire_name" if cls_name in WIRE else "value"
    assert getattr(member, attr) == label
    assert type(member).__module__ == "band_sdk_core"


@pytest.mark.parametrize(("cls_name", "name", "label", "index"), MEMBERS)
def test_wire_lookup_returns_singleton(cls_name: str, name: str, label: str, index: int) -> None:
    cls = getattr(core, cls_name)
    if cls_name not in WIRE:
        assert not hasattr(cls, "from_wire_name")
        return
    assert cls.from_wire_name(label) is getattr(cls, name)
    assert cls.from_wire_name(name=label) is getattr(cls, name)
    assert getattr(cls, name).from_wire_name(label) is getattr(cls, name)
    assert cls.from_wire_name(label.upper() + "x") is None


@pytest.mark.parametrize("cls_name", sorted(ALL))
def test_class_restrictions(cls_name: str) -> None:
    cls = getattr(core, cls_name)
    member = getattr(cls, ALL[cls_name][0][0])
    with pytest.raises(TypeError, match=f"cannot create 'band_sdk_core.{cls_name}' instances"):
        cls()
    with pytest.raises(TypeError):
        hash(member)
    with pytest.raises(TypeError):
        member < member  # noqa: B015
    with pytest.raises(TypeError):
        [1, 2][member]  # type: ignore[index]
    with pytest.raises(TypeError, match=f"cannot pickle 'band_sdk_core.{cls_name}' object"):
        pickle.dumps(member)
    with pytest.raises(TypeError):
        copy.copy(member)
    with pytest.raises(TypeError):
        format(member, ">20")
    with pytest.raises(TypeError):
        iter(cls)  # type: ignore[call-overload]
    with pytest.raises(TypeError):
        type("Sub", (cls,), {})
    attr = "wire_name" if cls_name in WIRE else "value"
    with pytest.raises(
        AttributeError,
        match=f"attribute '{attr}' of 'band_sdk_core.{cls_name}' objects is not writable",
    ):
        setattr(member, attr, "x")
    with pytest.raises(AttributeError):
        member.other = 1  # type: ignore[attr-defined]


def test_from_wire_name_rejects_non_str() -> None:
    with pytest.raises(TypeError, match="'int' object is not an instance of 'str'"):
        core.EventType.from_wire_name(1)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="'None' is not an instance of 'str'"):
        core.EventType.from_wire_name(None)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="'EventType' object is not an instance of 'str'"):
        core.EventType.from_wire_name(core.EventType.Supersede)  # type: ignore[arg-type]


def test_wire_names_are_exact() -> None:
    assert core.EventType.from_wire_name("") is None
    assert core.EventType.from_wire_name("Supersede") is None
    assert core.EventType.from_wire_name(" supersede") is None
    assert core.EventType.from_wire_name("agent_control") is None


def test_members_of_different_classes_differ() -> None:
    assert core.MemoryListScope.All != core.MemoryStatus.All
    assert core.RoomStatus.Subscribed != core.RoomSubscribeResult.Subscribed


def test_agent_topic_kind_topic() -> None:
    assert core.AgentTopicKind.Control.topic("a1") == "agent_control:a1"
    assert core.AgentTopicKind.Rooms.topic("") == "agent_rooms:"
    assert core.AgentTopicKind.Contacts.topic("x:y") == "agent_contacts:x:y"
    with pytest.raises(TypeError):
        core.AgentTopicKind.Control.topic(1)  # type: ignore[arg-type]
