"""Declared request models: wrong types are a 422 naming the field, never a 500.

The fields below are the ones a hostile run once answered with ``500 internal_error``; each
now gets ``validation_error`` with the field in the message and in ``details``, and nothing
is written. ``tests/fuzz/test_rest_hostile.py`` does the same for every field of every
operation; this file pins the envelope's wording for a readable subset.
"""

from __future__ import annotations

import json
from typing import Any, get_args

import pytest

import band_sdk_core as core
from band.devserver.app import create_app
from band.devserver.contract import fields
from band.devserver.contract.inputs import QueryModel, empty_query, read_json
from band.devserver.contract.openapi import build
from band.devserver.contract.queries import RoomPageQuery
from band.devserver.store.db import StoreError

from .conftest import Live, expect_error, room_with


def _cases(
    rid: str, own: str, aid: str, tid: str
) -> list[tuple[str, str, str, dict[str, Any], str]]:
    """(who, method, path, body, field) with ``field`` of a wrong JSON type.

    ``own`` is a room the agent created (only a room's owner may rename it).
    """
    return [
        ("agent", "POST", "/api/v1/agent/contacts/remove", {"contact_id": 5}, "contact_id"),
        ("user", "POST", f"/api/v1/me/chats/{rid}/control",
         {"mode": "interrupt", "agent_id": aid, "reason": ["x"]}, "reason"),
        ("agent", "PATCH", f"/api/v1/agent/chats/{own}", {"chat": {"title": {}}}, "title"),
        ("agent", "PUT", f"/api/v1/agent/chats/{rid}/board", {"goal_title": 1}, "goal_title"),
        ("agent", "POST", f"/api/v1/agent/chats/{rid}/tasks",
         {"subject": "s", "supersedes_id": 3}, "supersedes_id"),
        ("agent", "POST", "/api/v1/agent/contacts/requests/respond",
         {"action": "approve", "request_id": True}, "request_id"),
        ("agent", "POST", "/api/v1/agent/memories",
         {"memory": {"content": "c", "system": "working", "type": "semantic",
                     "segment": "user", "thought": 1}}, "thought"),
        ("agent", "POST", "/api/v1/agent/memories",
         {"memory": {"content": "c", "system": "working", "type": "semantic",
                     "segment": "user", "thought": "", "subject_id": []}}, "subject_id"),
        ("user", "POST", "/api/v1/me/agents/register",
         {"agent": {"name": 1, "description": "d"}}, "name"),
        ("user", "POST", "/api/v1/me/agents/register",
         {"agent": {"name": "n", "description": None}}, "description"),
        ("agent", "POST", "/api/v1/agent/chats", {"chat": {"task_id": 12}}, "task_id"),
        ("user", "POST", "/api/v1/me/contacts/requests",
         {"contact_request": {"recipient_handle": 9}}, "recipient_handle"),
        ("user", "PUT", "/api/v1/me/profile", {"user": {"first_name": 1.5}}, "first_name"),
        ("agent", "POST", f"/api/v1/agent/chats/{rid}/tasks/{tid}", {"status": "done"}, "status"),
        ("agent", "POST", f"/api/v1/agent/chats/{rid}/activity", {"working": "yes"}, "working"),
        ("agent", "POST", f"/api/v1/agent/chats/{rid}/events",
         {"event": {"content": "c", "message_type": "thought", "metadata": [1]}}, "metadata"),
        ("user", "POST", f"/api/v1/me/chats/{rid}/participants",
         {"participant": {"participant_id": aid, "role": "king"}}, "role"),
    ]  # fmt: skip


def test_wrong_types_name_the_field(live: Live) -> None:
    aid, _, key = live.register("Typed")
    rid = room_with(live, aid, title="Before")
    tid = live.agent(key, "POST", f"/api/v1/agent/chats/{rid}/tasks", json={"subject": "t"})
    own = live.agent(key, "POST", "/api/v1/agent/chats", json={"chat": {"title": "Mine"}})
    own_id = own.json()["data"]["id"]
    before = live.human("GET", f"/api/v1/me/chats/{rid}/messages").json()["data"]
    for who, method, path, body, field in _cases(rid, own_id, aid, tid.json()["data"]["id"]):
        if who == "agent":
            r = live.agent(key, method, path, json=body)
        else:
            r = live.human(method, path, json=body)
        err = expect_error(r, 422, "validation_error")
        assert field in err["message"] and field in err["details"], (path, err)
    assert live.agent(key, "GET", f"/api/v1/agent/chats/{rid}").json()["data"]["title"] == "Before"
    assert live.agent(key, "GET", f"/api/v1/agent/chats/{own_id}").json()["data"]["title"] == "Mine"
    assert live.human("GET", f"/api/v1/me/chats/{rid}/messages").json()["data"] == before


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ({"limit": "99999999999999999999"}, "limit"),
        ({"cursor": "-1"}, "cursor"),
        ({"cursor": "1e3"}, "cursor"),
        ({"status": "done"}, "status"),
        ({"sort_order": "sideways"}, "sort_order"),
        ({"page": "0"}, "page"),
    ],
)
def test_query_errors_name_the_parameter(live: Live, query: dict[str, str], field: str) -> None:
    aid, _, key = live.register("Query")
    rid = room_with(live, aid)
    r = live.agent(key, "GET", f"/api/v1/agent/chats/{rid}/messages", params=query)
    err = expect_error(r, 422, "validation_error")
    assert field in err["message"] and list(err["details"]) == [field]


