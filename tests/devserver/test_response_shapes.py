"""Pin the JSON band dev sends for agents, rooms, participants and messages, key by key.

Each response and push is reduced to its outline (``outline``): strings become ``"str"``,
integers ``"int"``, while booleans and nulls stay as sent, so a key that appears, disappears,
turns from null to absent or changes type fails the test. The values that are always the
same (enum-like strings) are checked as values.
"""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta
from typing import Any

from .conftest import Live, room_with
from .payloads import check_payload
from .test_socket import client, run

A = "/api/v1/agent"
H = "/api/v1/me"

ROOM = {
    "id": "str",
    "title": "str",
    "task_id": None,
    "type": "str",
    "status": "str",
    "inserted_at": "str",
    "updated_at": "str",
}
ME_AGENT = {"id": "str", "name": "str", "handle": "str", "type": "str"}
PARTICIPANT = {
    "id": "str",
    "type": "str",
    "role": "str",
    "status": "str",
    "name": "str",
    "handle": "str",
    "description": "str",
    "is_external": False,
    "is_remote": False,
    "online": False,
}
ATTACHMENT = {
    "id": "str",
    "name": "str",
    "content_type": "str",
    "bytes": "int",
    "sha256": "str",
    "has_thumb": False,
    "expires_at": None,
}
MENTION = {"id": "str", "handle": "str", "name": "str", "username": "str", "kind": "str"}
ATTEMPT = {"number": "int", "status": "str", "started_at": "str", "ended_at": None, "error": None}


def outline(value: Any) -> Any:
    """``value`` with every string as ``"str"`` and every number as its type name."""
    if isinstance(value, dict):
        return {k: outline(v) for k, v in value.items()}
    if isinstance(value, list):
        return [outline(v) for v in value]
    if isinstance(value, bool) or value is None:
        return value
    return type(value).__name__


