"""Hostile input, field by field, against every REST operation of ``band dev`` over real HTTP.

The operations and their body/query schemas come from the platform's own ``/openapi.json``
(generated from the models that validate the requests). For every operation:

* each body field (nested ones too) is set to each JSON type in turn (null, booleans,
  integers, a float, a 31-digit integer, strings, lists, objects), to NaN and to Infinity,
  and each required field is removed; a value of a type the schema does not allow must be a
  4xx error envelope, any other answer must not be a 5xx;
* hypothesis puts arbitrary JSON values (NaN and Infinity included) into random fields:
  no 5xx, and a 4xx whenever the value's type does not fit or a number is not finite;
* the whole body is replaced by a non-object, by invalid JSON, by NaN;
* each query parameter gets malformed and out-of-range values;
* each path id is replaced by a number beyond 64 bits, a negative one and odd strings.

After each operation the server's log must hold no error record (no traceback).
"""

from __future__ import annotations

import copy
import json
import math
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.routing import Route

from band.devserver.access import authz
from band.devserver.api.http import Ctx, endpoint
from band.devserver.app import create_app
from band.devserver.contract.openapi import build

from .hostile import Target, assert_envelope, hostile_target

DOC = build(list(create_app(":memory:").routes))
SCHEMAS: dict[str, Any] = DOC["components"]["schemas"]
OPS = [(path, method, op) for path, ops in DOC["paths"].items() for method, op in ops.items()]
API = [o for o in OPS if o[0].startswith("/api/v1/")]
BODY_OPS = [o for o in API if "requestBody" in o[2]]
QUERY_OPS = [o for o in API if any(p["in"] == "query" for p in o[2]["parameters"])]
PATH_OPS = [o for o in API if "{" in o[0]]

NAN, INF = float("nan"), float("inf")
#: one value of every JSON type, plus the edges of each
WRONG = [None, True, False, 0, -1, 1.5, 10**30, "", " ", "x", [], ["x"], [1], {}, {"k": "v"}]
QUERY_VALUES = [
    "x",
    "-1",
    "0",
    "1.5",
    "99999999999999999999",
    "NaN",
    "true",
    "\x00",
    "üñí",
    "a" * 2000,
    ",",
    "text,,x",
    "2026-13-45",
]
#: a connector id (the audience of a delegated token)
CONNECTOR = "6f1c1f64-9a54-4bd1-8c8e-2f0b1b7c0d11"
PATH_VALUES = ["99999999999999999999", "-1", "0", "²", "#1", "x" * 300, "ü"]


