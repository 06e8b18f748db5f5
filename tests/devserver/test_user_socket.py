"""A person's socket (user key): whole-room live view, own rooms topic; agent routing unchanged."""

from __future__ import annotations

import asyncio

from .conftest import Live
from .payloads import check_payload
from .test_socket import client, run


def test_user_joins_only_own_topics(live: Live) -> None:
    aid, _, akey = live.register("A")
    theirs = live.agent(akey, "POST", "/api/v1/agent/chats", json={"chat": {}}).json()["data"]
    uid = live.human("GET", "/api/v1/me/profile").json()["data"]["id"]

    async def body() -> None:
        async with client(live, live.user_key, header=False) as c:
            assert (await c.join(f"user_rooms:{uid}"))["status"] == "ok"
            for topic in (
                f"user_rooms:{aid}",
                f"agent_rooms:{aid}",
                f"chat_room:{theirs['id']}",
                f"room_participants:{theirs['id']}",
            ):
                denied = await c.join(topic)
                assert denied == {"status": "error", "response": {"reason": "unauthorized"}}

    run(body)


def test_user_rooms_pushes(live: Live) -> None:
    _, _, akey = live.register("A")
    uid = live.human("GET", "/api/v1/me/profile").json()["data"]["id"]

    async def body() -> None:
        async with client(live, live.user_key) as c:
            await c.join(f"user_rooms:{uid}")
            mine = await asyncio.to_thread(
                live.human, "POST", "/api/v1/me/chats", json={"chat": {}}
            )
            frame = await c.push("room_added")
            assert frame[2] == f"user_rooms:{uid}" and frame[4]["id"] == mine.json()["data"]["id"]
            check_payload("room_added", frame[4])
            # an agent creates a room and adds the person: the person's view learns of it live
            url = "/api/v1/agent/chats"
            made = await asyncio.to_thread(live.agent, akey, "POST", url, json={"chat": {}})
            rid = made.json()["data"]["id"]
            add = {"participant": {"participant_id": uid}}
            parts = f"/api/v1/agent/chats/{rid}/participants"
            await asyncio.to_thread(live.agent, akey, "POST", parts, json=add)
            frame = await c.push("room_added")
            assert frame[4]["id"] == rid
            assert (await c.join(f"chat_room:{rid}"))["status"] == "ok"
            await asyncio.to_thread(live.agent, akey, "DELETE", f"{parts}/{uid}")
            assert (await c.pushed("room_removed"))["id"] == rid

    run(body)


def test_user_sees_every_room_message_and_event(live: Live) -> None:
    aid, _, akey = live.register("A")
    bid, _, bkey = live.register("B")
    uid = live.human("GET", "/api/v1/me/profile").json()["data"]["id"]
    rid = live.human("POST", "/api/v1/me/chats", json={"chat": {}}).json()["data"]["id"]
    for pid in (aid, bid):
        body = {"participant": {"participant_id": pid}}
        live.human("POST", f"/api/v1/me/chats/{rid}/participants", json=body)

    async def body() -> None:
        async with client(live, live.user_key) as u, client(live, bkey) as b:
            for c in (u, b):
                assert (await c.join(f"chat_room:{rid}"))["status"] == "ok"
            assert (await u.join(f"room_participants:{rid}"))["status"] == "ok"
            # A talks to B: the person sees it though not mentioned
            say = {"message": {"content": "hi B", "mentions": [{"id": bid}]}}
            url = f"/api/v1/agent/chats/{rid}/messages"
            await asyncio.to_thread(live.agent, akey, "POST", url, json=say)
            seen = await u.push("message_created")
            assert seen[2] == f"chat_room:{rid}" and seen[4]["sender_id"] == aid
            check_payload("message_created", seen[4])
            assert (await b.push("message_created"))[4]["id"] == seen[4]["id"]
            # A's thought: an event the person sees; agents are never sent a turn for it
            event = {"event": {"content": "thinking", "message_type": "thought"}}
            ev_url = f"/api/v1/agent/chats/{rid}/events"
            await asyncio.to_thread(live.agent, akey, "POST", ev_url, json=event)
            ev = await u.push("event_created")
            assert ev[4]["message_type"] == "thought" and ev[4]["content"] == "thinking"
            # agent routing unchanged: a message to A only never reaches B's socket
            only_a = {"message": {"content": "A only", "mentions": [{"id": aid}]}}
            me_url = f"/api/v1/me/chats/{rid}/messages"
            await asyncio.to_thread(live.human, "POST", me_url, json=only_a)
            mine = await u.push("message_created")
            assert mine[4]["sender_id"] == uid
            await b.nothing("message_created")
            # membership changes reach the person's view too
            await asyncio.to_thread(
                live.human, "DELETE", f"/api/v1/me/chats/{rid}/participants/{bid}"
            )
            gone = await u.push("participant_removed")
            assert gone[4]["id"] == bid

    run(body)