def test_unparsable_json_is_400_and_a_non_object_is_422(live: Live) -> None:
    aid, _, key = live.register("Raw")
    rid = room_with(live, aid)
    path = f"{live.rest}/api/v1/agent/chats/{rid}/events"
    headers = {"X-API-Key": key, "content-type": "application/json"}
    expect_error(live.client.post(path, content=b"{nope", headers=headers), 400, "bad_request")
    expect_error(live.client.post(path, content=b"[]", headers=headers), 422, "validation_error")
    err = expect_error(live.client.post(path, content=b"{}", headers=headers), 422,
                       "validation_error")  # fmt: skip
    assert err["details"] == {"event": ["event: Field required"]}


def test_blank_and_missing_keep_their_messages(live: Live) -> None:
    aid, _, key = live.register("Blank")
    rid = room_with(live, aid)
    body = {"message": {"content": "  ", "mentions": [{"id": aid}]}}
    err = expect_error(live.agent(key, "POST", f"/api/v1/agent/chats/{rid}/messages", json=body),
                       422, "validation_error")  # fmt: skip
    assert err["message"] == "content can't be blank"
    err = expect_error(live.agent(key, "POST", "/api/v1/agent/contacts/add", json={}), 400,
                       "bad_request")  # fmt: skip
    assert "handle" in err["message"]


def test_openapi_bodies_and_queries_are_the_models() -> None:
    doc = build(list(create_app(":memory:").routes))
    schemas = doc["components"]["schemas"]
    bodies = 0
    for ops in doc["paths"].values():
        for op in ops.values():
            if "requestBody" not in op:
                continue
            ref = op["requestBody"]["content"]["application/json"]["schema"]["$ref"]
            body = schemas[ref.rsplit("/", 1)[1]]
            assert body["type"] == "object" and body["properties"], ref
            bodies += 1
    assert bodies >= 25
    event = schemas["EventIn"]
    assert event["required"] == ["content", "message_type"]
    assert "thought" in event["properties"]["message_type"]["enum"]
    params = doc["paths"]["/api/v1/agent/chats/{chat_id}/messages"]["get"]["parameters"]
    status = next(p for p in params if p["name"] == "status")
    assert "processing" in status["schema"]["anyOf"][0]["enum"]
    limit = next(p for p in params if p["name"] == "limit")
    assert limit["schema"]["anyOf"][0] == {"type": "integer", "minimum": 1, "maximum": 100}


def test_memory_enums_are_band_sdk_core_wire_names() -> None:
    pairs = [
        (fields.MemorySystem, core.MemorySystem),
        (fields.MemoryType, core.MemoryType),
        (fields.MemorySegment, core.MemorySegment),
    ]
    for declared, enum in pairs:
        assert set(get_args(declared)) == {m.wire_name for m in enum._members}


@pytest.mark.parametrize(
    ("raw", "field", "words"),
    [
        ('{"event": {"content": "c", "message_type": "thought", "metadata": {"v": [NaN]}}}',
         "metadata.v.0", "finite"),
        ('{"event": {"content": "c", "message_type": "thought", "metadata": {"v": 1e999}}}',
         "metadata.v", "finite"),
        ('{"event": {"content": "\\udc00", "message_type": "thought"}}', "content", "Unicode"),
        ('{"event": {"content": "c", "message_type": "thought", "metadata": {"\\ud800": 1}}}',
         "metadata.\\ud800", "Unicode"),
        ('{"event": {"content": "c", "message_type": "thought", "metadata": {"d": '
         + "[" * 40 + "]" * 40 + "}}}", "metadata.d" + ".0" * 29, "nested deeper than 32"),
    ],
)  # fmt: skip
def test_unservable_values_name_the_field(live: Live, raw: str, field: str, words: str) -> None:
    aid, _, key = live.register("Poison")
    rid = room_with(live, aid)
    path = f"{live.rest}/api/v1/agent/chats/{rid}/events"
    headers = {"X-API-Key": key, "content-type": "application/json"}
    err = expect_error(live.client.post(path, content=raw.encode(), headers=headers), 422,
                       "validation_error")  # fmt: skip
    assert err["message"].startswith(field + ":"), err
    assert words in err["message"] and field.split(".")[0] in err["details"], err
    assert live.human("GET", f"/api/v1/me/chats/{rid}/messages").json()["data"] == []