def _bases(ids: dict[str, str]) -> dict[str, Any]:
    """A valid body for each operation, by operationId (keys ending in the path slug)."""
    aid, other = ids["agent_id"], ids["other_agent"]
    message = {
        "message": {"content": "hi", "mentions": [{"id": aid, "handle": ""}], "attachment_ids": []}
    }
    return {
        "post_api_v1_agent_chats": {"chat": {"title": "t", "task_id": "x"}},
        "patch_api_v1_agent_chats_by_chat_id": {"chat": {"title": "t"}},
        "post_api_v1_agent_chats_by_chat_id_activity": {
            "working": False,
            "activity": {"kind": "reasoning", "name": "n"},
        },
        "put_api_v1_agent_chats_by_chat_id_board": {"goal_title": "g", "goal_summary": "s"},
        "post_api_v1_agent_chats_by_chat_id_events": {
            "event": {"content": "e", "message_type": "thought", "metadata": {"k": 1}}
        },
        "post_api_v1_agent_chats_by_chat_id_messages": message,
        "post_api_v1_agent_chats_by_chat_id_messages_by_message_id_failed": {"error": "boom"},
        "post_api_v1_agent_chats_by_chat_id_participants": {
            "participant": {"participant_id": other, "role": "member"}
        },
        "post_api_v1_agent_chats_by_chat_id_tasks": {"subject": "s", "detail": "d"},
        "post_api_v1_agent_chats_by_chat_id_tasks_by_task_id": {
            "status": "in_progress",
            "active_form": "a",
            "comment": "c",
            "subject": "s",
            "detail": "d",
            "linked_native_id": "n",
        },
        "post_api_v1_agent_contacts_add": {"handle": "@nobody", "message": "m"},
        "post_api_v1_agent_contacts_remove": {"handle": "@nobody", "contact_id": "x"},
        "post_api_v1_agent_contacts_requests_respond": {
            "action": "approve",
            "handle": "@x",
            "request_id": "r",
        },
        "post_api_v1_agent_memories": {
            "memory": {
                "content": "c",
                "system": "working",
                "type": "semantic",
                "segment": "user",
                "thought": "t",
                "scope": "subject",
                "subject_id": "s",
                "metadata": {"tags": ["a"], "references": ["b"]},
            }
        },
        "post_api_v1_agent_delegation_token": {"audience": CONNECTOR, "message_id": "m"},
        "post_api_v1_me_delegation_consents": {
            "consent": {"agent_id": aid, "audiences": [CONNECTOR]}
        },
        "post_api_v1_me_agents_bulk_delete": {"ids": ["none"]},
        "post_api_v1_me_agents_register": {"agent": {"name": "n", "description": "d"}},
        "post_api_v1_me_agents_by_agent_id_control": {"mode": "interrupt", "reason": "r"},
        "post_api_v1_me_chats": {"chat": {"title": "t"}},
        "patch_api_v1_me_chats_by_chat_id": {"chat": {"title": "t"}},
        "post_api_v1_me_chats_bulk_delete": {"ids": ["none"]},
        "post_api_v1_me_chats_by_chat_id_control": {
            "mode": "interrupt",
            "agent_id": aid,
            "reason": "r",
        },
        "post_api_v1_me_chats_by_chat_id_messages": message,
        "post_api_v1_me_chats_by_chat_id_participants": {"participant": {"participant_id": other}},
        "post_api_v1_me_contacts_remove": {"handle": "@nobody"},
        "post_api_v1_me_contacts_requests": {
            "contact_request": {"recipient_handle": "@nobody", "message": "m"}
        },
        "post_api_v1_me_contacts_resolve": {"handle": "@nobody"},
        "put_api_v1_me_profile": {"user": {"first_name": "A", "last_name": "B"}},
    }


@pytest.fixture(scope="module")
def target() -> Iterator[Target]:
    yield from hostile_target()


