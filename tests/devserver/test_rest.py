"""REST tests against a live server: envelopes, errors, visibility, delivery state machine."""

from __future__ import annotations

from .conftest import Live, say
from .conftest import expect_error as _err
from .conftest import room_with as _room_with

A = "/api/v1/agent"


def test_agent_me(live: Live) -> None:
    aid, handle, key = live.register("Echo")
    r = live.agent(key, "GET", A + "/me")
    d = r.json()["data"]
    assert d["id"] == aid and d["handle"] == handle and d["description"] == "Echo agent"
    assert isinstance(d["feature_flags"], dict) and d["owner_uuid"]
    assert d["feature_flags"]["ff_file_transfer"] is True  # room files and attachments work


def test_auth_errors(live: Live) -> None:
    _err(live.client.get(live.rest + A + "/me"), 401, "unauthorized")
    _err(live.agent("band_a_nope", "GET", A + "/me"), 401, "unauthorized")
    _err(live.human("GET", A + "/me"), 403, "forbidden")
    _, _, key = live.register("X")
    _err(live.agent(key, "GET", "/api/v1/me/profile"), 403, "forbidden")


def test_unknown_route_and_bad_bodies(live: Live) -> None:
    _err(live.human("GET", "/api/v1/nope"), 404, "not_found")
    _err(live.human("PATCH", "/api/v1/me/profile"), 405, "method_not_allowed")
    r = live.human("POST", "/api/v1/me/chats", content=b"{not json")
    _err(r, 400, "bad_request")
    _err(live.human("POST", "/api/v1/me/chats", json=[1]), 422, "validation_error")
    _err(live.human("POST", "/api/v1/me/agents/register", json={"agent": {}}), 422,
         "validation_error")  # fmt: skip
    _err(live.human("GET", "/api/v1/me/chats?page=x"), 422, "validation_error")


def test_chats_pagination_and_visibility(live: Live) -> None:
    aid, _, key = live.register("A")
    _, _, other = live.register("B")
    rooms = {_room_with(live, aid) for _ in range(3)}
    r = live.agent(key, "GET", A + "/chats?page=1&page_size=2")
    body = r.json()
    assert len(body["data"]) == 2
    assert body["metadata"] == {"page": 1, "page_size": 2, "total_count": 3, "total_pages": 2}
    page2 = live.agent(key, "GET", A + "/chats?page=2&page_size=2").json()["data"]
    assert {c["id"] for c in body["data"] + page2} == rooms
    assert live.agent(other, "GET", A + "/chats").json()["data"] == []
    rid = next(iter(rooms))
    _err(live.agent(other, "GET", f"{A}/chats/{rid}/messages"), 404, "not_found")
    _err(live.agent(other, "GET", f"{A}/chats/{rid}/messages/next"), 404, "not_found")


def test_agent_creates_chat(live: Live) -> None:
    aid, _, key = live.register("A")
    r = live.agent(key, "POST", A + "/chats", json={"chat": {}})
    assert r.status_code == 201
    rid = r.json()["data"]["id"]
    parts = live.agent(key, "GET", f"{A}/chats/{rid}/participants").json()["data"]
    assert [(p["id"], p["role"], p["type"]) for p in parts] == [(aid, "owner", "Agent")]
    got = live.agent(key, "GET", f"{A}/chats/{rid}").json()["data"]
    assert got["id"] == rid and set(got) >= {"inserted_at", "updated_at", "title", "task_id"}
    _, _, other = live.register("B")
    _err(live.agent(other, "GET", f"{A}/chats/{rid}"), 404, "not_found")


