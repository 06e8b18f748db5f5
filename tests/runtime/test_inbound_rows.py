"""Validated pushes as the runtime's typed rows: nothing the validator passes is dropped later.

band_sdk_core's validator checks the fields it knows and passes extras through; the typed
decoding after it (``Inbound`` rows, ``Supersede``, ``AgentControl``) must accept whatever it
passed, and the adapter still gets the validated dict itself.
"""

from __future__ import annotations

from band.core.wire import (
    AgentControl,
    ParticipantRemoved,
    RoomAdded,
    RoomRemoved,
    Supersede,
    decode_as,
)
from band.runtime.pushes import validated
from band.runtime.rooms.messages import delivery_status, inbound

MESSAGE = {
    "id": "m1",
    "content": "hi",
    "message_type": "text",
    "sender_id": "u1",
    "sender_type": "User",
    "inserted_at": "2026-12-05T05:00:00Z",
    "updated_at": "2026-12-05T05:00:00Z",
}


def test_a_message_with_odd_extras_and_attachment_fields_is_kept() -> None:
    payload = {
        **MESSAGE,
        "attachments": [{"id": "f1", "bytes": "lots", "has_thumb": "no"}],
        "reactions": {"+1": 3},
        "thread_id": 5,
        "metadata": {"delivery_status": {"a1": {"status": "processed"}}},
    }
    message = validated("message_created", payload)
    assert message is not None
    item = inbound(message)
    assert item is not None
    assert item.raw is message  # adapters get the validated dict itself
    assert item.row.id == "m1" and item.row.attachments == [
        {"id": "f1", "bytes": "lots", "has_thumb": "no"}
    ]
    assert delivery_status(item.row, "a1") == "processed"
    assert delivery_status(item.row, "someone-else") is None


def test_a_row_of_the_wrong_shape_is_refused_at_the_edge() -> None:
    assert inbound({**MESSAGE, "id": 7}) is None  # a REST row the validator never saw
    assert inbound(["not", "a", "row"]) is None
    assert inbound(None) is None


def test_control_pushes_decode_whatever_the_validator_passed() -> None:
    raw = {
        "reason": "superseded",
        "message": "m",
        "correlation_id": None,
        "retryable": "yes",
        "retry_after": "soon",
        "target_socket_id": 5,
    }
    superseded = validated("supersede", raw)
    assert superseded is not None
    assert decode_as(Supersede, superseded) == Supersede(
        reason="superseded", message="m", retryable=False
    )
    control = validated(
        "agent.control",
        {
            "mode": "stop",
            "scope": "room",
            "agent_id": "a1",
            "correlation_id": "c1",
            "execution_id": None,
            "room_id": "r1",
            "extra": [1],
        },
    )
    assert control is not None
    typed = decode_as(AgentControl, control)
    assert (typed.mode, typed.room_id, typed.correlation_id) == ("stop", "r1", "c1")


def test_room_and_participant_pushes_decode_whatever_the_validator_passed() -> None:
    room = {"id": "r1", "inserted_at": "x", "updated_at": "y", "status": 5, "removed_at": 5}
    for event, model in (("room_added", RoomAdded), ("room_removed", RoomRemoved)):
        checked = validated(event, room)
        assert checked is not None
        assert decode_as(model, checked).id == "r1"
    left = validated("participant_removed", {"id": "a1", "name": "Bot", "type": "Agent", "role": 5})
    assert left is not None
    assert decode_as(ParticipantRemoved, left).id == "a1"
