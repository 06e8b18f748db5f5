"""The typed wire model (band.core.wire): frames, envelopes, rows and pushes decode and encode.

Round trips through msgspec, a wrong type in any slot or field named in the error, unknown
fields ignored, missing optional fields left None; and the Phoenix client, fed a malformed
frame over a real socket, logs it and goes on with the next one.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
from typing import Any

import msgspec
import pytest
from bandtest.agents import FAST_POLICY

from band.client.phoenix import PhoenixClient
from band.client.rest import RestResponse
from band.core import wire as w
from band.testing import fake_phoenix_server
from band_sdk_core import SessionPolicy

MESSAGE = {
    "id": "m1",
    "content": "hello @bot",
    "message_type": "text",
    "sender_id": "u1",
    "sender_type": "User",
    "sender_name": "Ada",
    "chat_room_id": "r1",
    "thread_id": None,
    "inserted_at": "2026-12-05T05:00:00Z",
    "updated_at": "2026-12-05T05:00:00Z",
    "attachments": [
        {
            "id": "f1",
            "name": "a.txt",
            "content_type": "text/plain",
            "bytes": 3,
            "sha256": "abc",
            "has_thumb": False,
            "expires_at": None,
        }
    ],
    "metadata": {"mentions": [{"id": "a1", "handle": "bot"}], "status": "sent"},
}
PARTICIPANT = {
    "id": "a1",
    "name": "Bot",
    "handle": "bot",
    "type": "Agent",
    "role": "member",
    "status": "active",
    "description": "echoes",
    "online": True,
    "is_external": False,
    "is_remote": False,
    "avatar_url": None,
}
PUSHED = {  # a participant_added / participant_removed push
    "id": "a1",
    "name": "Bot",
    "type": "Agent",
    "handle": "bot",
    "description": None,
    "is_external": False,
    "is_remote": False,
}
ROOM = {
    "id": "r1",
    "title": "Standup",
    "task_id": None,
    "inserted_at": "2026-12-05T05:00:00Z",
    "updated_at": "2026-12-05T05:00:00Z",
}

#: A well-formed V2 frame whose payload nests past what msgspec can recurse into.
DEEP_FRAME = (
    b'[null, null, "chat_room:r1", "message_created", {"a": '
    + b"[" * 100_000
    + b"]" * 100_000
    + b"}]"
)


# --- frames -------------------------------------------------------------------------------------


def test_frame_round_trip() -> None:
    raw = w.encode_frame("3", "7", "chat_room:r1", "message_created", MESSAGE)
    assert json.loads(raw) == ["3", "7", "chat_room:r1", "message_created", MESSAGE]
    frame = w.decode_frame(raw)
    assert frame == w.PhoenixFrame("3", "7", "chat_room:r1", "message_created", MESSAGE)
    assert frame.body == MESSAGE
    assert w.encode_frame(frame.join_ref_str, frame.ref_str, frame.topic, frame.event, frame.body)
    assert w.decode_frame(raw.decode()) == frame  # text frames too


def test_frame_payload_may_be_a_struct() -> None:
    reply = w.ReplyPayload(status="ok", response={})
    raw = w.encode_frame(None, "1", "phoenix", "phx_reply", reply)
    assert json.loads(raw) == [None, "1", "phoenix", "phx_reply", {"status": "ok", "response": {}}]


def test_frame_refs_may_be_numbers_and_payloads_need_not_be_objects() -> None:
    frame = w.decode_frame(b'[1, 2, "t", "e", [1, 2]]')
    assert (frame.join_ref_str, frame.ref_str) == ("1", "2")
    assert frame.body == {}  # a non-object payload counts as {} (the V2 client's rule)
    assert w.decode_frame(b'[null, null, "t", "e", null]').join_ref_str is None


@pytest.mark.parametrize(
    ("raw", "where"),
    [
        (b'[[], "1", "t", "e", {}]', "$[0]"),
        (b'["1", 1.5, "t", "e", {}]', "$[1]"),
        (b'["1", "1", 5, "e", {}]', "$[2]"),
        (b'["1", "1", "t", null, {}]', "$[3]"),
    ],
)
def test_frame_slot_of_the_wrong_type_is_named(raw: bytes, where: str) -> None:
    with pytest.raises(msgspec.ValidationError, match=re.escape(where)):
        w.decode_frame(raw)


@pytest.mark.parametrize(
    "raw",
    [b"", b"not json", b"{}", b'["1", "1", "t", "e"]', b'["1", "1", "t", "e", {}, 6]', b"[" * 5000,
     DEEP_FRAME, b"[" * 100_000 + b"]" * 100_000],
)  # fmt: skip
def test_malformed_frames_raise_a_decode_error(raw: bytes) -> None:
    with pytest.raises(msgspec.DecodeError):
        w.decode_frame(raw)


def test_json_too_deep_to_decode_is_a_decode_error_not_a_recursion_error() -> None:
    deep = b'{"a": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    with pytest.raises(msgspec.DecodeError, match=w.TOO_DEEP):
        w.decode_json(deep)
    assert w.decode_error(deep) is None


# --- rows and pushes ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("model", "body"),
    [
        (w.MessageRow, MESSAGE),
        (w.MessageCreated, MESSAGE),
        (w.Participant, PARTICIPANT),
        (w.ParticipantAdded, PUSHED),
        (w.ParticipantRemoved, PUSHED),
        (w.Room, ROOM),
        (w.RoomAdded, ROOM),
        (w.RoomRemoved, ROOM),
    ],
)
def test_rows_round_trip(model: type[w.WireModel], body: dict[str, Any]) -> None:
    decoded = w.decode_as(model, body)
    assert decoded.model_dump() == body
    assert msgspec.json.decode(msgspec.json.encode(decoded), type=model) == decoded
    assert w.to_dict(decoded) == {k: v for k, v in body.items() if v is not None}


@pytest.mark.parametrize(
    ("model", "body"),
    [
        (w.MessageRow, MESSAGE),
        (w.Participant, PARTICIPANT),
        (w.ParticipantAdded, PUSHED),
        (w.Room, ROOM),
    ],
)
def test_each_field_of_the_wrong_type_is_named(
    model: type[w.WireModel], body: dict[str, Any]
) -> None:
    # no field (string, flag, list or object) takes an integer; thread_id is kept as sent
    for name in (n for n in body if n != "thread_id"):
        with pytest.raises(msgspec.ValidationError, match=re.escape(f"$.{name}")):
            w.decode_as(model, {**body, name: 5})


def test_unknown_fields_are_ignored_and_missing_ones_are_none() -> None:
    row = w.decode_as(w.MessageRow, {"id": "m1", "reactions": [1], "future": {"x": 1}})
    assert row.id == "m1" and row.content is None and row.metadata is None
    assert w.to_dict(row) == {"id": "m1"}
    frame = w.decode_frame(b'["1", null, "t", "room_added", {"id": "r1", "status": 5}]')
    assert w.decode_as(w.RoomAdded, frame.body) == w.RoomAdded(id="r1")
    # a participant push is read for the fields the validator checks, not a row's role/online
    pushed = w.decode_as(w.ParticipantAdded, {**PUSHED, "role": 5, "online": "x"})
    assert pushed == w.decode_as(w.ParticipantAdded, PUSHED)
    assert w.decode_as(w.RoomDeleted, {"id": "r9", "reason": "gone"}).id == "r9"


def test_a_participant_is_a_chat_participant() -> None:
    person = w.decode_as(w.Participant, PARTICIPANT)
    assert isinstance(person, w.ChatParticipant)
    assert person["handle"] == "bot" and person.get("nope", 1) == 1


def test_decode_rows_names_the_row_and_field() -> None:
    assert w.decode_rows(w.Room, [ROOM, {"id": "r2"}])[1].id == "r2"
    with pytest.raises(msgspec.ValidationError, match=re.escape("$[1].title")):
        w.decode_rows(w.Room, [ROOM, {"id": "r2", "title": 3}])


# --- REST envelopes -----------------------------------------------------------------------------


def test_success_envelope_round_trip() -> None:
    body = {"data": [ROOM], "metadata": {"page": 1, "page_size": 20, "total_pages": 3}}
    env = msgspec.json.decode(msgspec.json.encode(body), type=w.Envelope[list[w.Room]])
    assert env.data[0].title == "Standup" and env.paging is not None
    assert env.paging.total_pages == 3 and env.paging.has_more is None
    deprecated = msgspec.convert({"data": [], "meta": {"has_more": True}}, w.Envelope[list[Any]])
    assert deprecated.paging is not None and deprecated.paging.has_more is True


def test_rest_response_typed_views() -> None:
    listed = RestResponse(200, {"data": [ROOM], "metadata": {"total_pages": 2}})
    assert listed.rows_as(w.Room) == [w.decode_as(w.Room, ROOM)]
    assert listed.paging.total_pages == 2
    assert listed.data_as(w.Room) is None  # a list is no object
    one = RestResponse(200, {"data": {"id": "m1", "success": True}})
    assert one.data_as(w.MessageStatusResponse) == w.MessageStatusResponse(id="m1", success=True)
    assert one.rows_as(w.Room) == [] and one.paging == w.Paging()
    assert RestResponse(204, None).data_as(w.AgentMe) is None
    with pytest.raises(msgspec.ValidationError, match=re.escape("$.success")):
        RestResponse(200, {"data": {"success": "yes"}}).data_as(w.MessageStatusResponse)


def test_error_envelope() -> None:
    raw = b'{"error": {"code": "rate_limited", "message": "slow down", "retry_after": 2}}'
    error = w.decode_error(raw)
    assert error is not None
    assert (error.code, error.message, error.retry_after) == ("rate_limited", "slow down", 2.0)
    assert w.decode_error(b'{"error": {"code": "x", "zz": 1}}') == w.ErrorBody(code="x")
    encoded = msgspec.json.encode(w.ErrorEnvelope(error=w.ErrorBody(code="x", message="m")))
    assert json.loads(encoded) == {"error": {"code": "x", "message": "m"}}
    for body in (None, b"", b"<html>", b'{"data": {}}', b'{"error": {"retry_after": true}}'):
        assert w.decode_error(body) is None


# --- the client at the edge ---------------------------------------------------------------------


def test_client_logs_a_malformed_frame_and_goes_on(caplog: pytest.LogCaptureFixture) -> None:
    """A malformed or mistyped frame is dropped with a warning; the next push still arrives."""

    async def scenario() -> None:
        async with fake_phoenix_server() as server:
            got: list[tuple[str, dict[str, Any]]] = []
            c = PhoenixClient(server.url, api_key="k", policy=SessionPolicy(FAST_POLICY))
            await c.connect()
            await c.join("chat_room:r1", lambda event, payload: got.append((event, payload)))
            await server.send_raw("this is not json")
            await server.send_raw('["1", null, 5, "message_created", {}]')
            await server.send_raw(DEEP_FRAME.decode())
            await server.push("chat_room:r1", "message_created", {"id": "m1"})
            await asyncio.wait_for(_until(lambda: got), 5.0)
            assert got == [("message_created", {"id": "m1"})]
            assert c.connected and c.connections == 1
            await c.close()

    with caplog.at_level(logging.WARNING, logger="band.client.phoenix"):
        asyncio.run(scenario())
    drops = [r.getMessage() for r in caplog.records if "malformed frame" in r.getMessage()]
    assert len(drops) == 3 and "$[2]" in drops[1] and w.TOO_DEEP in drops[2], drops


async def _until(check: Any) -> None:
    while not check():
        await asyncio.sleep(0.01)