def test_an_integer_python_cannot_convert_is_422(live: Live) -> None:
    aid, _, key = live.register("Digits")
    rid = room_with(live, aid)
    raw = '{"event": {"content": "c", "message_type": "thought", "metadata": {"n": %s}}}'
    headers = {"X-API-Key": key, "content-type": "application/json"}
    path = f"{live.rest}/api/v1/agent/chats/{rid}/events"
    err = expect_error(live.client.post(path, content=(raw % ("9" * 5000)).encode(),
                                        headers=headers), 422, "validation_error")  # fmt: skip
    assert err["message"] == "metadata.n: integer too large (5000 digits)"
    r = live.client.post(path, content=(raw % ("9" * 400)).encode(), headers=headers)
    assert r.status_code == 201, r.text[:200]
    got = live.human("GET", f"/api/v1/me/chats/{rid}/messages").json()["data"]
    assert got[0]["metadata"]["n"] == int("9" * 400)


def test_a_body_too_deep_to_decode_is_422_before_and_after_authorization(live: Live) -> None:
    # the role check reads the add-participant body before the handler does: a body nested
    # past the decoder's recursion limit must reach the handler's 422, not fail as a 500
    aid, _, key = live.register("Deep")
    rid = room_with(live, aid)
    raw = '{"participant": {"participant_id": ' + "[" * 100_000 + "]" * 100_000 + "}}"
    headers = {"X-API-Key": key, "content-type": "application/json"}
    path = f"{live.rest}/api/v1/agent/chats/{rid}/participants"
    err = expect_error(live.client.post(path, content=raw.encode(), headers=headers), 422,
                       "validation_error")  # fmt: skip
    assert "nested deeper than" in err["message"], err


@pytest.mark.parametrize(
    "raw",
    [
        b'{"message": {"content": "\\u00e9 \\ud83d\\ude00 \xc3\xa9", "mentions": [{"id": "x"}]}}',
        b' {"a": [1, -0, 2.5e-3, 1e308, 5e-324, true, null, {"b": ""}]} ',
        b'{"big": ' + b"9" * 4300 + b', "neg": -' + b"1" * 30 + b"}",
        b'{"a": 1, "a": 2}',  # the last of a repeated key, as json.loads reads it
        b'{"text": "' + b"[{" * 40 + b'"}',  # brackets in a string: the walk decides, not nesting
        b'{"d": ' + b"[" * 31 + b"]" * 31 + b"}",  # 32 levels, the body's included
    ],
)  # fmt: skip
def test_a_plain_body_reads_as_json_loads_reads_it(raw: bytes) -> None:
    """Bodies msgspec decodes (most) give the standard library's values."""
    got = read_json(raw)
    assert got == json.loads(raw) and repr(got) == repr(json.loads(raw))


@pytest.mark.parametrize(
    ("raw", "status", "words"),
    [
        (b'{"v": NaN}', 422, "v: numbers must be finite (got NaN)"),
        (b'{"v": [-Infinity]}', 422, "v.0: numbers must be finite (got -Infinity)"),
        (b'{"v": -1e999}', 422, "v: numbers must be finite (got -1e999)"),
        (b'{"v": ' + b"9" * 4301 + b"}", 422, "v: integer too large (4301 digits)"),
        (b'{"v": "\\udc00"}', 422, "v: strings must be valid Unicode (no lone surrogates)"),
        (b'{"v": "\xed\xa0\x80"}', 422, "v: strings must be valid Unicode (no lone surrogates)"),
        (b'{"d": ' + b"[" * 32 + b"]" * 32 + b"}", 422, "nested deeper than 32 levels"),
        (b'{"v": 01}', 400, "request body is not valid JSON"),
        (b'{"v": "a\x01b"}', 400, "request body is not valid JSON"),
    ],
)  # fmt: skip
def test_what_msgspec_refuses_gets_the_careful_reading(raw: bytes, status: int, words: str) -> None:
    """Each body msgspec will not decode is answered as before: its field named, or a 400."""
    with pytest.raises(StoreError) as refused:
        read_json(raw)
    assert refused.value.status == status and words in refused.value.message, refused.value.message


def test_a_byte_order_mark_is_read_as_before() -> None:
    assert read_json(b'\xef\xbb\xbf{"a": 1}') == {"a": 1}  # json.loads skips it; msgspec refuses


def test_no_query_string_is_validated_once_per_model() -> None:
    first = empty_query(RoomPageQuery)
    assert first is empty_query(RoomPageQuery) and first == RoomPageQuery()

    class Needs(QueryModel):
        wanted: int

    for _ in range(2):  # a refusal is not kept: raised every time
        with pytest.raises(StoreError) as refused:
            empty_query(Needs)
        assert refused.value.status == 422 and "wanted" in (refused.value.details or {})
