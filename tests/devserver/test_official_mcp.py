"""Compatibility: the official band-mcp 2.2.7 (stdio) against the live dev server.

The reference ``band-mcp`` runs from the BAND_REFSDK_PYTHON venv's bin dir with
BAND_BASE_URL pointed at the live server; it is driven by the official ``mcp`` client.
Every effect is checked through the human REST API.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from bandtest.refsdk import REFSDK_PYTHON, requires_refsdk

from .conftest import Live

BAND_MCP = REFSDK_PYTHON.parent / "band-mcp"

pytestmark = requires_refsdk


def _text(result: Any) -> str:
    return "".join(getattr(c, "text", "") for c in result.content)


def _json(result: Any) -> Any:
    assert not result.isError, _text(result)
    return json.loads(_text(result))


async def _session(live: Live, env: dict[str, str], body: Any, cwd: Path) -> None:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import get_default_environment, stdio_client

    params = StdioServerParameters(
        command=str(BAND_MCP),
        args=[],
        env={**get_default_environment(), "BAND_BASE_URL": live.rest, **env},
        cwd=str(cwd),
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await asyncio.wait_for(session.initialize(), 30)
        await body(session)


def _run(live: Live, env: dict[str, str], body: Any, cwd: Path) -> None:
    asyncio.run(asyncio.wait_for(_session(live, env, body, cwd), 90))


def _room_with(live: Live, aid: str) -> str:
    rid = live.human("POST", "/api/v1/me/chats", json={"chat": {}}).json()["data"]["id"]
    body = {"participant": {"participant_id": aid}}
    assert live.human("POST", f"/api/v1/me/chats/{rid}/participants", json=body).status_code == 201
    return str(rid)


def test_agent_scope(live: Live, tmp_path: Path) -> None:
    aid, _, key = live.register("McpAgent")
    rid = _room_with(live, aid)
    user = live.human("GET", "/api/v1/me/profile").json()["data"]
    env = {"BAND_AGENT_KEY": key, "BAND_MCP_SCOPE": "agent"}

    async def body(s: Any) -> None:
        names = {t.name for t in (await s.list_tools()).tools}
        assert {"health_check", "band_get_participants", "band_send_message"} <= names
        health = _text(await s.call_tool("health_check", {}))
        assert health == f"OK | agent | {live.rest}", health
        parts = _json(await s.call_tool("band_get_participants", {"chat_id": rid}))
        ids = {p["id"] for p in (parts["participants"] if isinstance(parts, dict) else parts)}
        assert {aid, user["id"]} <= ids, parts
        sent = await s.call_tool(
            "band_send_message",
            {"chat_id": rid, "content": "hello from band-mcp", "mentions": [user["id"]]},
        )
        assert not sent.isError, _text(sent)
        event = await s.call_tool(
            "band_send_event",
            {"chat_id": rid, "content": "thinking", "message_type": "thought"},
        )
        assert not event.isError, _text(event)
        created = await s.call_tool("band_create_chatroom", {})
        assert not created.isError, _text(created)

    _run(live, env, body, tmp_path)
    rows = live.human("GET", f"/api/v1/me/chats/{rid}/messages").json()["data"]
    texts = [m for m in rows if m["sender_id"] == aid and m["message_type"] == "text"]
    assert len(texts) == 1 and texts[0]["content"].endswith("hello from band-mcp"), rows
    assert user["id"] in {x["id"] for x in texts[0]["metadata"]["mentions"]}
    assert any(m["message_type"] == "thought" and m["content"] == "thinking" for m in rows)
    agent_rooms = live.agent(key, "GET", "/api/v1/agent/chats").json()["data"]
    assert len(agent_rooms) == 2


def test_human_scope(live: Live, tmp_path: Path) -> None:
    aid, _, key = live.register("Helper")
    env = {"BAND_USER_KEY": live.user_key, "BAND_MCP_SCOPE": "human"}
    state: dict[str, Any] = {}

    async def body(s: Any) -> None:
        names = {t.name for t in (await s.list_tools()).tools}
        assert {"band_list_my_chats", "band_create_my_chat_room"} <= names
        health = _text(await s.call_tool("health_check", {}))
        assert health == f"OK | human | {live.rest}", health
        before = _json(await s.call_tool("band_list_my_chats", {}))
        state["before"] = before
        room = _json(await s.call_tool("band_create_my_chat_room", {}))
        rid = room["id"] if "id" in room else room["data"]["id"]
        state["rid"] = rid
        added = await s.call_tool(
            "band_add_my_chat_participant", {"chat_id": rid, "participant_id": aid}
        )
        assert not added.isError, _text(added)
        sent = await s.call_tool(
            "band_send_my_chat_message",
            {"chat_id": rid, "content": "hi helper", "recipients": "Helper"},
        )
        assert not sent.isError, _text(sent)
        missing = _text(
            await s.call_tool(
                "band_send_my_chat_message",
                {"chat_id": rid, "content": "x", "recipients": "nobody"},
            )
        )
        assert missing.startswith("Error: Not found: nobody"), missing
        after = _json(await s.call_tool("band_list_my_chats", {}))
        state["after"] = after
        msgs = await s.call_tool("band_list_my_chat_messages", {"chat_id": rid})
        assert "hi helper" in _text(msgs)
        agents = await s.call_tool("band_list_my_agents", {})
        assert aid in _text(agents)
        profile = await s.call_tool("band_get_my_profile", {})
        assert not profile.isError, _text(profile)

    _run(live, env, body, tmp_path)
    rid = state["rid"]
    assert rid in json.dumps(state["after"]) and rid not in json.dumps(state["before"])
    rows = live.human("GET", f"/api/v1/me/chats/{rid}/messages").json()["data"]
    texts = [m for m in rows if m["message_type"] == "text"]
    assert len(texts) == 1 and texts[0]["content"].endswith("hi helper"), rows  # SDK adds @[[id]]
    assert [m["id"] for m in texts[0]["metadata"]["mentions"]] == [aid]
    parts = live.human("GET", f"/api/v1/me/chats/{rid}/participants").json()["data"]
    assert aid in {p["id"] for p in parts}
    # the mentioned agent sees it as its next message
    nxt = live.agent(key, "GET", f"/api/v1/agent/chats/{rid}/messages/next")
    assert nxt.status_code == 200 and nxt.json()["data"]["id"] == texts[0]["id"]


def test_both_scopes_health_and_bad_key(live: Live, tmp_path: Path) -> None:
    _, _, key = live.register("Both")
    env = {"BAND_AGENT_KEY": key, "BAND_USER_KEY": live.user_key, "BAND_MCP_SCOPE": "agent,human"}

    async def both(s: Any) -> None:
        names = {t.name for t in (await s.list_tools()).tools}
        assert len(names) == 22, sorted(names)  # 8 agent + 13 human + health_check
        assert _text(await s.call_tool("health_check", {})) == f"OK | human,agent | {live.rest}"

    _run(live, env, both, tmp_path)

    async def bad(s: Any) -> None:
        health = _text(await s.call_tool("health_check", {}))
        assert health.startswith("Failed | agent"), health
        res = await s.call_tool("band_get_participants", {"chat_id": "x"})
        assert res.isError and "401" in _text(res), _text(res)

    _run(live, {"BAND_AGENT_KEY": "band_a_wrong", "BAND_MCP_SCOPE": "agent"}, bad, tmp_path)