def _resolve(schema: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        schema = SCHEMAS[schema["$ref"].rsplit("/", 1)[1]]
    return schema


def _members(schema: dict[str, Any]) -> list[dict[str, Any]]:
    schema = _resolve(schema)
    if "anyOf" in schema:
        return [m for s in schema["anyOf"] for m in _members(s)]
    return [schema]


def _jtype(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    return {int: "integer", float: "number", str: "string", list: "array", dict: "object"}[
        type(value)
    ]


def _type_fits(value: Any, schema: dict[str, Any]) -> bool:
    """Whether ``value`` has a JSON type (and enum value) ``schema`` allows."""
    kind = _jtype(value)
    for member in _members(schema):
        types = member.get("type", "object" if "properties" in member else None)
        allowed = {types} if isinstance(types, str) else set(types or ())
        if kind in allowed or (kind == "integer" and "number" in allowed):
            if "enum" not in member or value in member["enum"]:
                return True
    return False


def _properties(schema: dict[str, Any]) -> tuple[dict[str, Any], set[str]]:
    for member in _members(schema):
        if "properties" in member:
            return member["properties"], set(member.get("required", ()))
    return {}, set()


def _slots(
    schema: dict[str, Any], value: Any, path: tuple[Any, ...] = ()
) -> Iterator[tuple[tuple[Any, ...], dict[str, Any], bool]]:
    """Every (path, schema, required) of the body's fields, nested objects and list items."""
    if isinstance(value, dict):
        props, required = _properties(schema)
        for name, sub in props.items():
            yield (*path, name), sub, name in required
            if name in value:
                yield from _slots(sub, value[name], (*path, name))
    elif isinstance(value, list) and value:
        items = next((m["items"] for m in _members(schema) if "items" in m), None)
        if items is not None:
            yield (*path, 0), items, False
            yield from _slots(items, value[0], (*path, 0))


def _with(body: Any, path: tuple[Any, ...], value: Any, *, remove: bool = False) -> Any:
    out = copy.deepcopy(body)
    node = out
    for key in path[:-1]:
        node = node[key]
    if remove:
        node.pop(path[-1], None)
    else:
        node[path[-1]] = value
    return out


def _url(path: str, ids: dict[str, str], **override: str) -> str:
    def one(name: str) -> str:
        return quote(override[name], safe="") if name in override else ids[name]

    for name in (p.strip("{}") for p in path.split("/") if p.startswith("{")):
        path = path.replace("{" + name + "}", one(name))
    return path


def _finish(target: Target, failures: list[str], where: str) -> None:
    """Fail with the wrong answers and the server's error records (cleared for the next)."""
    logged = target.log.text()
    target.log.records.clear()
    assert not failures, "\n".join(failures[:20])
    assert not logged, f"{where}: server logged errors:\n{logged}"


def _op_id(o: tuple[str, str, dict[str, Any]]) -> str:
    return str(o[2]["operationId"])


@pytest.mark.parametrize("op", BODY_OPS, ids=_op_id)
def test_each_body_field_each_wrong_type(op: tuple[str, str, dict], target: Target) -> None:
    path, method, spec = op
    base = _bases(target.ids)[spec["operationId"]]
    schema = spec["requestBody"]["content"]["application/json"]["schema"]
    url = _url(path, target.ids)
    failures: list[str] = []

    def send(body: Any, must_fail: bool, label: str, raw: bytes | None = None) -> None:
        content = raw if raw is not None else json.dumps(body).encode()
        r = target.send(
            method.upper(),
            url,
            "body mutations",
            content=content,
            headers={"content-type": "application/json"},
        )
        try:
            assert_envelope(r, error=must_fail)
        except AssertionError as exc:
            failures.append(f"{label}: {exc}")

    slots = list(_slots(schema, base))
    assert slots, f"no fields found for {spec['operationId']}"
    for field_path, sub, required in slots:
        label = ".".join(map(str, field_path))
        for value in WRONG:
            body = _with(base, field_path, value)
            send(body, not _type_fits(value, sub), f"{label}={value!r}")
        for value in (NAN, INF, -INF):
            raw = json.dumps(_with(base, field_path, value)).encode()
            send(None, True, f"{label}={value!r}", raw)
        if required:
            send(_with(base, field_path, None, remove=True), True, f"{label} removed")
    for whole in (None, [], "x", 1, True, [base]):
        send(whole, True, f"body={whole!r}")
    for raw in (b"{", b"\xff\xfe", b"{'a': 1}", b"NaN", b'{"a": Infinity}', b"1e999"):
        send(None, True, f"raw body {raw!r}", raw)
    _finish(target, failures, spec["operationId"])


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=10),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=6,
)


def _finite(value: Any) -> bool:
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, dict | list):
        return all(map(_finite, value.values() if isinstance(value, dict) else value))
    return True


@pytest.mark.parametrize("op", BODY_OPS, ids=_op_id)
def test_any_json_in_any_body_field(op: tuple[str, str, dict], target: Target) -> None:
    """Hypothesis: any JSON value (NaN and Infinity included) in any field of the body."""
    path, method, spec = op
    base = _bases(target.ids)[spec["operationId"]]
    schema = spec["requestBody"]["content"]["application/json"]["schema"]
    slots = list(_slots(schema, base))
    url = _url(path, target.ids)

    @given(slot=st.sampled_from(slots), value=json_values)
    @settings(max_examples=15, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))  # fmt: skip
    def one(slot: tuple[tuple[Any, ...], dict[str, Any], bool], value: Any) -> None:
        field_path, sub, _ = slot
        raw = json.dumps(_with(base, field_path, value)).encode()  # NaN -> the NaN literal
        r = target.send(method.upper(), url, "hypothesis body values", content=raw,
                        headers={"content-type": "application/json"})  # fmt: skip
        assert_envelope(r, error=not _finite(value) or not _type_fits(value, sub))

    one()
    _finish(target, [], spec["operationId"])


