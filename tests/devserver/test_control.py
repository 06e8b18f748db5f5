"""agent.control over real HTTP + WebSocket: stop / play / interrupt an agent in a room."""

from __future__ import annotations

from band.devserver.api.control import STOPPED_MESSAGE

from .conftest import Live, room_with, say
from .payloads import check_payload
from .test_socket import client, run


def _control(live: Live, rid: str, aid: str, mode: str, **kw: str) -> dict:
    r = live.human(
        "POST", f"/api/v1/me/chats/{rid}/control", json={"mode": mode, "agent_id": aid, **kw}
    )
    assert r.status_code == 200, r.text
    return dict(r.json()["data"])


def test_stop_play_interrupt(live: Live) -> None:
    aid, _, key = live.register("Ctl")
    rid = room_with(live, aid)
    other = room_with(live, aid)
    base = f"/api/v1/agent/chats/{rid}"
    reply = {"message": {"content": "hi", "mentions": [{"id": live.app.state.user_id}]}}

    async def body() -> None:
        async with client(live, key) as c:
            assert (await c.join(f"agent_control:{aid}"))["status"] == "ok"

            mid = say(live, rid, "work", aid)
            stop = _control(live, rid, aid, "stop", reason="user pressed stop")
            frame = await c.push("agent.control")
            assert frame[2] == f"agent_control:{aid}"
            payload = frame[4]
            check_payload("agent.control", payload)
            assert payload["mode"] == "stop" and payload["room_id"] == rid
            assert payload["scope"] == "room" and payload["agent_id"] == aid
            assert payload["execution_id"] is None and payload["reason"] == "user pressed stop"
            assert isinstance(payload["correlation_id"], str)
            assert stop["stopped"] is True and stop["correlation_id"] == payload["correlation_id"]
            status = live.human("GET", f"/api/v1/me/chats/{rid}/control").json()["data"]
            assert status["stopped_agent_ids"] == [aid]

            # while stopped: processing mark answers 204, posts get 403 "execution is stopped"
            r = live.agent(key, "POST", f"{base}/messages/{mid}/processing")
            assert r.status_code == 204 and r.content == b""
            r = live.agent(key, "POST", f"{base}/messages", json=reply)
            assert r.status_code == 403
            err = r.json()["error"]
            assert err["code"] == "forbidden" and "execution is stopped" in err["message"].lower()
            assert err["message"] == STOPPED_MESSAGE
            ev = {"event": {"content": "t", "message_type": "thought"}}
            assert live.agent(key, "POST", f"{base}/events", json=ev).status_code == 403
            # the message stays pending for replay after play
            nxt = live.agent(key, "GET", f"{base}/messages/next")
            assert nxt.status_code == 200 and nxt.json()["data"]["id"] == mid
            # other rooms are unaffected
            r = live.agent(key, "POST", f"/api/v1/agent/chats/{other}/messages", json=reply)
            assert r.status_code == 201, r.text

            play = _control(live, rid, aid, "play")
            p2 = (await c.push("agent.control"))[4]
            check_payload("agent.control", p2)
            assert p2["mode"] == "play" and "reason" not in p2 and play["stopped"] is False
            assert p2["correlation_id"] != payload["correlation_id"]
            r = live.agent(key, "POST", f"{base}/messages/{mid}/processing")
            assert r.status_code == 200, r.text
            assert live.agent(key, "POST", f"{base}/messages", json=reply).status_code == 201
            assert live.agent(key, "POST", f"{base}/messages/{mid}/processed").status_code == 200

            intr = _control(live, rid, aid, "interrupt")
            p3 = (await c.push("agent.control"))[4]
            check_payload("agent.control", p3)
            assert p3["mode"] == "interrupt" and intr["stopped"] is False
            assert live.agent(key, "POST", f"{base}/messages", json=reply).status_code == 201

    run(body)


def test_control_validation(live: Live) -> None:
    aid, _, key = live.register("V")
    bid, _, _ = live.register("NotInRoom")
    rid = room_with(live, aid)
    path = f"/api/v1/me/chats/{rid}/control"
    r = live.human("POST", path, json={"mode": "pause", "agent_id": aid})
    assert r.status_code == 422 and r.json()["error"]["code"] == "validation_error"
    assert live.human("POST", path, json={"mode": "stop"}).status_code == 422
    assert live.human("POST", path, json={"mode": "stop", "agent_id": bid}).status_code == 422
    bad_room = "/api/v1/me/chats/00000000-0000-0000-0000-000000000000/control"
    assert live.human("POST", bad_room, json={"mode": "stop", "agent_id": aid}).status_code == 404
    # agents cannot control, and the wrapped form {"control": {...}} works for humans
    r = live.agent(key, "POST", path, json={"mode": "stop", "agent_id": aid})
    assert r.status_code == 403
    r = live.human("POST", path, json={"control": {"mode": "stop", "agent_id": aid}})
    assert r.status_code == 200 and r.json()["data"]["stopped"] is True
