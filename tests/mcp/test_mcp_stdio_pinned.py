"""A server pinned to one room (BAND_MCP_ROOM_ID): no chat_id in schemas, the pin wins over the
client's value; and failing keys: health_check and tool errors with status and Band code."""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path

import pytest
from bandtest.platform import Live
from mcp_harness import McpClient, messages, profile, room_with, stdio_client_for

Bot = tuple[str, str, str]


@pytest.fixture(scope="module")
def bot(plat: Live) -> Bot:
    return plat.register("Pinned")


@pytest.fixture(scope="module")
def rooms(plat: Live, bot: Bot) -> tuple[str, str]:
    """The pinned room and another room, the agent in both."""
    return room_with(plat, bot[0]), room_with(plat, bot[0])


@pytest.fixture(scope="module")
def errlog(workdir: Path) -> Iterator[io.TextIOWrapper]:
    with (workdir / "pinned-stderr.log").open("w+") as f:
        yield f


@pytest.fixture(scope="module")
def mcp(
    plat: Live, bot: Bot, rooms: tuple[str, str], workdir: Path, errlog: io.TextIOWrapper
) -> Iterator[McpClient]:
    env = {
        "BAND_AGENT_KEY": bot[2],
        "BAND_USER_KEY": plat.user_key,
        "BAND_MCP_SCOPE": "agent,human",
        "BAND_MCP_ROOM_ID": rooms[0],
        "BAND_BASE_URL": plat.rest,
    }
    client = stdio_client_for([], env, workdir, errlog)
    yield client
    client.close()


def test_schemas_have_no_room(
    mcp: McpClient, rooms: tuple[str, str], errlog: io.TextIOWrapper
) -> None:
    tools = mcp.tools()
    assert len(tools) == 22
    assert all("chat_id" not in t.inputSchema["properties"] for t in tools.values())
    errlog.flush()
    assert f"Pinned room id: {rooms[0]}" in Path(errlog.name).read_text()


def test_agent_tools_act_on_the_pinned_room(
    mcp: McpClient, plat: Live, bot: Bot, rooms: tuple[str, str]
) -> None:
    pinned, other = rooms
    people = mcp.json("band_get_participants")
    assert {p["id"] for p in people} == {bot[0], profile(plat)["id"]}
    # the client's chat_id (or room_id) is overridden by the pin
    mcp.json("band_send_message", {"chat_id": other, "content": "one", "mentions": ["@local"]})
    mcp.json("band_send_message", {"room_id": other, "content": "two", "mentions": ["@local"]})
    assert [m["content"][-3:] for m in messages(plat, pinned)] == ["one", "two"]
    assert messages(plat, other) == []


def test_human_tools_act_on_the_pinned_room(
    mcp: McpClient, plat: Live, rooms: tuple[str, str]
) -> None:
    pinned, other = rooms
    before = len(messages(plat, pinned))
    mcp.json(
        "band_send_my_chat_message", {"chat_id": other, "content": "human", "recipients": "pinned"}
    )
    assert messages(plat, other) == []
    listed = mcp.json("band_list_my_chat_messages", {"chat_id": other, "page_size": 100})
    # newest first
    assert len(listed["data"]) == before + 1 and listed["data"][0]["content"].endswith("human")
    assert mcp.json("band_get_my_chat_room")["data"]["id"] == pinned


def _session(plat: Live, workdir: Path, env: dict[str, str]) -> McpClient:
    log = (workdir / "bad-key-stderr.log").open("a")
    return stdio_client_for([], {"BAND_BASE_URL": plat.rest, **env}, workdir, log)


def test_bad_keys(plat: Live, bot: Bot, workdir: Path) -> None:
    both = {"BAND_MCP_SCOPE": "agent,human"}
    client = _session(
        plat, workdir, {**both, "BAND_AGENT_KEY": "band_a_bad", "BAND_USER_KEY": "band_u_bad"}
    )
    try:
        # both fail: the human failure is the one reported
        health = client.text("health_check")
        assert health.startswith("Failed | human | status_code: 401, code='unauthorized'"), health
        agent_err = client.error("band_get_participants", {"chat_id": "r1"})
        assert agent_err.startswith(
            "Error executing tool band_get_participants: status_code: 401, code='unauthorized'"
        )
        human_err = client.error("band_list_my_chats")
        assert human_err.startswith(
            "Error executing tool band_list_my_chats: status_code: 401, code='unauthorized'"
        )
        # band_no_reply is purely local: it works whatever the key
        assert client.json("band_no_reply") == {"status": "no_reply"}
    finally:
        client.close()
    client = _session(
        plat, workdir, {**both, "BAND_AGENT_KEY": "band_a_bad", "BAND_USER_KEY": plat.user_key}
    )
    try:
        health = client.text("health_check")
        assert health.startswith("Failed | agent | status_code: 401, code='unauthorized'"), health
        assert "band_a_bad" not in health
    finally:
        client.close()
