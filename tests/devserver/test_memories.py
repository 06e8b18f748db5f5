"""Memories over real HTTP: agent and human APIs, validation, visibility, errors."""

from __future__ import annotations

from typing import Any

from .conftest import Live
from .conftest import expect_error as _err

A = "/api/v1/agent/memories"
H = "/api/v1/me/memories"


def _mem(**kw: Any) -> dict[str, Any]:
    base = {"content": "likes tea", "system": "long_term", "type": "semantic",
            "segment": "user", "thought": "useful later"}  # fmt: skip
    return {"memory": {**base, **kw}}


def _store(live: Live, key: str, **kw: Any) -> dict[str, Any]:
    r = live.agent(key, "POST", A, json=_mem(**kw))
    assert r.status_code == 201, r.text
    return r.json()["data"]


def test_agent_memory_lifecycle(live: Live) -> None:
    aid, _, key = live.register("Mem")
    meta = {"tags": ["pref"], "references": ["msg-1"]}
    m = _store(live, key, metadata=meta)
    assert m["status"] == "active" and m["scope"] == "agent" and m["source_agent_id"] == aid
    assert m["metadata"] == meta and m["thought"] == "useful later"
    assert m["organization_id"] is None and m["inserted_at"]
    assert live.agent(key, "GET", f"{A}/{m['id']}").json()["data"] == m
    s = _store(live, key, content="saw red", system="sensory", type="iconic", segment="tool",
               scope="subject", subject_id=live.app.state.user_id)  # fmt: skip
    assert s["scope"] == "subject" and s["subject_id"] == live.app.state.user_id

    body = live.agent(key, "GET", A).json()
    assert [x["id"] for x in body["data"]] == [m["id"], s["id"]]
    assert body["metadata"]["total_count"] == 2 and body["meta"] == body["metadata"]
    r = live.agent(key, "GET", A + "?limit=1").json()
    assert [x["id"] for x in r["data"]] == [m["id"]] and r["metadata"]["has_more"] is True
    cur = r["metadata"]["next_cursor"]
    r = live.agent(key, "GET", f"{A}?limit=1&cursor={cur}").json()
    assert [x["id"] for x in r["data"]] == [s["id"]] and r["metadata"]["has_more"] is False
    r = live.agent(key, "GET", A + "?page_size=1&page=2").json()
    assert [x["id"] for x in r["data"]] == [s["id"]] and r["metadata"]["total_pages"] == 2
    for q, ids in (("system=sensory", [s["id"]]), ("type=semantic", [m["id"]]),
                   ("segment=tool", [s["id"]]), ("scope=subject", [s["id"]]),
                   ("scope=all", [m["id"], s["id"]]), ("content_query=TEA", [m["id"]]),
                   (f"subject_id={live.app.state.user_id}", [s["id"]]),
                   ("content_query=%25", [])):  # fmt: skip
        assert [x["id"] for x in live.agent(key, "GET", f"{A}?{q}").json()["data"]] == ids, q

    r = live.agent(key, "POST", f"{A}/{m['id']}/supersede")
    assert r.status_code == 200 and r.json()["data"]["status"] == "superseded"
    r = live.agent(key, "POST", f"{A}/{s['id']}/archive")
    assert r.json()["data"]["status"] == "archived"
    assert live.agent(key, "GET", A).json()["data"] == []
    assert [x["id"] for x in live.agent(key, "GET", A + "?status=superseded").json()["data"]] == [
        m["id"]
    ]
    assert len(live.agent(key, "GET", A + "?status=all").json()["data"]) == 2
    assert live.agent(key, "GET", f"{A}/{s['id']}").json()["data"]["status"] == "archived"