def message(
    *, mentions: int = 0, attachments: int = 0, delivery: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The outline of a ChatMessage."""
    meta: dict[str, Any] = {"mentions": [MENTION] * mentions, "status": "str"}
    return {
        "id": "str",
        "content": "str",
        "message_type": "str",
        "sender_id": "str",
        "sender_type": "str",
        "sender_name": "str",
        "metadata": {**meta, "delivery_status": delivery or {}},
        "inserted_at": "str",
        "updated_at": "str",
        "chat_room_id": "str",
        "attachments": [ATTACHMENT] * attachments,
    }


def delivered(attempts: int = 0, current: bool = False) -> dict[str, Any]:
    """The outline of one agent's delivery status."""
    return {
        "status": "str",
        "current_attempt": "int" if current else None,
        "attempts": [ATTEMPT] * attempts,
    }


def same(got: Any, want: Any) -> None:
    """Assert ``got``'s outline is ``want``, key order aside."""
    assert outline(got) == want, outline(got)


def test_agent_me_and_rooms(live: Live) -> None:
    aid, _, key = live.register("Shape")
    me = live.agent(key, "GET", f"{A}/me").json()
    same(
        me,
        {
            "data": {
                "id": "str",
                "name": "str",
                "handle": "str",
                "description": "str",
                "owner_uuid": "str",
                "inserted_at": "str",
                "updated_at": "str",
                "feature_flags": {"ff_file_transfer": True},
                "listed_in_directory": False,
                "tags": [],
            }
        },
    )
    assert me["data"]["id"] == aid and me["data"]["owner_uuid"] == live.app.state.user_id

    made = live.agent(key, "POST", f"{A}/chats", json={"chat": {"title": "x"}})
    assert made.status_code == 201
    same(made.json(), {"data": ROOM})
    room = made.json()["data"]
    assert (room["type"], room["status"]) == ("direct", "active")
    rid = room["id"]
    same(live.agent(key, "GET", f"{A}/chats/{rid}").json(), {"data": ROOM})
    renamed = live.agent(key, "PATCH", f"{A}/chats/{rid}", json={"chat": {"title": "y"}})
    same(renamed.json(), {"data": ROOM})
    untitled = live.agent(key, "POST", f"{A}/chats", json={"chat": {}}).json()["data"]
    assert untitled["title"] is None and "title" in untitled
    page = {"page": "int", "page_size": "int", "total_count": "int", "total_pages": "int"}
    listed = live.agent(key, "GET", f"{A}/chats").json()
    same(listed, {"data": [ROOM, {**ROOM, "title": None}], "metadata": page})


TASK_COUNTS = {s: "int" for s in ("pending", "in_progress", "blocked", "in_review", "failed",
                                   "completed")}  # fmt: skip


def test_human_rooms(live: Live) -> None:
    aid, _, _ = live.register("Shape")
    made = live.human("POST", f"{H}/chats", json={"chat": {"title": "h"}})
    me_room = {**ROOM, "agents": [], "work_status": "str", "last_message_at": None,
               "task_counts": TASK_COUNTS}  # fmt: skip
    same(made.json(), {"data": me_room})
    assert made.json()["data"]["work_status"] == "idle"
    rid = room_with(live, aid)
    with_agent = {**me_room, "agents": [ME_AGENT]}
    got = live.human("GET", f"{H}/chats/{rid}").json()
    same(got, {"data": with_agent})
    assert got["data"]["agents"][0]["type"] == "Agent" and got["data"]["agents"][0]["id"] == aid
    counted = live.human("GET", f"{H}/chats/{rid}", params={"include": "message_counts"}).json()
    same(counted, {"data": {**with_agent, "message_counts": {}}})
    cursor = {"has_more": False, "limit": "int", "next_cursor": None}
    listed = live.human("GET", f"{H}/chats").json()  # newest first
    same(listed, {"data": [with_agent, me_room], "metadata": cursor})
    page = {"page": "int", "page_size": "int", "total_count": "int", "total_pages": "int",
            "has_more": False, "limit": "int", "next_cursor": None}  # fmt: skip
    paged = live.human("GET", f"{H}/chats", params={"page": 1}).json()
    same(paged, {"data": [with_agent, me_room], "metadata": page})


def test_participants(live: Live) -> None:
    aid, _, key = live.register("Shape")
    bid, _, _ = live.register("Other")
    rid = room_with(live, aid)
    added = live.human("POST", f"{H}/chats/{rid}/participants",
                       json={"participant": {"participant_id": bid}})  # fmt: skip
    same(added.json(), {"data": PARTICIPANT})
    assert added.json()["data"]["role"] == "member"
    person = {**PARTICIPANT, "description": None}
    listed = live.agent(key, "GET", f"{A}/chats/{rid}/participants").json()
    same(listed, {"data": [person, PARTICIPANT, PARTICIPANT]})
    assert [p["type"] for p in listed["data"]] == ["User", "Agent", "Agent"]
    assert {p["status"] for p in listed["data"]} == {"active"}
    page = {"page": "int", "page_size": "int", "total_count": "int", "total_pages": "int"}
    details = {**PARTICIPANT, "username": "str", "first_name": None, "connection_status": "str"}
    human_row = {**details, "description": None, "connection_status": None}
    human = live.human("GET", f"{H}/chats/{rid}/participants", params={"page": 1}).json()
    same(human, {"data": [human_row, details, details], "metadata": page})
    cursor = {"has_more": False, "limit": "int", "next_cursor": None}
    walked = live.human("GET", f"{H}/chats/{rid}/participants").json()  # by id
    assert walked["metadata"] == {"has_more": False, "limit": 20, "next_cursor": None}
    assert outline(walked)["metadata"] == cursor and len(walked["data"]) == 3
    removed = live.human("DELETE", f"{H}/chats/{rid}/participants/{bid}")
    same(removed.json(), {"data": PARTICIPANT})


def _upload(live: Live, key: str, rid: str) -> str:
    headers = {"X-API-Key": key, "x-file-name": "f.txt", "content-type": "text/plain"}
    r = live.client.put(f"{live.rest}{A}/chats/{rid}/files", content=b"hi", headers=headers)
    assert r.status_code == 200, r.text
    return str(r.json()["data"]["id"])


def test_messages_rest(live: Live) -> None:
    aid, _, key = live.register("Shape")
    bid, _, bkey = live.register("Other")
    rid = room_with(live, aid, bid)
    me = live.app.state.user_id
    fid = _upload(live, key, rid)
    body = {"message": {"content": "hi", "mentions": [{"id": me}, {"id": bid}],
                        "attachment_ids": [fid]}}  # fmt: skip
    sent = live.agent(key, "POST", f"{A}/chats/{rid}/messages", json=body)
    assert sent.status_code == 201
    recipient = {"id": "str", "handle": "str", "name": "str"}
    same(sent.json(), {"data": {"id": "str", "success": True, "recipients": [recipient] * 2}})
    mid = sent.json()["data"]["id"]

    with_b = message(mentions=2, attachments=1, delivery={bid: delivered()})
    got = live.agent(bkey, "GET", f"{A}/chats/{rid}/messages/next").json()
    same(got, {"data": with_b})
    assert got["data"]["id"] == mid and got["data"]["metadata"]["status"] == "sent"
    cursor = {"has_more": False, "limit": "int", "next_cursor": None}
    listed = live.agent(bkey, "GET", f"{A}/chats/{rid}/messages").json()
    same(listed, {"data": [with_b], "metadata": {**cursor, "status_filter": None}})

    marked = live.agent(bkey, "POST", f"{A}/chats/{rid}/messages/{mid}/processing").json()
    same(marked, {"data": {"id": "str", "status": "str", "attempt_number": "int",
                           "success": True}})  # fmt: skip
    done = live.agent(bkey, "POST", f"{A}/chats/{rid}/messages/{mid}/processed").json()
    same(done, {"data": {"id": "str", "status": "str", "attempt_number": "int", "success": True}})
    assert done["data"]["status"] == "processed" and done["data"]["attempt_number"] == 1
    ended = {**ATTEMPT, "ended_at": "str"}
    handled = message(mentions=2, attachments=1, delivery={bid: delivered(1, True)})
    handled["metadata"]["delivery_status"][bid]["attempts"] = [ended]
    ctx = live.agent(key, "GET", f"{A}/chats/{rid}/context").json()
    same(ctx, {"data": [handled], "metadata": cursor, "meta": cursor})

    working = live.agent(key, "POST", f"{A}/chats/{rid}/activity", json={"working": True})
    same(working.json(), {"data": {"working": True}})
    event = {"event": {"content": "tool", "message_type": "tool_call", "metadata": {"k": 1}}}
    made = live.agent(key, "POST", f"{A}/chats/{rid}/events", json=event)
    same(made.json(), {"data": {"id": "str", "message_type": "str", "success": True}})
    plain = message()
    plain["metadata"] = {"k": "int", **plain["metadata"]}
    human = live.human("GET", f"{H}/chats/{rid}/messages").json()  # newest first
    same(human, {"data": [plain, handled], "metadata": {**cursor, "total_count": "int"}})


def test_pushes(live: Live) -> None:
    aid, _, key = live.register("Shape")
    bid, _, _ = live.register("Other")
    me = live.app.state.user_id

    async def body() -> None:
        async with client(live, key) as c:
            await c.join(f"agent_rooms:{aid}")
            rid = await asyncio.to_thread(room_with, live, aid)
            frames = [await c.push("room_added")]
            await c.join(f"chat_room:{rid}")
            await c.join(f"room_participants:{rid}")
            part = {"participant": {"participant_id": bid}}
            await asyncio.to_thread(live.human, "POST", f"{H}/chats/{rid}/participants", json=part)
            frames.append(await c.push("participant_added"))
            fid = await asyncio.to_thread(_upload, live, key, rid)
            msg = {"message": {"content": "hi", "mentions": [{"id": me}],
                               "attachment_ids": [fid]}}  # fmt: skip
            await asyncio.to_thread(live.agent, key, "POST", f"{A}/chats/{rid}/messages", json=msg)
            frames.append(await c.push("message_created"))
            ask = {"message": {"content": "yo", "mentions": [{"id": aid}]}}
            await asyncio.to_thread(live.human, "POST", f"{H}/chats/{rid}/messages", json=ask)
            asked = await c.push("message_created")
            await asyncio.to_thread(
                live.agent, key, "POST", f"{A}/chats/{rid}/messages/{asked[4]['id']}/processing"
            )
            frames.append(await c.push("message_updated"))
            event = {"event": {"content": "t", "message_type": "thought"}}
            await asyncio.to_thread(live.agent, key, "POST", f"{A}/chats/{rid}/events", json=event)
            frames.append(await c.push("event_created"))
            await asyncio.to_thread(live.human, "DELETE", f"{H}/chats/{rid}/participants/{bid}")
            frames.append(await c.push("participant_removed"))
            await asyncio.to_thread(live.human, "DELETE", f"{H}/chats/{rid}/participants/{aid}")
            frames.append(await c.push("participant_removed"))
            frames.append(await c.push("room_removed"))

        for frame in frames:
            check_payload(frame[3], frame[4])
        got = [(f[3], outline(f[4])) for f in frames]
        assert got == [
            ("room_added", ROOM),
            ("participant_added", PARTICIPANT),
            ("message_created", message(mentions=1, attachments=1)),
            ("message_updated", message(mentions=1, delivery={aid: delivered(1, True)})),
            ("event_created", message()),
            ("participant_removed", PARTICIPANT),
            ("participant_removed", PARTICIPANT),
            ("room_removed", ROOM),
        ], got

    run(body)


AGENT_MEMORY = {
    "id": "str",
    "content": "str",
    "system": "str",
    "type": "str",
    "segment": "str",
    "scope": "str",
    "inserted_at": "str",
    "status": "str",
    "subject_id": None,
    "source_agent_id": "str",
    "organization_id": None,
    "thought": "str",
    "metadata": {"tags": ["str"]},
}
USER_MEMORY = {
    **AGENT_MEMORY,
    "updated_at": "str",
    "chat_room_id": None,
    "chat_room_title": None,
    "chat_room_type": None,
    "chat_room_status": None,
    "source_agent_name": "str",
    "subject_name": None,
    "subject_type": None,
}


def test_memories(live: Live) -> None:
    _, _, key = live.register("Shape")
    memory = {"content": "tea", "system": "long_term", "type": "semantic", "segment": "user"}
    body = {"memory": {**memory, "thought": "later", "metadata": {"tags": ["a"]}}}
    made = live.agent(key, "POST", "/api/v1/agent/memories", json=body)
    assert made.status_code == 201, made.text
    same(made.json(), {"data": AGENT_MEMORY})
    mid = made.json()["data"]["id"]
    same(live.agent(key, "GET", f"/api/v1/agent/memories/{mid}").json(), {"data": AGENT_MEMORY})
    meta = {"has_more": False, "limit": "int", "next_cursor": None, "page": "int",
            "page_size": "int", "total_count": "int", "total_pages": "int"}  # fmt: skip
    listed = live.agent(key, "GET", "/api/v1/agent/memories").json()
    same(listed, {"data": [AGENT_MEMORY], "meta": meta, "metadata": meta})
    mine = live.human("GET", "/api/v1/me/memories").json()
    same(mine, {"data": [USER_MEMORY], "meta": meta, "metadata": meta})
    archived = live.human("POST", f"/api/v1/me/memories/{mid}/archive").json()
    same(archived, {"data": USER_MEMORY})
    assert archived["data"]["status"] == "archived"
    gone = live.human("DELETE", f"/api/v1/me/memories/{mid}").json()
    same(gone, {"data": {"id": "str", "status": "str"}})


ACTOR = {"id": "str", "name": "str", "type": "str", "handle": "str"}
TASK = {
    "id": "str",
    "number": "int",
    "chat_room_id": "str",
    "subject": "str",
    "detail": "str",
    "state": "str",
    "overall_status": "str",
    "created_by": ACTOR,
    "assignments": [],
    "inserted_at": "str",
    "updated_at": "str",
    "superseded_by_id": None,
    "started_at": None,
    "completed_at": None,
}


def test_tasks_and_board(live: Live) -> None:
    aid, _, key = live.register("Shape")
    rid = room_with(live, aid)
    tasks = f"{A}/chats/{rid}/tasks"
    made = live.agent(key, "POST", tasks, json={"subject": "s", "detail": "d"})
    assert made.status_code == 201, made.text
    same(made.json(), {"data": TASK})
    tid = made.json()["data"]["id"]
    work = {"status": "in_progress", "active_form": "doing", "comment": "c"}
    updated = live.agent(key, "POST", f"{tasks}/{tid}", json=work).json()
    assignment = {
        "assignee": ACTOR,
        "status": "str",
        "active_form": "str",
        "linked_native_id": "str",
        "updated_at": "str",
    }
    worked = {**TASK, "assignments": [assignment], "started_at": "str"}
    same(updated, {"data": worked})
    event = {"actor": ACTOR, "at": "str", "event": "str", "payload": {}}
    created = {**event, "payload": {"subject": "str", "detail": "str"}}
    status = {**event, "payload": {"assignee_id": "str", "from": None, "to": "str"}}
    commented = {**event, "payload": {"comment": "str"}}
    full = live.agent(key, "GET", f"{tasks}/{tid}", params={"include": "history"}).json()
    history = [created, status, commented]
    same(full, {"data": {**worked, "history": history, "history_truncated": False}})
    cursor = {"has_more": False, "limit": "int", "next_cursor": None}
    same(live.agent(key, "GET", tasks).json(), {"data": [worked], "metadata": cursor})
    same(
        live.agent(key, "GET", f"{tasks}/{tid}/history").json(),
        {"data": history, "metadata": cursor},
    )

    board = f"{A}/chats/{rid}/board"
    empty = {
        "chat_room_id": "str",
        "goal_title": None,
        "goal_summary": None,
        "created_by": None,
        "updated_by": None,
        "inserted_at": None,
        "updated_at": None,
    }
    same(live.agent(key, "GET", board).json(), {"data": empty})
    goal = {**empty, "goal_title": "str", "created_by": ACTOR, "updated_by": ACTOR,
            "inserted_at": "str", "updated_at": "str"}  # fmt: skip
    same(live.agent(key, "PUT", board, json={"goal_title": "g"}).json(), {"data": goal})
    edited = live.agent(key, "PUT", board, json={"goal_summary": "s"}).json()
    same(edited, {"data": {**goal, "goal_summary": "str"}})
    set_ = {"actor": ACTOR, "at": "str", "event": "str", "payload": {"to": {"goal_title": "str"}}}
    edit = {**set_, "payload": {"from": {"goal_summary": None}, "to": {"goal_summary": "str"}}}
    got = live.agent(key, "GET", board, params={"include": "history"}).json()
    full_goal = {**goal, "goal_summary": "str", "history": [set_, edit], "history_truncated": False}
    same(got, {"data": full_goal})


def test_contacts(live: Live) -> None:
    aid, ahandle, akey = live.register("Shape")
    bid, bhandle, bkey = live.register("Other")
    person = live.app.state.user_id
    C = "/api/v1/agent/contacts"
    HC = "/api/v1/me/contacts"
    frames: list[list[Any]] = []

    async def body() -> None:
        async with client(live, akey) as ca, client(live, bkey) as cb:
            await ca.join(f"agent_contacts:{aid}")
            await cb.join(f"agent_contacts:{bid}")
            add = {"handle": "@" + bhandle, "message": "hi"}
            r = await asyncio.to_thread(live.agent, akey, "POST", C + "/add", json=add)
            same(r.json(), {"data": {"id": "str", "status": "str"}})
            frames.append(await cb.push("contact_request_received"))
            requests = await asyncio.to_thread(live.agent, akey, "GET", C + "/requests")
            sent = {"id": "str", "status": "str", "inserted_at": "str", "message": "str",
                    "to_handle": "str", "to_name": "str"}  # fmt: skip
            counts = {"total": "int", "total_pages": "int"}
            meta = {"page": "int", "page_size": "int", "received": counts, "sent": counts}
            same(requests.json(), {"data": {"received": [], "sent": [sent]}, "metadata": meta})
            received = {**sent, "from_handle": "str", "from_name": "str"}
            del received["to_handle"], received["to_name"]
            got = await asyncio.to_thread(live.agent, bkey, "GET", C + "/requests")
            same(got.json(), {"data": {"received": [received], "sent": []}, "metadata": meta})
            answer = {"action": "approve", "handle": "@" + ahandle}
            r = await asyncio.to_thread(
                live.agent, bkey, "POST", C + "/requests/respond", json=answer
            )
            same(r.json(), {"data": {"id": "str", "status": "str"}})
            frames.append(await ca.push("contact_request_updated"))
            frames.append(await ca.push("contact_added"))
            await cb.push("contact_added")  # about the agent that asked
            listed = await asyncio.to_thread(live.agent, akey, "GET", C)
            contact = {"id": "str", "handle": "str", "type": "str", "online": True,
                       "inserted_at": "str", "name": "str", "description": "str",
                       "avatar_url": None, "is_external": False, "listed_in_directory": False,
                       "tags": []}  # fmt: skip
            page = {"page": "int", "page_size": "int", "total_count": "int", "total_pages": "int"}
            same(listed.json(), {"data": [contact], "metadata": page})
            rm = {"handle": "@" + bhandle}
            r = await asyncio.to_thread(live.agent, akey, "POST", C + "/remove", json=rm)
            same(r.json(), {"data": {"status": "str"}})
            frames.append(await ca.push("contact_removed"))

            # the person asks the agent, the agent's socket hears it
            ask = {"contact_request": {"recipient_handle": "@" + bhandle, "message": "yo"}}
            made = await asyncio.to_thread(live.human, "POST", HC + "/requests", json=ask)
            party = {"id": "str", "name": "str", "handle": "str", "avatar_url": None}
            request = {"id": "str", "requester_id": "str", "recipient_id": "str",
                       "status": "str", "inserted_at": "str", "message": "str",
                       "responded_at": None, "requester": party, "recipient": party,
                       "requester_type": "str", "recipient_type": "str"}  # fmt: skip
            same(made.json(), {"data": request})
            frames.append(await cb.push("contact_request_received"))
            mine = await asyncio.to_thread(live.human, "GET", HC + "/requests/sent")
            same(mine.json(), {"data": [request], "metadata": page})
            r = await asyncio.to_thread(
                live.agent, bkey, "POST", C + "/requests/respond", json={
                    "action": "approve", "request_id": made.json()["data"]["id"]}
            )  # fmt: skip
            frames.append(await cb.push("contact_added"))
            people = await asyncio.to_thread(live.human, "GET", HC)
            user = {"id": "str", "name": "str", "handle": "str", "email": None,
                    "avatar_url": None, "listed_in_directory": False, "tags": []}  # fmt: skip
            human_contact = {"id": "str", "contact_id": "str", "contact_type": "str",
                             "online": True, "inserted_at": "str", "status": "str",
                             "source": "str", "user": user}  # fmt: skip
            same(people.json(), {"data": [human_contact], "metadata": page})
            resolved = await asyncio.to_thread(
                live.human, "POST", HC + "/resolve", json={"handle": "@" + ahandle}
            )
            same(resolved.json(), {"data": {"handle": "str", "name": "str", "type": "str"}})

    run(body)
    for frame in frames:
        check_payload(frame[3], frame[4])
    added = {"id": "str", "type": "str", "inserted_at": "str", "handle": "str", "name": "str",
             "is_external": False, "is_remote": False, "description": "str"}  # fmt: skip
    received = {"id": "str", "status": "str", "inserted_at": "str", "message": "str",
                "from_handle": "str", "from_name": "str"}  # fmt: skip
    person_added = {**added}
    del person_added["description"]
    assert [(f[3], outline(f[4])) for f in frames] == [
        ("contact_request_received", received),
        ("contact_request_updated", {"id": "str", "status": "str"}),
        ("contact_added", added),
        ("contact_removed", {"id": "str"}),
        ("contact_request_received", received),
        ("contact_added", person_added),
    ]
    assert frames[-1][4]["id"] == person and frames[2][4]["id"] == bid


def test_files_and_bulk_jobs(live: Live) -> None:
    aid, _, key = live.register("Shape")
    rid = room_with(live, aid)
    headers = {"X-API-Key": key, "x-file-name": "f.txt", "content-type": "text/plain"}
    put = live.client.put(f"{live.rest}{A}/chats/{rid}/files", content=b"hi", headers=headers)
    same(put.json(), {"data": ATTACHMENT})
    got = live.agent(key, "GET", f"{A}/chats/{rid}/files/{put.json()['data']['id']}")
    assert got.content == b"hi" and got.headers["content-type"].startswith("text/plain")
    assert got.headers["etag"] == f'"{put.json()["data"]["sha256"]}"'

    gone = live.human("POST", f"{H}/agents/bulk-delete", json={"ids": [aid, "nope"]})
    results = [
        {"id": "str", "status": "str", "error": None},
        {"id": "str", "status": "str", "error": {"code": "str", "message": "str"}},
    ]
    job = {"id": "str", "resource_type": "str", "status": "str", "force": False, "total": "int",
           "processed": "int", "succeeded": "int", "failed": "int", "results": results,
           "inserted_at": "str", "started_at": "str", "completed_at": "str"}  # fmt: skip
    same(gone.json(), {"data": job})
    again = live.human("GET", f"{H}/bulk-deletions/{gone.json()['data']['id']}")
    same(again.json(), {"data": job})
    assert again.json() == gone.json()


PEER = {"id": "str", "name": "str", "handle": "str", "type": "str", "description": "str",
        "is_contact": False, "online": False, "source": "str"}  # fmt: skip


def test_peers(live: Live) -> None:
    """A peer lists exactly these keys: no avatar, external flag, directory listing or tags."""
    _, _, key = live.register("Shape")
    oid, _, _ = live.register("Other")
    page = {"page": "int", "page_size": "int", "total_count": "int", "total_pages": "int"}
    for got in (live.agent(key, "GET", f"{A}/peers"), live.human("GET", f"{H}/peers")):
        assert got.status_code == 200, got.text
        body = got.json()
        [other] = [p for p in body["data"] if p["id"] == oid]
        same(other, PEER)
        assert outline(body["metadata"]) == page


def test_timestamps_read_back(live: Live) -> None:
    """Timestamps are ISO 8601 UTC ("Z") and the same instant in every answer that repeats them."""
    aid, _, key = live.register("Shape")
    rid = room_with(live, aid)
    tasks = f"{A}/chats/{rid}/tasks"
    made = live.agent(key, "POST", tasks, json={"subject": "s"}).json()["data"]
    got = live.agent(key, "GET", f"{tasks}/{made['id']}?include=history").json()["data"]
    [listed] = live.agent(key, "GET", tasks).json()["data"]
    memory = {"content": "tea", "system": "long_term", "type": "semantic", "segment": "user",
              "thought": "t"}  # fmt: skip
    made_mem = live.agent(key, "POST", f"{A}/memories", json={"memory": memory})
    assert made_mem.status_code == 201, made_mem.text
    mem = made_mem.json()["data"]
    [mine] = [m for m in live.human("GET", f"{H}/memories").json()["data"] if m["id"] == mem["id"]]
    stamps = [
        (made["inserted_at"], got["inserted_at"], listed["inserted_at"]),
        (made["updated_at"], got["updated_at"], listed["updated_at"]),
        (mem["inserted_at"], mine["inserted_at"]),
    ]
    for same_instant in stamps:
        assert all(s.endswith("Z") for s in same_instant), same_instant
        parsed = {datetime.fromisoformat(s) for s in same_instant}
        assert len(parsed) == 1 and parsed.pop().utcoffset() == timedelta(0), same_instant
    created_at = got["history"][0]["at"]  # logged in the same write, a moment later
    assert created_at.endswith("Z")
    assert datetime.fromisoformat(created_at) >= datetime.fromisoformat(made["inserted_at"])


MY_AGENT = {"id": "str", "name": "str", "handle": "str", "description": "str",
            "owner_id": "str", "inserted_at": "str", "updated_at": "str", "avatar_url": None,
            "is_external": False, "slug": "str", "listed_in_directory": False}  # fmt: skip
USER = {"id": "str", "email": "str", "handle": "str", "role": "str", "first_name": "str",
        "last_name": "str", "listed_in_directory": False}  # fmt: skip


def test_human_profile_and_agents(live: Live) -> None:
    """The person's profile, their agents, and the register reply."""
    profile = live.human("GET", f"{H}/profile").json()
    same(profile, {"data": USER})
    renamed = live.human("PUT", f"{H}/profile", json={"user": {"first_name": "Solo"}}).json()
    same(renamed, {"data": USER})
    body = {"agent": {"name": "Mine", "description": "d"}}
    made = live.human("POST", f"{H}/agents/register", json=body)
    assert made.status_code == 201, made.text
    same(made.json(), {"data": {"agent": MY_AGENT, "credentials": {"api_key": "str"}}})
    listed = live.human("GET", f"{H}/agents").json()
    assert len(listed["data"]) >= 1
    same(listed["data"], [MY_AGENT] * len(listed["data"]))
