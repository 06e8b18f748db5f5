"""Task board, room goal board and /me/peers over real HTTP."""

from __future__ import annotations

from typing import Any

from .conftest import Live
from .conftest import expect_error as _err
from .conftest import room_with as _room

A = "/api/v1/agent"


def _setup(live: Live) -> tuple[str, str, str, str]:
    aid, handle, key = live.register("Worker")
    return aid, handle, key, _room(live, aid)


def _create(live: Live, key: str, rid: str, **body: Any) -> dict[str, Any]:
    r = live.agent(key, "POST", f"{A}/chats/{rid}/tasks", json=body)
    assert r.status_code == 201, r.text
    return r.json()["data"]


def test_create_get_list_tasks(live: Live) -> None:
    aid, handle, key, rid = _setup(live)
    t1 = _create(live, key, rid, subject="Write spec", detail="all of it")
    t2 = _create(live, key, rid, subject="Review")
    assert (t1["number"], t2["number"]) == (1, 2)
    assert t1["chat_room_id"] == rid and t1["state"] == "active"
    assert t1["detail"] == "all of it" and t2["detail"] == ""
    assert t1["overall_status"] == "pending" and t1["assignments"] == []
    assert t1["created_by"] == {"id": aid, "name": "Worker", "type": "Agent", "handle": handle}
    assert t1["inserted_at"] and t1["updated_at"] and t1["superseded_by_id"] is None
    for ref in (t1["id"], "1", "%231"):
        r = live.agent(key, "GET", f"{A}/chats/{rid}/tasks/{ref}")
        assert r.status_code == 200, r.text
        assert r.json()["data"]["id"] == t1["id"]
    body = live.agent(key, "GET", f"{A}/chats/{rid}/tasks").json()
    assert [t["number"] for t in body["data"]] == [1, 2]
    assert body["metadata"] == {"has_more": False, "limit": 50, "next_cursor": None}
    page = live.agent(key, "GET", f"{A}/chats/{rid}/tasks?limit=1").json()
    assert [t["number"] for t in page["data"]] == [1]
    assert page["metadata"]["has_more"] is True and page["metadata"]["next_cursor"] == "1"
    nxt = live.agent(key, "GET", f"{A}/chats/{rid}/tasks?limit=1&cursor=1").json()
    assert [t["number"] for t in nxt["data"]] == [2] and nxt["metadata"]["has_more"] is False


def test_update_status_assignment_and_history(live: Live) -> None:
    aid, _, key, rid = _setup(live)
    t = _create(live, key, rid, subject="Build")
    url = f"{A}/chats/{rid}/tasks/{t['number']}"
    r = live.agent(key, "POST", url, json={"status": "in_progress", "active_form": "building"})
    assert r.status_code == 200, r.text
    d = r.json()["data"]
    assert d["overall_status"] == "in_progress"
    [a] = d["assignments"]
    assert a["assignee"]["id"] == aid and a["status"] == "in_progress"
    assert a["active_form"] == "building" and a["linked_native_id"] == "" and a["updated_at"]
    d = live.agent(key, "POST", url, json={"comment": "half way", "subject": "Build it"}).json()
    assert d["data"]["subject"] == "Build it"
    d = live.agent(key, "POST", url, json={"status": "completed", "state": "archived"}).json()
    assert d["data"]["state"] == "archived" and d["data"]["overall_status"] == "completed"
    hist = live.agent(key, "GET", url + "/history").json()
    events = [e["event"] for e in hist["data"]]
    assert events == ["created", "status_changed", "edited", "commented", "status_changed",
                      "archived"]  # fmt: skip
    first_status = hist["data"][1]
    assert first_status["payload"] == {"assignee_id": aid, "from": None, "to": "in_progress"}
    assert first_status["actor"]["id"] == aid and first_status["at"]
    assert hist["data"][2]["payload"] == {
        "from": {"subject": "Build"},
        "to": {"subject": "Build it"},
    }
    assert hist["metadata"]["has_more"] is False
    page = live.agent(key, "GET", url + "/history?limit=2").json()
    assert len(page["data"]) == 2 and page["metadata"]["has_more"] is True
    rest = live.agent(key, "GET", url + f"/history?cursor={page['metadata']['next_cursor']}")
    assert [e["event"] for e in rest.json()["data"]] == events[2:]
    got = live.agent(key, "GET", url + "?include=history").json()["data"]
    assert [e["event"] for e in got["history"]] == events and got["history_truncated"] is False
    # archived: hidden by default, visible by state filter; work fields need an active task
    assert live.agent(key, "GET", f"{A}/chats/{rid}/tasks").json()["data"] == []
    listed = live.agent(key, "GET", f"{A}/chats/{rid}/tasks?state=archived").json()["data"]
    assert [x["id"] for x in listed] == [t["id"]]
    _err(live.agent(key, "POST", url, json={"comment": "late"}), 422, "validation_error")
    d = live.agent(key, "POST", url, json={"state": "active", "comment": "back"}).json()["data"]
    assert d["state"] == "active"
    events = [e["event"] for e in live.agent(key, "GET", url + "/history").json()["data"]]
    assert events[-2:] == ["unarchived", "commented"]