def test_agent_memory_errors(live: Live) -> None:
    _, _, key = live.register("Mem")
    _, _, other = live.register("Other")
    _err(live.client.get(live.rest + A), 401, "unauthorized")
    _err(live.human("GET", A), 403, "forbidden")
    err = _err(live.agent(key, "POST", A, json=_mem(system="working", type="iconic")), 422,
               "validation_error")  # fmt: skip
    assert err["message"] == (
        "1 validation issue(s): type `iconic` is not valid for system `working`; "
        "expected one of: episodic, semantic, procedural (type)"
    )
    for bad in ({"system": "bogus"}, {"type": "bogus"}, {"segment": "bogus"},
                {"scope": "bogus"}, {"content": ""}, {"metadata": {"tags": [1]}},
                {"metadata": "x"}, {"scope": "subject"}):  # fmt: skip
        _err(live.agent(key, "POST", A, json=_mem(**bad)), 422, "validation_error")
    _err(live.agent(key, "POST", A, json={"content": "x"}), 422, "validation_error")
    _err(live.agent(key, "POST", A, json=_mem(scope="organization")), 422,
         "org_scope_requires_organization")  # fmt: skip
    _err(live.agent(key, "GET", A + "?memory_scope=org"), 422, "org_scope_requires_organization")
    _err(live.agent(key, "GET", A + "?memory_scope=x"), 422, "validation_error")
    _err(live.agent(key, "GET", A + "?status=gone"), 422, "validation_error")
    _err(live.agent(key, "GET", A + "?limit=101"), 422, "validation_error")
    _err(live.agent(key, "GET", A + "?page_size=51"), 422, "validation_error")
    for path in ("/nope", "/nope/supersede", "/nope/archive"):
        method = "GET" if path == "/nope" else "POST"
        _err(live.agent(key, method, A + path), 404, "not_found")
    m = _store(live, key)
    _err(live.agent(other, "GET", f"{A}/{m['id']}"), 404, "not_found")
    assert live.agent(other, "GET", A).json()["data"] == []
    oid = live.agent(other, "GET", "/api/v1/agent/me").json()["data"]["id"]
    about = _store(live, key, subject_id=oid)  # subject_id without scope -> subject
    assert about["scope"] == "subject"
    assert live.agent(other, "GET", f"{A}/{about['id']}").status_code == 200
    _err(live.agent(other, "POST", f"{A}/{about['id']}/archive"), 403, "forbidden")
    _err(live.agent(other, "POST", f"{A}/{about['id']}/supersede"), 403, "forbidden")


def test_human_memories(live: Live) -> None:
    aid, _, key = live.register("Mem")
    m = _store(live, key)
    s = _store(live, key, content="other", system="working", type="episodic", segment="agent")
    body = live.human("GET", H).json()
    assert [x["id"] for x in body["data"]] == [m["id"], s["id"]]
    assert body["metadata"]["total_count"] == 2 and "meta" in body
    u = live.human("GET", f"{H}/{m['id']}").json()["data"]
    assert u["source_agent_name"] == "Mem" and u["updated_at"] and u["chat_room_id"] is None
    assert u["content"] == "likes tea" and u["subject_name"] is None
    assert [x["id"] for x in live.human("GET", f"{H}?source_agent_id={aid}").json()["data"]] == [
        m["id"],
        s["id"],
    ]
    assert live.human("GET", H + "?source_agent_id=zzz").json()["data"] == []
    assert len(live.human("GET", H + "?segment=agent").json()["data"]) == 1

    _err(live.human("POST", f"{H}/{m['id']}/restore"), 422, "validation_error")
    r = live.human("POST", f"{H}/{m['id']}/archive")
    assert r.json()["data"]["status"] == "archived"
    r = live.human("POST", f"{H}/{m['id']}/restore")
    assert r.json()["data"]["status"] == "active"
    r = live.human("POST", f"{H}/{m['id']}/supersede")
    assert r.json()["data"]["status"] == "superseded"
    assert (
        live.agent(key, "GET", f"/api/v1/agent/memories/{m['id']}").json()["data"]["status"]
        == "superseded"
    )
    r = live.human("DELETE", f"{H}/{s['id']}")
    assert r.status_code == 200 and r.json()["data"]["id"] == s["id"]
    _err(live.human("GET", f"{H}/{s['id']}"), 404, "not_found")
    _err(live.agent(key, "GET", f"/api/v1/agent/memories/{s['id']}"), 404, "not_found")
    assert len(live.human("GET", H + "?status=all").json()["data"]) == 1


def test_human_memory_errors(live: Live) -> None:
    _, _, key = live.register("Mem")
    _err(live.agent(key, "GET", H), 403, "forbidden")
    _err(live.client.get(live.rest + H), 401, "unauthorized")
    for method, path in (("GET", "/nope"), ("DELETE", "/nope"), ("POST", "/nope/archive"),
                         ("POST", "/nope/supersede"), ("POST", "/nope/restore")):  # fmt: skip
        _err(live.human(method, H + path), 404, "not_found")
    _err(live.human("GET", H + "?system=x"), 422, "validation_error")
    _err(live.human("GET", H + "?scope=x"), 422, "validation_error")
    _err(live.human("GET", H + "?cursor=x"), 422, "validation_error")
