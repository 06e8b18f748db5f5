"""Agent scope over stdio: our band-mcp subprocess, the official client, the real local platform.

One server (all groups) per module; every effect is checked through the human API.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path

import pytest
from bandtest.platform import Live
from mcp_harness import McpClient, messages, participants, profile, room_with, stdio_client_for

Bot = tuple[str, str, str]  # id, handle, key


@pytest.fixture(scope="module")
def bot(plat: Live) -> Bot:
    return plat.register("Relay")


@pytest.fixture(scope="module")
def peer(plat: Live) -> Bot:
    return plat.register("Scout")


@pytest.fixture(scope="module")
def errlog(workdir: Path) -> Iterator[io.TextIOWrapper]:
    with (workdir / "agent-stderr.log").open("w+") as f:
        yield f


@pytest.fixture(scope="module")
def mcp(plat: Live, bot: Bot, workdir: Path, errlog: io.TextIOWrapper) -> Iterator[McpClient]:
    env = {"BAND_AGENT_KEY": bot[2], "BAND_BASE_URL": plat.rest}
    client = stdio_client_for(["--tools", "contacts,memory,tasks"], env, workdir, errlog)
    yield client
    client.close()


def test_startup_and_tools(mcp: McpClient, bot: Bot, errlog: io.TextIOWrapper) -> None:
    assert mcp.init.serverInfo.name == "band-mcp-server"
    assert len(mcp.tools()) == 8 + 5 + 5 + 7 + 1
    errlog.flush()
    log = Path(errlog.name).read_text()
    for line in (
        "Starting band-mcp-server v2.2.7",
        "Resolved scope: ['agent']",
        "Resolved tools: ['contacts', 'memory', 'tasks']",
        "Transport: STDIO (for IDE integration)",
        "Server ready - listening for MCP protocol messages on STDIO",
    ):
        assert line in log, log
    mcp.text("health_check")
    errlog.flush()
    assert bot[2] not in Path(errlog.name).read_text()  # the key is never logged


def test_health_check(mcp: McpClient, plat: Live) -> None:
    assert mcp.text("health_check") == f"OK | agent | {plat.rest}"


def test_send_message_reaches_the_room(mcp: McpClient, plat: Live, bot: Bot) -> None:
    room = room_with(plat, bot[0])
    me = profile(plat)
    sent = mcp.json(
        "band_send_message", {"chat_id": room, "content": "hello from mcp", "mentions": ["@local"]}
    )
    assert sent["id"]
    [msg] = [m for m in messages(plat, room) if m["sender_id"] == bot[0]]
    assert msg["id"] == sent["id"] and msg["content"].endswith("hello from mcp")
    assert [m["id"] for m in msg["metadata"]["mentions"]] == [me["id"]]


def test_mention_errors_send_nothing(mcp: McpClient, plat: Live, bot: Bot) -> None:
    room = room_with(plat, bot[0])
    err = mcp.error("band_send_message", {"chat_id": room, "content": "x", "mentions": []})
    assert err == (
        "Error executing tool band_send_message: At least one mention is required. "
        "Available handles: ['@local']. Use participant handles from the list."
    )
    err = mcp.error("band_send_message", {"chat_id": room, "content": "x", "mentions": ["@ghost"]})
    assert err == (
        "Error executing tool band_send_message: Unknown participant 'ghost'. "
        "Available handles: ['@local']"
    )
    assert messages(plat, room) == []


def test_participant_added_in_the_session_resolves(
    mcp: McpClient, plat: Live, bot: Bot, peer: Bot
) -> None:
    room = room_with(plat, bot[0])
    mcp.json("band_send_message", {"chat_id": room, "content": "first", "mentions": ["@local"]})
    # someone else adds the peer; the next send refreshes the participants first
    body = {"participant": {"participant_id": peer[0]}}
    assert plat.human("POST", f"/api/v1/me/chats/{room}/participants", json=body).is_success
    mcp.json("band_send_message", {"chat_id": room, "content": "second", "mentions": [peer[1]]})
    second = [m for m in messages(plat, room) if m["content"].endswith("second")]
    assert [m["id"] for m in second[0]["metadata"]["mentions"]] == [peer[0]]


def test_room_id_alias_and_chat_id_limits(mcp: McpClient, plat: Live, bot: Bot) -> None:
    room = room_with(plat, bot[0])
    people = mcp.json("band_get_participants", {"room_id": room})
    assert {p["id"] for p in people} == {bot[0], profile(plat)["id"]}
    assert mcp.error("band_get_participants", {"chat_id": "r" * 256}) == (
        "Error executing tool band_get_participants: Invalid arguments for "
        "band_get_participants: chat_id: String should have at most 255 characters"
    )
    assert mcp.error("band_get_participants", {}) == (
        "Error executing tool band_get_participants: Invalid arguments for "
        "band_get_participants: chat_id: Field required"
    )


def test_send_event_accepts_tool_call_and_tool_result(mcp: McpClient, plat: Live, bot: Bot) -> None:
    room = room_with(plat, bot[0])
    for kind in ("thought", "tool_call", "tool_result"):
        mcp.json("band_send_event", {"chat_id": room, "content": kind, "message_type": kind})
    got = {m["message_type"]: m["content"] for m in messages(plat, room)}
    assert got == {"thought": "thought", "tool_call": "tool_call", "tool_result": "tool_result"}
    err = mcp.error("band_send_event", {"chat_id": room, "content": "x", "message_type": "text"})
    assert err.startswith(
        "Error executing tool band_send_event: Invalid arguments for band_send_event: message_type:"
    )


def test_no_reply_posts_nothing(mcp: McpClient, plat: Live, bot: Bot) -> None:
    room = room_with(plat, bot[0])
    assert mcp.json("band_no_reply", {"reason": "nothing to add"}) == {"status": "no_reply"}
    assert messages(plat, room) == []


def test_lookup_add_remove_participant(mcp: McpClient, plat: Live, bot: Bot, peer: Bot) -> None:
    room = room_with(plat, bot[0])
    body = {"participant": {"participant_id": bot[0], "role": "admin"}}
    plat.human("DELETE", f"/api/v1/me/chats/{room}/participants/{bot[0]}")
    assert plat.human("POST", f"/api/v1/me/chats/{room}/participants", json=body).is_success
    peers = mcp.json("band_lookup_peers", {"chat_id": room, "page_size": 100})
    assert peer[0] in {p["id"] for p in peers["data"]}
    assert {"page", "page_size", "total_count", "total_pages"} <= set(peers["metadata"])
    added = mcp.json("band_add_participant", {"chat_id": room, "identifier": peer[0]})
    assert added["status"] == "added"
    assert peer[0] in participants(plat, room)
    removed = mcp.json("band_remove_participant", {"chat_id": room, "identifier": peer[1]})
    assert removed["status"] == "removed"
    assert peer[0] not in participants(plat, room)


def test_create_chatroom(mcp: McpClient, plat: Live, bot: Bot) -> None:
    new_id = mcp.text("band_create_chatroom", {})
    rooms = plat.agent(bot[2], "GET", "/api/v1/agent/chats", params={"page_size": 100})
    assert new_id in {r["id"] for r in rooms.json()["data"]}


def test_api_error_carries_status_and_code(mcp: McpClient, plat: Live) -> None:
    foreign = room_with(plat)  # the agent is not in it
    err = mcp.error("band_get_participants", {"chat_id": foreign})
    assert err.startswith("Error executing tool band_get_participants: status_code: ")
    assert "code='" in err


def test_contact_tools(mcp: McpClient, plat: Live, bot: Bot, peer: Bot) -> None:
    sent = mcp.json("band_add_contact", {"handle": "@" + peer[1].lstrip("@"), "message": "hi"})
    assert sent["status"] == "pending"
    requests = mcp.json("band_list_contact_requests", {})
    assert [r["id"] for r in requests["data"]["sent"]] == [sent["id"]]
    # the peer accepts through the agent API; both sides then list each other
    body = {"action": "approve", "handle": bot[1]}
    r = plat.agent(peer[2], "POST", "/api/v1/agent/contacts/requests/respond", json=body)
    assert r.is_success, r.text
    contacts = mcp.json("band_list_contacts", {})
    assert peer[0] in {c["id"] for c in contacts["data"]}
    mcp.json("band_remove_contact", {"handle": peer[1]})
    assert peer[0] not in {c["id"] for c in mcp.json("band_list_contacts", {})["data"]}
    assert mcp.error("band_remove_contact", {}).endswith(
        "Either handle or contact_id must be provided"
    )


def test_memory_tools(mcp: McpClient, plat: Live) -> None:
    stored = mcp.json(
        "band_store_memory",
        {
            "content": "prefers tea",
            "system": "long_term",
            "type": "semantic",
            "segment": "user",
            "thought": "drink orders",
            "scope": "agent",
        },
    )
    got = mcp.json("band_get_memory", {"memory_id": stored["id"]})
    assert got["content"] == "prefers tea"
    listed = mcp.json("band_list_memories", {"content_query": "tea"})
    assert stored["id"] in {m["id"] for m in listed["data"]}
    mcp.json("band_supersede_memory", {"memory_id": stored["id"]})
    mine = plat.human("GET", f"/api/v1/me/memories/{stored['id']}").json()["data"]
    assert mine["status"] == "superseded"
    assert mcp.error("band_get_memory", {"memory_id": "../x"}) == (
        "Error executing tool band_get_memory: Invalid arguments for band_get_memory: "
        "memory_id: Value error, ID must contain only ASCII letters, digits, underscores or "
        "hyphens"
    )


def test_task_tools(mcp: McpClient, plat: Live, bot: Bot) -> None:
    room = room_with(plat, bot[0])
    task = mcp.json("band_create_task", {"chat_id": room, "subject": "write docs"})
    listed = mcp.json("band_list_tasks", {"chat_id": room})
    assert [t["id"] for t in listed["data"]] == [task["id"]]
    mcp.json("band_set_board", {"chat_id": room, "goal_title": "ship"})
    assert mcp.json("band_get_board", {"chat_id": room})["goal_title"] == "ship"
    board = plat.agent(bot[2], "GET", f"/api/v1/agent/chats/{room}/tasks")
    assert [t["subject"] for t in board.json()["data"]] == ["write docs"]
