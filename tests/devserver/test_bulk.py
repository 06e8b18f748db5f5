"""Bulk deletion of agents and rooms over real HTTP, with the pushes members see."""

from __future__ import annotations

import asyncio
import json

import websockets

from .conftest import Live, room_with
from .payloads import check_payload


def test_bulk_delete_agents(live: Live) -> None:
    a1, _, k1 = live.register("One")
    a2, _, _ = live.register("Two")
    r = live.human("POST", "/api/v1/me/agents/bulk-delete", json={"ids": [a1, a2, "nope"]})
    assert r.status_code == 202
    job = r.json()["data"]
    assert (job["status"], job["resource_type"], job["force"]) == ("completed", "agent", False)
    assert (job["total"], job["processed"], job["succeeded"], job["failed"]) == (3, 3, 2, 1)
    assert [(i["id"], i["status"]) for i in job["results"]] == [
        (a1, "succeeded"), (a2, "succeeded"), ("nope", "failed")]  # fmt: skip
    assert job["results"][2]["error"] == {"code": "not_found", "message": "agent not found"}
    assert job["results"][0]["error"] is None
    assert live.agent(k1, "GET", "/api/v1/agent/me").status_code == 401
    again = live.human("GET", f"/api/v1/me/bulk-deletions/{job['id']}")
    assert again.status_code == 200 and again.json()["data"] == job
    assert live.human("GET", "/api/v1/me/bulk-deletions/missing").status_code == 404
    for body in ({}, {"ids": []}, {"ids": [1]}, {"ids": "x"}, {"ids": ["x"] * 101}):
        bad = live.human("POST", "/api/v1/me/agents/bulk-delete", json=body)
        assert bad.status_code == 422
        assert bad.json()["error"]["message"] == (
            "ids must be a non-empty array of at most 100 strings"
        )


def test_bulk_delete_chats_pushes_room_deleted(live: Live) -> None:
    aid, _, key = live.register("Member")
    rid = room_with(live, aid)

    async def scenario() -> list[list]:
        url = f"{live.ws}?vsn=2.0.0&agent_id={aid}"
        async with websockets.connect(url, additional_headers={"x-api-key": key}) as ws:
            for ref, topic in (("1", f"agent_rooms:{aid}"), ("2", f"room_participants:{rid}")):
                await ws.send(json.dumps([ref, ref, topic, "phx_join", {}]))
                assert json.loads(await ws.recv())[4]["status"] == "ok"
            body = {"ids": [rid]}
            r = await asyncio.to_thread(
                live.human, "POST", "/api/v1/me/chats/bulk-delete", json=body
            )
            assert r.status_code == 202 and r.json()["data"]["succeeded"] == 1
            return [json.loads(await asyncio.wait_for(ws.recv(), 5)) for _ in range(2)]

    frames = asyncio.run(scenario())
    events = {f[3]: f for f in frames}
    assert events["room_deleted"][:3] == ["2", None, f"room_participants:{rid}"]
    assert events["room_deleted"][4] == {"id": rid}
    assert events["room_removed"][2] == f"agent_rooms:{aid}"
    check_payload("room_deleted", events["room_deleted"][4])
    check_payload("room_removed", events["room_removed"][4])
    assert live.agent(key, "GET", f"/api/v1/agent/chats/{rid}").status_code == 404
    rooms = [c["id"] for c in live.human("GET", "/api/v1/me/chats").json()["data"]]
    assert rid not in rooms
