"""Human scope over stdio (with contacts and memory): every human tool against the platform."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from bandtest.platform import Live
from mcp_harness import McpClient, messages, participants, profile, room_with, stdio_client_for


@pytest.fixture(scope="module")
def mcp(plat: Live, workdir: Path) -> Iterator[McpClient]:
    env = {"BAND_USER_KEY": plat.user_key, "BAND_BASE_URL": plat.rest, "BAND_MCP_SCOPE": "human"}
    with (workdir / "human-stderr.log").open("w") as errlog:
        client = stdio_client_for(
            ["--tools", "contacts", "--tools", "memory"], env, workdir, errlog
        )
        yield client
        client.close()


def test_tools_and_health(mcp: McpClient, plat: Live) -> None:
    assert len(mcp.tools()) == 13 + 9 + 6 + 1
    assert mcp.text("health_check") == f"OK | human | {plat.rest}"


def test_agents(mcp: McpClient, plat: Live) -> None:
    reg = mcp.json("band_register_my_agent", {"name": "Courier", "description": "carries"})
    agent, key = reg["data"]["agent"], reg["data"]["credentials"]["api_key"]
    assert plat.agent(key, "GET", "/api/v1/agent/me").json()["data"]["id"] == agent["id"]
    listed = mcp.json("band_list_my_agents", {"page": 1, "page_size": 100})
    assert agent["id"] in {a["id"] for a in listed["data"]}


def test_rooms_participants_and_messages(mcp: McpClient, plat: Live) -> None:
    aid, _, key = plat.register("Helper")
    room = mcp.json("band_create_my_chat_room", {})["data"]["id"]
    assert room in {r["id"] for r in mcp.json("band_list_my_chats", {"page_size": 100})["data"]}
    assert mcp.json("band_get_my_chat_room", {"chat_id": room})["data"]["id"] == room
    added = mcp.text("band_add_my_chat_participant", {"chat_id": room, "participant_id": aid})
    assert added == f"Added participant: {aid}"
    assert participants(plat, room)[aid]["role"] == "member"
    agents = mcp.json(
        "band_list_my_chat_participants", {"chat_id": room, "participant_type": "Agent"}
    )
    assert [p["id"] for p in agents["data"]] == [aid]

    # names match case-insensitively; duplicates mention once
    sent = mcp.json(
        "band_send_my_chat_message",
        {"chat_id": room, "content": "hi helper", "recipients": "HELPER, helper"},
    )
    [msg] = messages(plat, room)
    assert msg["id"] == sent["data"]["id"] and msg["content"].endswith("hi helper")
    assert [m["id"] for m in msg["metadata"]["mentions"]] == [aid]
    nxt = plat.agent(key, "GET", f"/api/v1/agent/chats/{room}/messages/next")
    assert nxt.json()["data"]["id"] == msg["id"]

    listed = mcp.json("band_list_my_chat_messages", {"chat_id": room, "page_size": 10})
    assert [m["id"] for m in listed["data"]] == [msg["id"]]
    bad = mcp.error("band_list_my_chat_messages", {"chat_id": room, "since": "yesterday"})
    assert "Invalid arguments for band_list_my_chat_messages: since: " in bad

    removed = mcp.text("band_remove_my_chat_participant", {"chat_id": room, "participant_id": aid})
    assert removed == f"Removed participant: {aid}"
    assert aid not in participants(plat, room)


def test_recipient_errors_send_nothing(mcp: McpClient, plat: Live) -> None:
    aid, _, _ = plat.register("Zed")
    room = room_with(plat, aid)
    me = profile(plat)
    empty = mcp.text(
        "band_send_my_chat_message", {"chat_id": room, "content": "x", "recipients": " , "}
    )
    assert empty == "Error: recipients cannot be empty"
    missing = mcp.text(
        "band_send_my_chat_message",
        {"chat_id": room, "content": "x", "recipients": "Bob, zed, Nobody"},
    )
    me_name = f"{me['first_name']} {me['last_name']}".lower()
    assert missing == f"Error: Not found: bob, nobody. Available: {me_name}, zed"
    assert messages(plat, room) == []


def test_profile_and_peers(mcp: McpClient, plat: Live) -> None:
    assert mcp.json("band_get_my_profile")["data"]["id"] == profile(plat)["id"]
    assert mcp.text("band_update_my_profile", {}) == (
        "Error: At least one field (first_name or last_name) must be provided"
    )
    updated = mcp.json("band_update_my_profile", {"last_name": "Tester"})
    assert updated["data"]["last_name"] == "Tester" == profile(plat)["last_name"]
    aid, _, _ = plat.register("Peer")
    room = room_with(plat, aid)
    everyone = mcp.json("band_list_my_peers", {"peer_type": "Agent", "page_size": 100})
    assert aid in {p["id"] for p in everyone["data"]}
    assert {p["type"] for p in everyone["data"]} == {"Agent"}
    outside = mcp.json("band_list_my_peers", {"not_in_chat": room, "page_size": 100})
    assert aid not in {p["id"] for p in outside["data"]}


def test_api_error_carries_status_and_code(mcp: McpClient) -> None:
    err = mcp.error("band_get_my_chat_room", {"chat_id": "no-such-room"})
    assert err.startswith(
        "Error executing tool band_get_my_chat_room: status_code: 404, code='not_found', message="
    )
    err = mcp.error(
        "band_add_my_chat_participant", {"chat_id": "r", "participant_id": "p", "role": "boss"}
    )
    assert err.startswith(
        "Error executing tool band_add_my_chat_participant: Invalid arguments for "
        "band_add_my_chat_participant: role: "
    )


def test_contact_requests(mcp: McpClient, plat: Live) -> None:
    a_id, a_handle, a_key = plat.register("Friendly")
    b_id, _, b_key = plat.register("Grumpy")
    _, c_handle, _ = plat.register("Shy")
    me = profile(plat)
    for key in (a_key, b_key):
        r = plat.agent(
            key, "POST", "/api/v1/agent/contacts/add", json={"handle": "@" + me["handle"]}
        )
        assert r.is_success, r.text
    received = mcp.json("band_list_received_contact_requests", {})["data"]
    by_sender = {r["requester_id"]: r["id"] for r in received}
    assert set(by_sender) == {a_id, b_id}
    mcp.json("band_approve_contact_request", {"request_id": by_sender[a_id]})
    mcp.json("band_reject_contact_request", {"request_id": by_sender[b_id]})
    contacts = mcp.json("band_list_my_contacts", {})["data"]
    assert {c["contact_id"] for c in contacts} == {a_id}

    resolved = mcp.json("band_resolve_handle", {"handle": "@" + c_handle})
    assert resolved["data"]["type"] == "Agent"
    req = mcp.json("band_create_contact_request", {"recipient_handle": c_handle, "message": "hi"})
    sent = mcp.json("band_list_sent_contact_requests", {"status": "pending"})["data"]
    assert [r["id"] for r in sent] == [req["data"]["id"]]
    mcp.json("band_cancel_contact_request", {"request_id": req["data"]["id"]})
    assert mcp.json("band_list_sent_contact_requests", {"status": "pending"})["data"] == []
    too_long = mcp.error(
        "band_create_contact_request", {"recipient_handle": c_handle, "message": "x" * 501}
    )
    assert "message: String should have at most 500 characters" in too_long

    assert mcp.text("band_remove_my_contact", {}) == (
        "Error: Either contact_id or handle must be provided"
    )
    mcp.json("band_remove_my_contact", {"handle": a_handle})
    assert mcp.json("band_list_my_contacts", {})["data"] == []


def test_user_memories(mcp: McpClient, plat: Live) -> None:
    aid, _, key = plat.register("Memo")
    room = room_with(plat, aid)
    ids = []
    for text in ("likes jazz", "lives in Oslo"):
        body = {
            "memory": {
                "content": text,
                "system": "long_term",
                "type": "semantic",
                "segment": "user",
                "thought": "t",
                "scope": "subject",
                "subject_id": profile(plat)["id"],
            }
        }
        r = plat.agent(key, "POST", "/api/v1/agent/memories", json=body)
        assert r.is_success, r.text
        ids.append(r.json()["data"]["id"])
    listed = mcp.json("band_list_user_memories", {"content_query": "jazz"})["data"]
    assert [m["id"] for m in listed] == [ids[0]]
    assert (
        mcp.json("band_get_user_memory", {"memory_id": ids[1]})["data"]["content"]
        == "lives in Oslo"
    )
    assert (
        mcp.json("band_archive_user_memory", {"memory_id": ids[0]})["data"]["status"] == "archived"
    )
    assert mcp.json("band_restore_user_memory", {"memory_id": ids[0]})["data"]["status"] == "active"
    sup = mcp.json("band_supersede_user_memory", {"memory_id": ids[0]})
    assert sup["data"]["status"] == "superseded"
    mcp.call("band_delete_user_memory", {"memory_id": ids[1]})
    gone = plat.human("GET", f"/api/v1/me/memories/{ids[1]}")
    assert gone.status_code == 404
    assert room