def test_supersede_and_cancel(live: Live) -> None:
    _, _, key, rid = _setup(live)
    old = _create(live, key, rid, subject="v1")
    new = _create(live, key, rid, subject="v2", supersedes_id=str(old["number"]))
    got = live.agent(key, "GET", f"{A}/chats/{rid}/tasks/{old['id']}").json()["data"]
    assert got["state"] == "superseded" and got["superseded_by_id"] == new["id"]
    allt = live.agent(key, "GET", f"{A}/chats/{rid}/tasks?state=all").json()["data"]
    assert [x["number"] for x in allt] == [1, 2]
    sup = live.agent(key, "GET", f"{A}/chats/{rid}/tasks?state=superseded").json()["data"]
    assert [x["id"] for x in sup] == [old["id"]]
    body = {"subject": "v3", "supersedes_id": old["id"]}
    _err(live.agent(key, "POST", f"{A}/chats/{rid}/tasks", json=body), 422, "validation_error")
    url = f"{A}/chats/{rid}/tasks/{old['id']}"
    _err(live.agent(key, "POST", url, json={"state": "active"}), 422, "validation_error")
    r = live.agent(key, "POST", f"{A}/chats/{rid}/tasks/{new['id']}", json={"state": "cancelled"})
    assert r.json()["data"]["state"] == "cancelled"


def test_task_errors_and_visibility(live: Live) -> None:
    _, _, key, rid = _setup(live)
    _, _, stranger = live.register("Stranger")
    t = _create(live, key, rid, subject="x")
    tasks, url = f"{A}/chats/{rid}/tasks", f"{A}/chats/{rid}/tasks/{t['id']}"
    _err(live.agent(key, "POST", tasks, json={}), 422, "validation_error")
    _err(live.agent(key, "POST", tasks, json={"subject": "  "}), 422, "validation_error")
    _err(live.agent(key, "POST", tasks, json={"subject": 5}), 422, "validation_error")
    _err(live.agent(key, "POST", tasks, content=b"{bad"), 400, "bad_request")
    body = {"subject": "y", "supersedes_id": "99"}
    _err(live.agent(key, "POST", tasks, json=body), 404, "not_found")
    _err(live.agent(key, "GET", tasks + "?state=bogus"), 422, "validation_error")
    _err(live.agent(key, "GET", tasks + "?limit=0"), 422, "validation_error")
    _err(live.agent(key, "GET", tasks + "?limit=101"), 422, "validation_error")
    err = _err(live.agent(key, "POST", url, json={}), 422, "validation_error")
    assert err["message"].startswith("At least one of status")
    _err(live.agent(key, "POST", url, json={"status": "done"}), 422, "validation_error")
    _err(live.agent(key, "POST", url, json={"state": "superseded"}), 422, "validation_error")
    _err(live.agent(key, "GET", url + "?include=x"), 422, "validation_error")
    _err(live.agent(key, "GET", f"{tasks}/42"), 404, "not_found")
    _err(live.agent(key, "GET", f"{tasks}/nope/history"), 404, "not_found")
    _err(live.agent(key, "POST", f"{tasks}/42", json={"comment": "c"}), 404, "not_found")
    for method, path in (("GET", tasks), ("GET", url), ("GET", url + "/history"),
                         ("GET", f"{A}/chats/{rid}/board")):  # fmt: skip
        _err(live.agent(stranger, method, path), 404, "not_found")
    _err(live.agent(stranger, "POST", tasks, json={"subject": "s"}), 404, "not_found")
    _err(live.agent(stranger, "PUT", f"{A}/chats/{rid}/board", json={"goal_title": "g"}), 404,
         "not_found")  # fmt: skip
    _err(live.client.get(live.rest + tasks), 401, "unauthorized")
    _err(live.human("GET", tasks), 403, "forbidden")
    # a task of another room is not visible through this room
    other_room = _room(live, *[live.agent(key, "GET", A + "/me").json()["data"]["id"]])
    _err(live.agent(key, "GET", f"{A}/chats/{other_room}/tasks/{t['id']}"), 404, "not_found")
    assert live.agent(key, "GET", f"{A}/chats/{other_room}/tasks").json()["data"] == []