def test_delivery_state_machine(live: Live) -> None:
    aid, _, key = live.register("A")
    rid = _room_with(live, aid)
    base = f"{A}/chats/{rid}/messages"
    assert live.agent(key, "GET", base + "/next").status_code == 204
    m1 = say(live, rid, "hello", aid)
    say(live, rid, "not for you")
    m2 = say(live, rid, "second", aid)
    listed = live.agent(key, "GET", base).json()
    assert [m["id"] for m in listed["data"]] == [m1, m2]
    assert listed["metadata"]["has_more"] is False and listed["metadata"]["limit"] == 20
    nxt = live.agent(key, "GET", base + "/next").json()["data"]
    assert nxt["id"] == m1 and nxt["content"].startswith(f"@[[{aid}]]")
    _err(live.agent(key, "POST", f"{base}/{m1}/processed"), 422, "validation_error")
    err = live.agent(key, "POST", f"{base}/{m1}/processed").json()["error"]
    assert "/processing_attempt" in err["details"]
    p1 = live.agent(key, "POST", f"{base}/{m1}/processing").json()["data"]
    assert p1 == {"id": m1, "status": "processing", "attempt_number": 1, "success": True}
    again = live.agent(key, "POST", f"{base}/{m1}/processing").json()["data"]
    assert again["attempt_number"] == 1
    assert live.agent(key, "GET", base + "/next").json()["data"]["id"] == m1
    r = live.agent(key, "POST", f"{base}/{m1}/failed", json={"error": "boom"})
    assert r.json()["data"]["status"] == "failed"
    _err(live.agent(key, "POST", f"{base}/{m1}/failed", json={"error": "x"}), 422,
         "validation_error")  # fmt: skip
    assert live.agent(key, "GET", base + "/next").json()["data"]["id"] == m1
    p2 = live.agent(key, "POST", f"{base}/{m1}/processing").json()["data"]
    assert p2["attempt_number"] == 2
    done = live.agent(key, "POST", f"{base}/{m1}/processed").json()["data"]
    assert done["status"] == "processed"
    assert live.agent(key, "GET", base + "/next").json()["data"]["id"] == m2
    processed = live.agent(key, "GET", base + "?status=processed").json()["data"]
    ds = processed[0]["metadata"]["delivery_status"][aid]
    assert ds["status"] == "processed" and [a["status"] for a in ds["attempts"]] == [
        "failed",
        "success",
    ]
    for mid in (m2,):
        live.agent(key, "POST", f"{base}/{mid}/processing")
        live.agent(key, "POST", f"{base}/{mid}/processed")
    assert live.agent(key, "GET", base + "/next").status_code == 204
    assert live.agent(key, "GET", base).json()["data"] == []
    reopened = live.agent(key, "POST", f"{base}/{m1}/processing").json()["data"]
    assert reopened["attempt_number"] == 3
    _err(live.agent(key, "POST", f"{base}/nope/processing"), 404, "not_found")
    _err(live.agent(key, "GET", base + "?status=weird"), 422, "validation_error")


def test_cursor_pagination(live: Live) -> None:
    aid, _, key = live.register("A")
    rid = _room_with(live, aid)
    ids = [say(live, rid, f"m{i}", aid) for i in range(5)]
    base = f"{A}/chats/{rid}/messages"
    page = live.agent(key, "GET", base + "?limit=2").json()
    assert page["metadata"]["has_more"] is True
    seen = [m["id"] for m in page["data"]]
    while page["metadata"]["has_more"]:
        cur = page["metadata"]["next_cursor"]
        page = live.agent(key, "GET", f"{base}?limit=2&cursor={cur}").json()
        seen += [m["id"] for m in page["data"]]
    assert seen == ids
    desc = live.agent(key, "GET", base + "?sort_order=desc&limit=5").json()["data"]
    assert [m["id"] for m in desc] == ids[::-1]


def test_agent_post_message_mentions(live: Live) -> None:
    aid, _, key = live.register("A")
    bid, bhandle, bkey = live.register("B")
    _, _, stranger = live.register("C")
    rid = _room_with(live, aid, bid)
    url = f"{A}/chats/{rid}/messages"
    no_mention = {"message": {"content": "hi", "mentions": []}}
    _err(live.agent(key, "POST", url, json=no_mention), 422, "validation_error")
    blank = {"message": {"content": "  ", "mentions": [{"id": bid}]}}
    _err(live.agent(key, "POST", url, json=blank), 422, "validation_error")
    cid = live.agent(stranger, "GET", A + "/me").json()["data"]["id"]
    bad = {"message": {"content": "hi", "mentions": [{"id": cid, "handle": ""}]}}
    err = _err(live.agent(key, "POST", url, json=bad), 422, "validation_error")
    assert err["message"] == "mentioned_participant_not_in_room"
    wrong_type = {"message": {"content": "hi", "mentions": [{"handle": 5}]}}
    _err(live.agent(key, "POST", url, json=wrong_type), 422, "validation_error")
    ok = {"message": {"content": "hi B", "mentions": [{"id": bid, "handle": bhandle}]}}
    r = live.agent(key, "POST", url, json=ok)
    assert r.status_code == 201
    d = r.json()["data"]
    assert d["success"] is True and d["recipients"][0]["handle"] == bhandle
    by_handle = {"message": {"content": "again", "mentions": [{"handle": "@" + bhandle}]}}
    assert live.agent(key, "POST", url, json=by_handle).status_code == 201
    assert len(live.agent(bkey, "GET", url).json()["data"]) == 2
    assert live.agent(key, "GET", url).json()["data"] == []


