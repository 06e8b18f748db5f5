"""Authorization on the local platform: keys act only for their owner, rooms only for members."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
import websockets
from bandtest.platform import Live, room_with

from band.devserver.store import Store

OUTSIDER_CALLS = [
    ("GET", "/agent/chats/{rid}"),
    ("GET", "/agent/chats/{rid}/messages"),
    ("GET", "/agent/chats/{rid}/messages/next"),
    ("GET", "/agent/chats/{rid}/context"),
    ("GET", "/agent/chats/{rid}/participants"),
    ("POST", "/agent/chats/{rid}/messages"),
    ("POST", "/agent/chats/{rid}/events"),
    ("POST", "/agent/chats/{rid}/activity"),
    ("POST", "/agent/chats/{rid}/participants"),
    ("DELETE", "/agent/chats/{rid}/participants/{aid}"),
    ("POST", "/agent/chats/{rid}/messages/{mid}/processing"),
    ("POST", "/agent/chats/{rid}/messages/{mid}/processed"),
    ("POST", "/agent/chats/{rid}/messages/{mid}/failed"),
]
BODIES = {
    "/messages": {"message": {"content": "intrusion", "mentions": [{"id": "x"}]}},
    "/events": {"event": {"content": "intrusion", "message_type": "thought"}},
    "/activity": {"working": True},
    "/participants": {"participant": {"participant_id": "{oid}"}},
    "/failed": {"error": "intrusion"},
}


def _refused(r: Any) -> None:
    """A 403 or 404 in Band's error envelope (never a 2xx, never a 5xx)."""
    assert r.status_code in (403, 404), (r.status_code, r.text)
    err = r.json()["error"]
    assert err["code"] in ("forbidden", "not_found") and err["message"] and err["request_id"]


@pytest.fixture
def setting(live: Live) -> dict[str, str]:
    """Agent A in a room with a pending message for it; agent O outside that room."""
    aid, _, akey = live.register("Insider")
    oid, _, okey = live.register("Outsider")
    rid = room_with(live, aid)
    body = {"message": {"content": "for A", "mentions": [{"id": aid}]}}
    mid = live.human("POST", f"/api/v1/me/chats/{rid}/messages", json=body).json()["data"]["id"]
    return {"aid": aid, "akey": akey, "oid": oid, "okey": okey, "rid": rid, "mid": mid}


@pytest.mark.parametrize(("method", "template"), OUTSIDER_CALLS)
def test_agent_outside_a_room_cannot_touch_it(
    live: Live, setting: dict[str, str], method: str, template: str
) -> None:
    url = "/api/v1" + template.format(**setting)
    suffix = next((s for s in BODIES if template.endswith(s)), None)
    body = (
        json.loads(json.dumps(BODIES[suffix]).replace("{oid}", setting["oid"])) if suffix else None
    )
    _refused(live.agent(setting["okey"], method, url, json=body))
    rows = live.human("GET", f"/api/v1/me/chats/{setting['rid']}/messages").json()["data"]
    assert [m["sender_id"] for m in rows] != [] and setting["oid"] not in {
        m["sender_id"] for m in rows
    }
    parts = live.human("GET", f"/api/v1/me/chats/{setting['rid']}/participants").json()["data"]
    assert setting["oid"] not in {p["id"] for p in parts}
    [msg] = [m for m in rows if m["id"] == setting["mid"]]
    assert setting["oid"] not in msg["metadata"].get("delivery_status", {})
    assert msg["metadata"]["delivery_status"][setting["aid"]]["status"] != "processed"


def test_agent_cannot_join_another_room_or_agents_topics(
    live: Live, setting: dict[str, str]
) -> None:
    async def join(key: str, topic: str) -> dict[str, Any]:
        url = f"{live.ws}?vsn=2.0.0&agent_id={setting['oid']}"
        async with websockets.connect(url, additional_headers={"x-api-key": key}) as ws:
            await ws.send(json.dumps(["1", "1", topic, "phx_join", {}]))
            return json.loads(await asyncio.wait_for(ws.recv(), 5))[4]

    for topic in (
        f"chat_room:{setting['rid']}",
        f"room_participants:{setting['rid']}",
        f"agent_control:{setting['aid']}",
        f"agent_rooms:{setting['aid']}",
    ):
        reply = asyncio.run(join(setting["okey"], topic))
        assert reply == {"status": "error", "response": {"reason": "unauthorized"}}, topic


def test_keys_stay_on_their_own_api(live: Live, setting: dict[str, str]) -> None:
    r = live.agent(setting["akey"], "GET", "/api/v1/me/chats")
    assert r.status_code == 403 and r.json()["error"]["code"] == "forbidden"
    r = live.agent(live.user_key, "GET", "/api/v1/agent/chats")
    assert r.status_code == 403 and r.json()["error"]["code"] == "forbidden"
    for key in ("", "band_a_" + "x" * 40, setting["akey"][:-1]):
        r = live.agent(key, "GET", "/api/v1/agent/me")
        assert r.status_code == 401 and r.json()["error"]["code"] == "unauthorized"


def test_one_persons_key_cannot_act_for_another(live: Live, setting: dict[str, str]) -> None:
    bob_key = "band_u_" + "b" * 32
    asyncio.run(live.app.state.directory.run(Store.create_user, "Bob", "bob", bob_key))
    rid, aid, mid = setting["rid"], setting["aid"], setting["mid"]

    def bob(method: str, path: str, **kw: Any) -> Any:
        return live.agent(bob_key, method, "/api/v1/me" + path, **kw)

    assert bob("GET", "/profile").json()["data"]["handle"] == "bob"
    assert bob("GET", "/chats").json()["data"] == []
    assert bob("GET", "/agents").json()["data"] == []
    _refused(bob("GET", f"/chats/{rid}"))
    _refused(bob("GET", f"/chats/{rid}/messages"))
    _refused(bob("GET", f"/chats/{rid}/participants"))
    _refused(bob("POST", f"/chats/{rid}/messages", json={"message": {"content": "hi"}}))
    _refused(
        bob("POST", f"/chats/{rid}/participants", json={"participant": {"participant_id": aid}})
    )
    _refused(bob("DELETE", f"/chats/{rid}/participants/{aid}"))
    _refused(bob("DELETE", f"/agents/{aid}"))
    _refused(bob("POST", f"/chats/{rid}/control", json={"mode": "stop", "agent_id": aid}))
    # nothing changed for Alice
    rows = live.human("GET", f"/api/v1/me/chats/{rid}/messages").json()["data"]
    assert [m["id"] for m in rows] == [mid]
    agents = live.human("GET", "/api/v1/me/agents").json()["data"]
    assert aid in {a["id"] for a in agents}