def test_board(live: Live) -> None:
    aid, _, key, rid = _setup(live)
    url = f"{A}/chats/{rid}/board"
    d = live.agent(key, "GET", url).json()["data"]
    assert d["chat_room_id"] == rid and d["goal_title"] is None and d["goal_summary"] is None
    r = live.agent(key, "PUT", url, json={"goal_title": "Ship it"})
    assert r.status_code == 200, r.text
    d = r.json()["data"]
    assert d["goal_title"] == "Ship it" and d["goal_summary"] is None
    assert d["created_by"]["id"] == aid and d["updated_by"]["id"] == aid and d["inserted_at"]
    d = live.agent(key, "PUT", url, json={"goal_summary": "by Friday"}).json()["data"]
    assert d["goal_title"] == "Ship it" and d["goal_summary"] == "by Friday"
    h = live.agent(key, "GET", url + "?include=history").json()["data"]
    assert [e["event"] for e in h["history"]] == ["goal_set", "goal_edited"]
    assert h["history"][1]["payload"] == {"from": {"goal_summary": None},
                                          "to": {"goal_summary": "by Friday"}}  # fmt: skip
    assert h["history_truncated"] is False and h["history"][0]["actor"]["type"] == "Agent"
    assert "history" not in live.agent(key, "GET", url).json()["data"]
    err = _err(live.agent(key, "PUT", url, json={}), 422, "validation_error")
    assert err["message"] == "At least one of goal_title or goal_summary must be set"
    _err(live.agent(key, "PUT", url, json={"goal_title": 3}), 422, "validation_error")
    _err(live.agent(key, "GET", url + "?include=all"), 422, "validation_error")


def test_me_peers(live: Live) -> None:
    a1, _, _ = live.register("One")
    a2, _, _ = live.register("Two")
    rid = _room(live, a1)
    body = live.human("GET", "/api/v1/me/peers").json()
    ids = {p["id"] for p in body["data"]}
    assert {a1, a2} <= ids and live.app.state.user_id not in ids
    assert body["metadata"] == {"page": 1, "page_size": 20, "total_count": 2, "total_pages": 1}
    peer = next(p for p in body["data"] if p["id"] == a1)
    assert peer["type"] == "Agent" and peer["source"] == "registry"
    assert peer["is_contact"] is False and peer["online"] is False and peer["handle"]
    d = live.human("GET", f"/api/v1/me/peers?not_in_chat={rid}").json()["data"]
    assert [p["id"] for p in d] == [a2]
    assert live.human("GET", "/api/v1/me/peers?type=User").json()["data"] == []
    page = live.human("GET", "/api/v1/me/peers?type=Agent&page=2&page_size=1").json()
    assert len(page["data"]) == 1 and page["metadata"]["total_pages"] == 2
    _err(live.human("GET", "/api/v1/me/peers?type=Robot"), 422, "validation_error")
    _err(live.human("GET", "/api/v1/me/peers?page_size=0"), 422, "validation_error")
    _err(live.human("GET", "/api/v1/me/peers?not_in_chat=nope"), 404, "not_found")
    _, _, key = live.register("Three")
    _err(live.agent(key, "GET", "/api/v1/me/peers"), 403, "forbidden")


def test_linked_native_id_only_update_joins_caller(live: Live) -> None:
    aid, _, key, rid = _setup(live)
    t = _create(live, key, rid, subject="Link")
    url = f"{A}/chats/{rid}/tasks/{t['id']}"
    d = live.agent(key, "POST", url, json={"linked_native_id": "todo-7"}).json()["data"]
    [a] = d["assignments"]
    assert a["assignee"]["id"] == aid and a["linked_native_id"] == "todo-7"
    assert a["status"] == "pending" and d["overall_status"] == "pending"
