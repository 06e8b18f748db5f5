"""Room rename (agent), profile update and agent deletion (human), over real HTTP."""

from __future__ import annotations

from .conftest import Live, room_with


def test_agent_renames_a_room_it_is_in(live: Live) -> None:
    _, _, key = live.register("Renamer")
    rid = live.agent(key, "POST", "/api/v1/agent/chats", json={"chat": {}}).json()["data"]["id"]
    r = live.agent(key, "PATCH", f"/api/v1/agent/chats/{rid}", json={"chat": {"title": "Plans"}})
    assert r.status_code == 200
    assert r.json()["data"]["title"] == "Plans"
    assert live.agent(key, "GET", f"/api/v1/agent/chats/{rid}").json()["data"]["title"] == "Plans"
    bad = live.agent(key, "PATCH", f"/api/v1/agent/chats/{rid}", json={"chat": {"title": 3}})
    assert bad.status_code == 422
    assert bad.json()["error"]["code"] == "validation_error"
    _, _, other = live.register("Outsider")
    r = live.agent(other, "PATCH", f"/api/v1/agent/chats/{rid}", json={"chat": {"title": "x"}})
    assert r.status_code == 404


def test_profile_update(live: Live) -> None:
    r = live.human("PUT", "/api/v1/me/profile", json={"user": {"first_name": "Ada"}})
    assert r.status_code == 200
    assert r.json()["data"]["first_name"] == "Ada"
    r = live.human("PUT", "/api/v1/me/profile", json={"user": {"last_name": "Lovelace"}})
    assert (r.json()["data"]["first_name"], r.json()["data"]["last_name"]) == ("Ada", "Lovelace")
    profile = live.human("GET", "/api/v1/me/profile").json()["data"]
    assert (profile["first_name"], profile["last_name"]) == ("Ada", "Lovelace")
    r = live.human("PUT", "/api/v1/me/profile", json={"user": {}})
    assert r.status_code == 422
    assert r.json()["error"]["message"] == (
        "At least one field (first_name or last_name) must be provided"
    )


def test_delete_agent_revokes_its_key(live: Live) -> None:
    aid, _, key = live.register("Doomed")
    rid = room_with(live, aid)
    r = live.human("DELETE", f"/api/v1/me/agents/{aid}")
    assert r.status_code == 200
    assert r.json()["data"] == {
        "id": aid,
        "name": "Doomed",
        "description": "Doomed agent",
        "executions_deleted": 0,
    }
    assert live.agent(key, "GET", "/api/v1/agent/me").status_code == 401
    ids = [a["id"] for a in live.human("GET", "/api/v1/me/agents").json()["data"]]
    assert aid not in ids
    parts = live.human("GET", f"/api/v1/me/chats/{rid}/participants").json()["data"]
    assert aid not in [p["id"] for p in parts]
    assert live.human("DELETE", f"/api/v1/me/agents/{aid}").status_code == 404
