"""Agent-wide agent.control (scope agent, room_id null) over real HTTP + WebSocket."""

from __future__ import annotations

from .conftest import Live, expect_error, room_with, say
from .payloads import check_payload
from .test_socket import client, connect, run

A = "/api/v1/agent"


def _ctl(live: Live, aid: str, mode: str, **kw: str) -> dict:
    r = live.human("POST", f"/api/v1/me/agents/{aid}/control", json={"mode": mode, **kw})
    assert r.status_code == 200, r.text
    return dict(r.json()["data"])


def test_agent_wide_stop_and_play_reach_every_room(live: Live) -> None:
    aid, _, key = live.register("Wide")
    bystander, _, bkey = live.register("Bystander")
    rooms = [room_with(live, aid, bystander), room_with(live, aid)]
    mids = [say(live, rid, "work", aid) for rid in rooms]
    reply = {"message": {"content": "hi", "mentions": [{"id": live.app.state.user_id}]}}

    async def body() -> None:
        async with client(live, key) as c, client(live, bkey) as other:
            assert (await c.join(f"agent_control:{aid}"))["status"] == "ok"
            assert (await other.join(f"agent_control:{bystander}"))["status"] == "ok"

            stop = _ctl(live, aid, "stop", reason="owner pressed stop")
            payload = (await c.push("agent.control"))[4]
            check_payload("agent.control", payload)
            assert payload["scope"] == "agent" and payload["room_id"] is None
            assert payload["mode"] == "stop" and payload["agent_id"] == aid
            assert payload["reason"] == "owner pressed stop"
            assert payload["correlation_id"] == stop["correlation_id"]
            assert stop["stopped_room_ids"] == sorted(rooms)
            await other.nothing("agent.control")  # only the agent's own topic

            for rid, mid in zip(rooms, mids, strict=True):
                r = live.agent(key, "POST", f"{A}/chats/{rid}/messages/{mid}/processing")
                assert r.status_code == 204
                r = live.agent(key, "POST", f"{A}/chats/{rid}/messages", json=reply)
                expect_error(r, 403, "forbidden")
                status = live.human("GET", f"/api/v1/me/chats/{rid}/control").json()["data"]
                assert status["stopped_agent_ids"] == [aid]
            # the bystander in the same room is not stopped
            r = live.agent(bkey, "POST", f"{A}/chats/{rooms[0]}/messages", json=reply)
            assert r.status_code == 201, r.text
            got = live.human("GET", f"/api/v1/me/agents/{aid}/control").json()["data"]
            assert got == {"agent_id": aid, "stopped_room_ids": sorted(rooms)}

            interrupt = _ctl(live, aid, "interrupt")
            p2 = (await c.push("agent.control"))[4]
            assert p2["mode"] == "interrupt" and p2["scope"] == "agent"
            assert interrupt["stopped_room_ids"] == sorted(rooms)  # interrupt keeps the stop

            play = _ctl(live, aid, "play")
            p3 = (await c.push("agent.control"))[4]
            check_payload("agent.control", p3)
            assert p3["mode"] == "play" and p3["room_id"] is None and play["stopped_room_ids"] == []
            assert len({payload["correlation_id"], p2["correlation_id"], p3["correlation_id"]}) == 3
            for rid, mid in zip(rooms, mids, strict=True):
                r = live.agent(key, "POST", f"{A}/chats/{rid}/messages/{mid}/processing")
                assert r.status_code == 200 and r.json()["data"]["status"] == "processing"

    run(body)


def test_room_play_after_agent_wide_stop_resumes_only_that_room(live: Live) -> None:
    aid, _, _ = live.register("Partial")
    one, two = room_with(live, aid), room_with(live, aid)
    _ctl(live, aid, "stop")
    r = live.human(
        "POST", f"/api/v1/me/chats/{one}/control", json={"mode": "play", "agent_id": aid}
    )
    assert r.status_code == 200 and r.json()["data"]["stopped"] is False
    got = live.human("GET", f"/api/v1/me/agents/{aid}/control").json()["data"]
    assert got["stopped_room_ids"] == [two]


def test_agent_control_errors(live: Live) -> None:
    aid, _, key = live.register("CtlErr")
    path = f"/api/v1/me/agents/{aid}/control"
    expect_error(live.human("POST", path, json={"mode": "pause"}), 422, "validation_error")
    expect_error(live.human("POST", path, json={}), 422, "validation_error")
    missing = "/api/v1/me/agents/no-such-agent/control"
    expect_error(live.human("POST", missing, json={"mode": "stop"}), 404, "not_found")
    expect_error(live.human("GET", missing), 404, "not_found")
    # an agent key is not the owner
    expect_error(live.agent(key, "POST", path, json={"mode": "stop"}), 403, "forbidden")


def test_socket_is_registered_when_the_upgrade_completes(live: Live) -> None:
    aid, _, key = live.register("Registered")
    assert live.app.state.fanout.agent_connected(aid) is None

    async def body() -> None:
        async with connect(live, key):
            # no waiting: the fanout knew the connection before the client saw the upgrade
            conn = live.app.state.fanout.agent_connected(aid)
            assert conn is not None and conn.principal.id == aid
            assert live.app.state.fanout.online(aid)

    run(body)
