"""band.integrations.mcp (issue 55): a shared Band MCP backend serving a room's tools to an
MCP client (the official ``mcp`` client), started on first use, replaced, closed for good."""

from __future__ import annotations

import asyncio

import pytest
from bandtest.agents import plain
from bandtest.platform import Live, room_with

from band.client.rest import RestClient
from band.core.protocols import AgentToolsProtocol
from band.integrations.mcp import (
    BandMCPBackendSettings,
    BandMCPBackendStoppedError,
    BandMCPTransport,
    SharedBandMCPBackend,
)
from band.runtime.mcp_server import LOCAL_MCP_PORT_MAX, LOCAL_MCP_PORT_MIN
from band.runtime.tools import AgentTools, select_tools


def test_the_backend_serves_the_room_tools_of_the_running_turn(live: Live) -> None:
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    aid, _, key = live.register("McpBackend")
    rid = room_with(live, aid)
    me = live.human("GET", "/api/v1/me/profile").json()["data"]["id"]

    async def main() -> None:
        async with RestClient(key, live.rest) as rest:
            turns: dict[str, AgentToolsProtocol] = {rid: AgentTools(rid, rest, agent_id=aid)}
            settings = BandMCPBackendSettings(
                tool_definitions=select_tools(None), get_tools=turns.get, room_bound=True
            )
            async with SharedBandMCPBackend(lambda: settings) as shared:
                backend = await shared.ensure()
                assert await shared.ensure() is backend and shared.current is backend
                assert "mcp__band__band_send_message" in backend.allowed_tools
                url = backend.endpoint(BandMCPTransport.HTTP, rid)
                assert backend.endpoint(BandMCPTransport.SSE, rid).endswith("/sse")
                with pytest.raises(ValueError):
                    backend.endpoint(BandMCPTransport.HTTP)
                async with (
                    streamable_http_client(url) as s,
                    ClientSession(s[0], s[1]) as session,
                ):
                    await session.initialize()
                    names = {t.name for t in (await session.list_tools()).tools}
                    assert {"band_send_message", "band_get_participants"} <= names
                    sent = await session.call_tool(
                        "band_send_message", {"content": "via mcp", "mentions": [me]}
                    )
                    assert not sent.isError, sent
                    # the call counted for the room's running turn
                    assert turns[rid].turn.replied
                    turns.pop(rid)  # the turn ended: calls are refused
                    refused = await session.call_tool("band_get_participants", {})
                    assert refused.isError
                # a stopped server is replaced by the next ensure()
                await backend.stop()
                replacement = await shared.ensure()
                assert replacement is not backend and replacement.is_running
            with pytest.raises(BandMCPBackendStoppedError):
                await shared.ensure()
            assert not replacement.is_running
            await shared.reopen()
            again = await shared.ensure()
            await shared.close(final=True)
            assert not again.is_running
        rows = live.human("GET", f"/api/v1/me/chats/{rid}/messages").json()["data"]
        assert [plain(m["content"]) for m in rows if m["sender_id"] == aid] == ["via mcp"]

    asyncio.run(main())


def test_the_default_backend_is_one_url_for_every_room_on_a_port_of_the_range(
    live: Live,
) -> None:
    """band-sdk's defaults: a multi-room endpoint whose tools take ``chat_id``, on a port of
    50000-60000; each call acts in the room it names, with that room's turn."""
    from mcp import ClientSession
    from mcp.client.sse import sse_client

    aid, _, key = live.register("McpMultiRoom")
    first, second = room_with(live, aid), room_with(live, aid)
    me = live.human("GET", "/api/v1/me/profile").json()["data"]["id"]

    async def main() -> None:
        async with RestClient(key, live.rest) as rest:
            turns: dict[str, AgentToolsProtocol] = {
                rid: AgentTools(rid, rest, agent_id=aid) for rid in (first, second)
            }
            settings = BandMCPBackendSettings(
                tool_definitions=select_tools(None), get_tools=turns.get
            )
            assert (settings.room_bound, settings.port_min, settings.port_max) == (
                False,
                LOCAL_MCP_PORT_MIN,
                LOCAL_MCP_PORT_MAX,
            )
            async with SharedBandMCPBackend(lambda: settings) as shared:
                backend = await shared.ensure()
                port = backend.local_server.port
                assert port is not None and LOCAL_MCP_PORT_MIN <= port <= LOCAL_MCP_PORT_MAX
                with pytest.raises(ValueError, match="multi-room"):
                    backend.endpoint(BandMCPTransport.HTTP, first)
                url = backend.endpoint(BandMCPTransport.SSE)
                async with sse_client(url) as s, ClientSession(s[0], s[1]) as session:
                    await session.initialize()
                    tools = {t.name: t for t in (await session.list_tools()).tools}
                    assert "chat_id" in tools["band_send_message"].inputSchema["required"]
                    for rid, text in ((first, "to the first"), (second, "to the second")):
                        sent = await session.call_tool(
                            "band_send_message",
                            {"chat_id": rid, "content": text, "mentions": [me]},
                        )
                        assert not sent.isError, sent
                        assert turns[rid].turn.replied
                    missing = await session.call_tool(
                        "band_send_message", {"content": "where?", "mentions": [me]}
                    )
                    assert missing.isError and "chat_id" in missing.content[0].text
                    stranger = await session.call_tool(
                        "band_get_participants", {"chat_id": "no-such-room"}
                    )
                    assert stranger.isError and "no-such-room" in stranger.content[0].text
                # a replacement avoids the port its dead predecessor had
                await backend.stop()
                assert (await shared.ensure()).local_server.port != port
        for rid, text in ((first, "to the first"), (second, "to the second")):
            rows = live.human("GET", f"/api/v1/me/chats/{rid}/messages").json()["data"]
            assert [plain(m["content"]) for m in rows if m["sender_id"] == aid] == [text]

    asyncio.run(main())


def test_settings_refuse_what_the_backend_does_not_offer() -> None:
    with pytest.raises(ValueError, match=r"127\.0\.0\.1"):
        BandMCPBackendSettings(tool_definitions=[], get_tools=lambda r: None, host="0.0.0.0")
    with pytest.raises(ValueError, match="port_min"):
        BandMCPBackendSettings(
            tool_definitions=[], get_tools=lambda r: None, port_min=50010, port_max=50000
        )