def _query_fits(value: str, schema: dict[str, Any]) -> bool | None:
    """True/False when a value surely is/isn't valid for ``schema``; None when unsure."""
    for member in _members(schema):
        if member.get("type") == "integer":
            try:
                number = int(value)
            except ValueError:
                continue
            low, high = member.get("minimum", -math.inf), member.get("maximum", math.inf)
            if low <= number <= high:
                return True
        elif "enum" in member:
            if value in member["enum"]:
                return True
        elif member.get("type") == "boolean":
            if value in ("true", "false"):
                return True
        elif member.get("type") == "string":
            return None
    return False


@pytest.mark.parametrize("op", QUERY_OPS, ids=_op_id)
def test_each_query_parameter_malformed(op: tuple[str, str, dict], target: Target) -> None:
    path, method, spec = op
    ids = target.ids
    if method == "delete" and path.endswith("{agent_id}"):
        # force=true deletes the agent: a throwaway one, not the agent the other tests use
        ids = {**ids, "agent_id": target.live.register("Throwaway")[0]}
    url = _url(path, ids)
    failures: list[str] = []
    for param in (p for p in spec["parameters"] if p["in"] == "query"):
        for value in QUERY_VALUES:
            fits = _query_fits(value, param["schema"])
            r = target.send(method.upper(), url, "query mutations", params={param["name"]: value})
            try:
                assert_envelope(r, error=fits is False)
            except AssertionError as exc:
                failures.append(f"{param['name']}={value[:20]!r}: {exc}")
    _finish(target, failures, spec["operationId"])


@pytest.mark.parametrize("op", PATH_OPS, ids=_op_id)
def test_each_path_id_odd(op: tuple[str, str, dict], target: Target) -> None:
    path, method, spec = op
    base = _bases(target.ids).get(spec["operationId"])
    failures: list[str] = []
    for param in (p["name"] for p in spec["parameters"] if p["in"] == "path"):
        for value in PATH_VALUES:
            url = _url(path, target.ids, **{param: value})
            r = target.send(method.upper(), url, "path mutations", json=base)
            try:
                # a number beyond 64 bits or a negative one names nothing: 404 (or 422)
                assert_envelope(r, error=value in ("99999999999999999999", "-1"))
            except AssertionError as exc:
                failures.append(f"{param}={value[:20]!r}: {exc}")
    _finish(target, failures, spec["operationId"])


def test_every_operation_with_a_body_is_fuzzed(target: Target) -> None:
    """A new body operation needs a valid base body here, so it cannot escape the fuzzing."""
    ids = {spec["operationId"] for _, _, spec in BODY_OPS}
    assert ids == set(_bases(target.ids)), ids ^ set(_bases(target.ids))
    assert len(BODY_OPS) >= 25 and len(QUERY_OPS) >= 20 and len(PATH_OPS) >= 30


def test_huge_task_number_is_404(target: Target) -> None:
    rid = target.ids["chat_id"]
    for ref in ("99999999999999999999", "9" * 5000, "%23" + "9" * 30, "²"):
        r = target.send("GET", f"/api/v1/agent/chats/{rid}/tasks/{ref}", "named")
        assert r.status_code == 404 and r.json()["error"]["code"] == "not_found", r.text[:200]
    _finish(target, [], "task numbers")


def test_a_500_is_logged_with_its_request_id(
    target: Target, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The one way left to a 500 (a bug) answers the envelope and logs the same request id."""
    # the authorization model fails closed on undeclared routes: declare the test's own
    monkeypatch.setitem(authz.POLICY, "GET /api/v1/me/broken-for-test", "self")

    async def broken(ctx: Ctx) -> Any:
        """A handler with a bug."""
        raise ZeroDivisionError("bug")

    target.live.app.router.routes.append(
        Route("/api/v1/me/broken-for-test", endpoint("user")(broken), methods=["GET"])
    )
    try:
        r = target.send("GET", "/api/v1/me/broken-for-test", "named")
        assert r.status_code == 500
        err = r.json()["error"]
        assert err["code"] == "internal_error" and err["request_id"]
        logged = target.log.text()
        assert err["request_id"] in logged and "ZeroDivisionError" in logged
    finally:
        target.live.app.router.routes.pop()
        target.log.records.clear()