def test_events_and_context(live: Live) -> None:
    aid, _, key = live.register("A")
    rid = _room_with(live, aid)
    m1 = say(live, rid, "question", aid)
    say(live, rid, "chatter")
    url = f"{A}/chats/{rid}/events"
    ev = {"event": {"content": "thinking", "message_type": "thought"}}
    r = live.agent(key, "POST", url, json=ev)
    assert r.status_code == 201 and r.json()["data"]["message_type"] == "thought"
    bad = {"event": {"content": "x", "message_type": "text"}}
    _err(live.agent(key, "POST", url, json=bad), 422, "validation_error")
    big = {"event": {"content": "x" * 16385, "message_type": "thought"}}
    _err(live.agent(key, "POST", url, json=big), 422, "validation_error")
    ctx = live.agent(key, "GET", f"{A}/chats/{rid}/context").json()
    assert [m["message_type"] for m in ctx["data"]] == ["text", "thought"]
    assert ctx["data"][0]["id"] == m1 and ctx["metadata"]["has_more"] is False
    assert live.agent(key, "GET", f"{A}/chats/{rid}/messages/next").json()["data"]["id"] == m1
    everything = live.human("GET", f"/api/v1/me/chats/{rid}/messages").json()
    assert len(everything["data"]) == 3 and everything["metadata"]["total_count"] == 3
    act = live.agent(key, "POST", f"{A}/chats/{rid}/activity", json={"working": True})
    assert act.json()["data"] == {"working": True}


def test_participants_and_peers(live: Live) -> None:
    aid, _, key = live.register("A")
    bid, _, bkey = live.register("B")
    rid = _room_with(live, aid)
    url = f"{A}/chats/{rid}/participants"
    parts = live.agent(key, "GET", url).json()["data"]
    assert {p["type"] for p in parts} == {"User", "Agent"}
    peers = live.agent(key, "GET", A + f"/peers?not_in_chat={rid}").json()
    assert [p["id"] for p in peers["data"]] == [bid]
    assert peers["metadata"]["total_count"] == 1
    r = live.agent(key, "POST", url, json={"participant": {"participant_id": bid}})
    assert r.status_code == 201 and r.json()["data"]["role"] == "member"
    _err(live.agent(key, "POST", url, json={"participant": {"participant_id": "zz"}}), 404,
         "not_found")  # fmt: skip
    _err(live.agent(bkey, "DELETE", f"{url}/{aid}"), 403, "forbidden")
    _err(live.agent(key, "DELETE", f"{url}/{bid}"), 403, "forbidden")
    r = live.human("DELETE", f"/api/v1/me/chats/{rid}/participants/{bid}")
    assert r.status_code == 200 and r.json()["data"]["id"] == bid
    assert live.agent(bkey, "GET", A + "/chats").json()["data"] == []


def test_human_api(live: Live) -> None:
    prof = live.human("GET", "/api/v1/me/profile").json()["data"]
    assert prof["handle"] == "local" and prof["role"] == "user"
    aid, _, _ = live.register("A")
    agents = live.human("GET", "/api/v1/me/agents").json()
    assert [a["id"] for a in agents["data"]] == [aid]
    rid = _room_with(live, aid)
    room = live.human("GET", f"/api/v1/me/chats/{rid}").json()["data"]
    assert room["agents"][0]["id"] == aid
    chats = live.human("GET", "/api/v1/me/chats?include=total_count").json()
    assert chats["metadata"]["total_count"] == 1
    # a parameter the route does not declare is refused, naming it
    bogus = _err(live.human("GET", "/api/v1/me/chats?colour=red"), 422, "validation_error")
    assert bogus["message"] == "Unexpected field: colour" and "colour" in bogus["details"]
    _err(live.human("GET", f"/api/v1/me/chats/{rid}/context"), 404, "not_found")
    _err(live.human("GET", "/api/v1/me/profile?x=1"), 422, "validation_error")
    parts = live.human("GET", f"/api/v1/me/chats/{rid}/participants?participant_type=Agent")
    assert [p["id"] for p in parts.json()["data"]] == [aid]
    _err(live.human("GET", "/api/v1/me/chats/missing"), 404, "not_found")
