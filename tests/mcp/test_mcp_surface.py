"""Which tools each scope and group registers, and their schemas (pinned or not).

In memory with the official client (no transport): listing tools makes no REST call.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from bandtest.tool_names import CAPABILITY_TOOLS, CHAT_TOOLS
from mcp.shared.memory import create_connected_server_and_client_session

from band.mcp.app import build
from band.mcp.config import ConfigError, Settings, resolve_config, validate
from band.mcp.server import BandToolServer
from band.runtime.capabilities import Capability

AGENT_BASE = set(CHAT_TOOLS)
AGENT_CONTACTS = set(CAPABILITY_TOOLS[Capability.CONTACTS])
AGENT_MEMORY = set(CAPABILITY_TOOLS[Capability.MEMORY])
AGENT_TASKS = set(CAPABILITY_TOOLS[Capability.TASKS])
HUMAN_ROOM_BOUND = {
    "band_get_my_chat_room",
    "band_list_my_chat_messages",
    "band_send_my_chat_message",
    "band_list_my_chat_participants",
    "band_add_my_chat_participant",
    "band_remove_my_chat_participant",
}
HUMAN_BASE = {
    "band_list_my_agents",
    "band_register_my_agent",
    "band_list_my_chats",
    "band_create_my_chat_room",
    *HUMAN_ROOM_BOUND,
    "band_get_my_profile",
    "band_update_my_profile",
    "band_list_my_peers",
}
HUMAN_CONTACTS = {
    "band_list_my_contacts",
    "band_create_contact_request",
    "band_list_received_contact_requests",
    "band_list_sent_contact_requests",
    "band_approve_contact_request",
    "band_reject_contact_request",
    "band_cancel_contact_request",
    "band_resolve_handle",
    "band_remove_my_contact",
}
HUMAN_MEMORY = {
    "band_list_user_memories",
    "band_get_user_memory",
    "band_supersede_user_memory",
    "band_archive_user_memory",
    "band_restore_user_memory",
    "band_delete_user_memory",
}
AGENT_ROOM_BOUND = AGENT_BASE - {"band_no_reply", "band_create_chatroom"} | AGENT_TASKS
KEYS = {"BAND_AGENT_KEY": "band_a_x", "BAND_USER_KEY": "band_u_x"}


def listing(scope: str, tools: str = "", room: str | None = None) -> dict[str, Any]:
    """The tools (name -> Tool) a server with this configuration advertises."""
    config = resolve_config(KEYS, scope=[scope], tools=[tools], room_id=room)
    validate(config)

    async def go() -> dict[str, Any]:
        async with build(config, Settings(band_base_url="http://127.0.0.1:9")) as server:
            async with create_connected_server_and_client_session(server.server) as client:
                return {t.name: t for t in (await client.list_tools()).tools}

    return asyncio.run(go())


@pytest.mark.parametrize(
    ("scope", "tools", "expected"),
    [
        ("agent", "", AGENT_BASE),
        ("agent", "contacts", AGENT_BASE | AGENT_CONTACTS),
        ("agent", "memory", AGENT_BASE | AGENT_MEMORY),
        ("agent", "tasks", AGENT_BASE | AGENT_TASKS),
        ("human", "", HUMAN_BASE),
        ("human", "contacts", HUMAN_BASE | HUMAN_CONTACTS),
        ("human", "memory", HUMAN_BASE | HUMAN_MEMORY),
        ("human", "tasks", HUMAN_BASE),
        ("agent,human", "", AGENT_BASE | HUMAN_BASE),
        (
            "human,agent",
            "contacts,memory",
            AGENT_BASE | AGENT_CONTACTS | AGENT_MEMORY | HUMAN_BASE | HUMAN_CONTACTS | HUMAN_MEMORY,
        ),
    ],
)
def test_tools_per_scope_and_group(scope: str, tools: str, expected: set[str]) -> None:
    names = set(listing(scope, tools))
    assert names == expected | {"health_check"}


def test_counts_of_the_reference() -> None:
    assert (len(AGENT_BASE), len(AGENT_CONTACTS), len(AGENT_MEMORY)) == (8, 5, 5)
    assert (len(HUMAN_BASE), len(HUMAN_CONTACTS), len(HUMAN_MEMORY)) == (13, 9, 6)
    assert len(listing("agent,human")) == 21 + 1
    assert len(listing("agent,human", "contacts,memory")) == 46 + 1
    assert len(listing("agent,human", "contacts,memory,tasks")) == 53 + 1


def test_room_bound_schemas() -> None:
    tools = listing("agent,human", "contacts,memory,tasks")
    for name, tool in tools.items():
        props = tool.inputSchema["properties"]
        required = tool.inputSchema.get("required", [])
        if name in AGENT_ROOM_BOUND:
            assert props["chat_id"]["maxLength"] == 255, name
            assert "chat_id" in required, name
        elif name in HUMAN_ROOM_BOUND:
            assert "chat_id" in required, name
        else:
            assert "chat_id" not in props, name
        assert tool.description, name
    send = tools["band_send_message"].inputSchema
    assert set(send["properties"]) == {"chat_id", "content", "mentions"}
    assert sorted(send["required"]) == ["chat_id", "content", "mentions"]
    event = tools["band_send_event"].inputSchema["properties"]["message_type"]
    assert event["enum"] == ["thought", "error", "task", "tool_call", "tool_result"]
    assert tools["band_list_my_peers"].inputSchema["properties"]["not_in_chat"]
    assert tools["health_check"].inputSchema["properties"] == {}


def test_pinned_room_removes_chat_id_from_every_schema() -> None:
    tools = listing("agent,human", "contacts,memory,tasks", room="room-123")
    assert len(tools) == 54
    for name, tool in tools.items():
        assert "chat_id" not in tool.inputSchema["properties"], name
        assert "chat_id" not in tool.inputSchema.get("required", []), name
    send = tools["band_send_message"].inputSchema
    assert set(send["properties"]) == {"content", "mentions"}
    assert sorted(send["required"]) == ["content", "mentions"]
    # band_list_my_peers keeps its optional room filter
    assert "not_in_chat" in tools["band_list_my_peers"].inputSchema["properties"]


def test_duplicate_tool_names_are_a_configuration_error() -> None:
    config = resolve_config(KEYS, scope=["agent"])

    async def go() -> None:
        async with build(config, Settings()) as server:
            tools = list(server.tools.values())
            BandToolServer(tools + tools[:1], config=config, base_url="x")

    with pytest.raises(ConfigError, match=r"^Duplicate tool name across enabled surfaces: "):
        asyncio.run(go())


def test_health_check_without_any_client_and_unknown_tool() -> None:
    config = resolve_config({}, scope=["agent"])
    server = BandToolServer([], config=config, base_url="http://x")

    async def go() -> tuple[Any, Any]:
        async with create_connected_server_and_client_session(server.server) as client:
            health = await client.call_tool("health_check", {})
            unknown = await client.call_tool("band_teleport", {})
            return health, unknown

    health, unknown = asyncio.run(go())
    assert health.content[0].text == "Failed | no credential configured"
    assert unknown.isError and unknown.content[0].text == "Unknown tool: band_teleport"
