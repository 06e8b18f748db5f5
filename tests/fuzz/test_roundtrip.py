"""Nothing ``band dev`` accepts is unreadable afterwards, and what it cannot serve it refuses.

Property: any value the platform accepts (arbitrary JSON metadata, any Unicode text) written
through events, messages, memories, tasks and the board reads back equal, with 200, through
every listing that shows it: the room's messages (human view), the agent's messages and
room context, the memory lists and gets (agent and human views), the task list, get and
history, the board. Alongside: NaN / Infinity, lone surrogates and nesting beyond the
documented depth are refused with a 422 and leave the room readable.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from bandtest.platform import room_with
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from band.devserver.contract.inputs import MAX_DEPTH

from .hostile import Target, hostile_target

RESERVED = {"mentions", "status", "delivery_status"}  # metadata keys the platform sets
scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**40), max_value=10**40)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20)
)
json_values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=25,
)
metadata = st.dictionaries(
    st.text(max_size=8).filter(lambda k: k not in RESERVED), json_values, max_size=5
)
texts = st.text(min_size=1, max_size=200).filter(str.strip)
SETTINGS = settings(
    max_examples=30, deadline=None, database=None, suppress_health_check=list(HealthCheck)
)


@pytest.fixture(scope="module")
def target() -> Iterator[Target]:
    yield from hostile_target()


def _ok(target: Target, method: str, path: str, **kw: Any) -> Any:
    r = target.send(method, path, "round trip", **kw)
    assert r.status_code in (200, 201), f"{method} {path}: {r.status_code} {r.text[:300]}"
    return r.json()


def _by_id(items: list[dict[str, Any]], wanted: str) -> dict[str, Any]:
    found = [i for i in items if i["id"] == wanted]
    assert len(found) == 1, (wanted, [i["id"] for i in items])
    return found[0]


def _fresh(target: Target) -> tuple[str, str, str]:
    """A new agent (so its lists hold only this example) in a new room: (aid, key, room)."""
    aid, _, key = target.live.register("Writer")
    return aid, key, room_with(target.live, aid)


def _no_errors_logged(target: Target) -> None:
    logged = target.log.text()
    target.log.records.clear()
    assert not logged, logged


@given(content=texts, meta=metadata, kind=st.sampled_from(["thought", "tool_call", "error"]))
@SETTINGS
def test_events_read_back_everywhere(target: Target, content: str, meta: dict, kind: str) -> None:
    _, key, rid = _fresh(target)
    live = target.live
    body = {"event": {"content": content, "message_type": kind, "metadata": meta}}
    r = live.agent(key, "POST", f"/api/v1/agent/chats/{rid}/events", json=body)
    assert r.status_code == 201, r.text[:300]
    eid = r.json()["data"]["id"]
    human = _ok(target, "GET", f"/api/v1/me/chats/{rid}/messages")["data"]
    context = live.agent(key, "GET", f"/api/v1/agent/chats/{rid}/context")
    assert context.status_code == 200, context.text[:300]
    for item in (_by_id(human, eid), _by_id(context.json()["data"], eid)):
        assert item["content"] == content and item["message_type"] == kind
        stored = {k: v for k, v in item["metadata"].items() if k not in RESERVED}
        assert stored == meta
    _no_errors_logged(target)


@given(content=texts)
@SETTINGS
def test_messages_read_back_everywhere(target: Target, content: str) -> None:
    aid, key, rid = _fresh(target)
    live = target.live
    body = {"message": {"content": content, "mentions": [{"id": aid}]}}
    mid = _ok(target, "POST", f"/api/v1/me/chats/{rid}/messages", json=body)["data"]["id"]
    expected = f"@[[{aid}]] {content}"  # the platform prefixes one token per mention
    human = _ok(target, "GET", f"/api/v1/me/chats/{rid}/messages")["data"]
    assert _by_id(human, mid)["content"] == expected
    for path in ("context", "messages", "messages/next"):
        r = live.agent(key, "GET", f"/api/v1/agent/chats/{rid}/{path}")
        assert r.status_code == 200, r.text[:300]
        got = r.json()["data"]
        item = got if isinstance(got, dict) else _by_id(got, mid)
        assert item["id"] == mid and item["content"] == expected
    _no_errors_logged(target)


@given(content=texts, thought=st.text(max_size=50), meta=json_values, tags=st.lists(st.text()))
@SETTINGS
def test_memories_read_back_everywhere(
    target: Target, content: str, thought: str, meta: Any, tags: list[str]
) -> None:
    aid, key, _ = _fresh(target)
    live = target.live
    extra = meta if isinstance(meta, dict) else {"value": meta}
    extra = {k: v for k, v in extra.items() if k not in ("tags", "references")}
    stored_meta = {**extra, "tags": tags}
    memory = {
        "content": content,
        "system": "long_term",
        "type": "episodic",
        "segment": "agent",
        "thought": thought,
        "subject_id": live.app.state.user_id,  # its owner: someone the agent knows
        "metadata": stored_meta,
    }
    r = live.agent(key, "POST", "/api/v1/agent/memories", json={"memory": memory})
    assert r.status_code == 201, r.text[:300]
    mem_id = r.json()["data"]["id"]
    views = [
        _by_id(live.agent(key, "GET", "/api/v1/agent/memories").json()["data"], mem_id),
        live.agent(key, "GET", f"/api/v1/agent/memories/{mem_id}").json()["data"],
        _by_id(
            _ok(target, "GET", "/api/v1/me/memories", params={"source_agent_id": aid})["data"],
            mem_id,
        ),
        _ok(target, "GET", f"/api/v1/me/memories/{mem_id}")["data"],
    ]
    for view in views:
        assert (view["content"], view["thought"], view["metadata"]) == (
            content,
            thought,
            stored_meta,
        )
    _no_errors_logged(target)


@given(subject=texts, detail=st.text(max_size=200), goal=st.text(max_size=100), comment=texts)
@SETTINGS
def test_tasks_and_board_read_back(
    target: Target, subject: str, detail: str, goal: str, comment: str
) -> None:
    _, key, rid = _fresh(target)
    live = target.live
    base = f"/api/v1/agent/chats/{rid}"
    r = live.agent(key, "POST", base + "/tasks", json={"subject": subject, "detail": detail})
    assert r.status_code == 201, r.text[:300]
    tid = r.json()["data"]["id"]
    r = live.agent(key, "POST", f"{base}/tasks/{tid}", json={"comment": comment})
    assert r.status_code == 200, r.text[:300]
    listed = _by_id(live.agent(key, "GET", base + "/tasks").json()["data"], tid)
    got = live.agent(key, "GET", f"{base}/tasks/{tid}", params={"include": "history"})
    assert got.status_code == 200, got.text[:300]
    for task in (listed, got.json()["data"]):
        assert (task["subject"], task["detail"]) == (subject.strip(), detail)
    history = live.agent(key, "GET", f"{base}/tasks/{tid}/history")
    assert history.status_code == 200, history.text[:300]
    comments = [e["payload"].get("comment") for e in history.json()["data"]]
    assert comment in comments
    r = live.agent(key, "PUT", base + "/board", json={"goal_title": goal, "goal_summary": detail})
    assert r.status_code == 200, r.text[:300]
    board = live.agent(key, "GET", base + "/board", params={"include": "history"})
    assert board.status_code == 200, board.text[:300]
    assert (board.json()["data"]["goal_title"], board.json()["data"]["goal_summary"]) == (
        goal,
        detail,
    )
    _no_errors_logged(target)


def _nested(depth: int) -> Any:
    value: Any = 1
    for _ in range(depth):
        value = [value]
    return value


def _listings_ok(target: Target, key: str, rid: str) -> None:
    assert target.send("GET", f"/api/v1/me/chats/{rid}/messages", "named").status_code == 200
    context = target.live.agent(key, "GET", f"/api/v1/agent/chats/{rid}/context")
    assert context.status_code == 200, context.text[:300]
    assert target.live.agent(key, "GET", "/api/v1/agent/memories").status_code == 200
    assert target.send("GET", "/api/v1/me/memories", "named").status_code == 200


def test_refused_values_leave_nothing_unreadable(target: Target) -> None:
    """NaN, Infinity, lone surrogates and deep nesting: 422 naming the problem, nothing stored."""
    _, key, rid = _fresh(target)
    events = f"/api/v1/agent/chats/{rid}/events"
    # the body is level 1, {"event": ...} 2, metadata 3, its lists 4 to MAX_DEPTH: just fits
    fits = {
        "event": {
            "content": "x",
            "message_type": "thought",
            "metadata": {"deep": _nested(MAX_DEPTH - 3)},
        }
    }
    assert target.live.agent(key, "POST", events, json=fits).status_code == 201
    too_deep = json.loads(json.dumps(fits))
    too_deep["event"]["metadata"]["deep"] = _nested(MAX_DEPTH - 2)
    raw_bodies = [
        json.dumps(too_deep),
        '{"event": {"content": "x", "message_type": "thought", "metadata": {"v": NaN}}}',
        '{"event": {"content": "x", "message_type": "thought", "metadata": {"v": -Infinity}}}',
        '{"event": {"content": "x", "message_type": "thought", "metadata": {"v": 1e400}}}',
        '{"event": {"content": "\\ud800", "message_type": "thought"}}',
        '{"event": {"content": "x", "message_type": "thought", "metadata": {"\\udfff": 1}}}',
        '{"event": {"content": "x", "message_type": "thought", "metadata": '
        + "[" * 970
        + "]" * 970
        + "}}",
        "[" * 100_000 + "]" * 100_000,
    ]
    memory = {
        "content": "x",
        "system": "working",
        "type": "semantic",
        "segment": "user",
        "thought": "t",
        "metadata": {"v": float("nan")},
    }
    for raw in raw_bodies:
        headers = {"X-API-Key": key, "content-type": "application/json"}
        r = target.live.client.post(
            target.live.rest + events, content=raw.encode(), headers=headers
        )
        assert r.status_code == 422, (raw[:80], r.text[:300])
        assert r.json()["error"]["code"] == "validation_error" and r.json()["error"]["details"]
    r = target.live.agent(
        key, "POST", "/api/v1/agent/memories", content=json.dumps({"memory": memory}).encode()
    )
    assert r.status_code == 422 and "finite" in r.json()["error"]["message"], r.text[:300]
    human = target.send("GET", f"/api/v1/me/chats/{rid}/messages", "named").json()["data"]
    assert len(human) == 1  # only the event that fits
    _listings_ok(target, key, rid)
    _no_errors_logged(target)


def test_a_value_stored_by_an_older_version_still_reads(target: Target) -> None:
    """Rows holding NaN written before the edge refused it read back with null there."""
    aid, key, rid = _fresh(target)
    body = {"event": {"content": "x", "message_type": "thought", "metadata": {"v": 1.5}}}
    eid = target.live.agent(key, "POST", f"/api/v1/agent/chats/{rid}/events", json=body).json()
    store = target.live.app.state.directory.store
    row = store.db.execute("SELECT metadata FROM messages WHERE id=?", (eid["data"]["id"],))
    poisoned = row.fetchone()[0].replace("1.5", "NaN")
    store.db.execute("UPDATE messages SET metadata=? WHERE id=?", (poisoned, eid["data"]["id"]))
    human = target.send("GET", f"/api/v1/me/chats/{rid}/messages", "named")
    assert human.status_code == 200 and human.json()["data"][0]["metadata"]["v"] is None
    _listings_ok(target, key, rid)
    _no_errors_logged(target)
    assert aid
