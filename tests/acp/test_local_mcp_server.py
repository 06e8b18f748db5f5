"""band.runtime.mcp_server (issue 55): ``LocalMCPServer`` serving the registrations built from
the tool table, to the official ``mcp`` client, acting on band dev."""

from __future__ import annotations

import asyncio

import httpx
import pytest
from bandtest.agents import plain
from bandtest.platform import Live, room_with
from pydantic import BaseModel

from band.client.rest import RestClient
from band.core.protocols import AgentToolsProtocol
from band.runtime.mcp_server import (
    LOCAL_MCP_HEALTH_PATH,
    LocalMCPServer,
    build_band_mcp_tool_registrations,
    build_resolved_band_mcp_tool_registrations,
)
from band.runtime.tools import AgentTools, iter_tool_definitions


class FileTicketInput(BaseModel):
    """File a ticket."""

    title: str


def test_local_server_serves_one_agent_tools_from_the_table(live: Live) -> None:
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    aid, _, key = live.register("LocalMcp")
    rid = room_with(live, aid)
    me = live.human("GET", "/api/v1/me/profile").json()["data"]["id"]
    filed: list[str] = []

    async def file_ticket(title: str) -> str:
        filed.append(title)
        return f"filed {title}"

    async def main() -> None:
        async with RestClient(key, live.rest) as rest:
            tools = AgentTools(rid, rest, agent_id=aid)
            registrations = build_band_mcp_tool_registrations(
                tools, additional_tools=[(FileTicketInput, file_ticket)]
            )
            names = {r.name for r in registrations}
            assert {d.name for d in iter_tool_definitions()} | {"fileticket"} == names
            async with LocalMCPServer("band", registrations, port_min=0, port_max=0) as server:
                async with httpx.AsyncClient() as http:
                    health = await http.get(
                        f"http://127.0.0.1:{server.port}{LOCAL_MCP_HEALTH_PATH}"
                    )
                    assert health.text == "ok"
                    # the endpoint's key is the capability: the bare path is not served
                    bare = await http.post(f"http://127.0.0.1:{server.port}/mcp", json={})
                    assert bare.status_code == 404
                with pytest.raises(ValueError, match="multi-room"):
                    server.room_http_url(rid)
                async with (
                    streamable_http_client(server.http_url) as s,
                    ClientSession(s[0], s[1]) as session,
                ):
                    await session.initialize()
                    listed = {t.name for t in (await session.list_tools()).tools}
                    assert listed == names
                    sent = await session.call_tool(
                        "band_send_message",
                        {"chat_id": rid, "content": "from LocalMCPServer", "mentions": [me]},
                    )
                    assert not sent.isError, sent
                    ticket = await session.call_tool(
                        "fileticket", {"chat_id": rid, "title": "leak"}
                    )
                    assert not ticket.isError and filed == ["leak"]
            assert not server.is_running
        rows = live.human("GET", f"/api/v1/me/chats/{rid}/messages").json()["data"]
        assert [plain(m["content"]) for m in rows if m["sender_id"] == aid] == [
            "from LocalMCPServer"
        ]

    asyncio.run(main())


def test_room_bound_registrations_take_the_room_from_the_url(live: Live) -> None:
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    aid, _, key = live.register("LocalMcpRooms")
    rid = room_with(live, aid)

    async def main() -> None:
        async with RestClient(key, live.rest) as rest:
            turns: dict[str, AgentToolsProtocol] = {rid: AgentTools(rid, rest, agent_id=aid)}
            registrations = build_resolved_band_mcp_tool_registrations(
                get_tools=turns.get, room_from_connection=True
            )
            server = LocalMCPServer("band", registrations, room_bound=True)
            async with server:
                with pytest.raises(ValueError, match="room-bound"):
                    _ = server.http_url
                url = server.room_http_url(rid)
                async with (
                    streamable_http_client(url) as s,
                    ClientSession(s[0], s[1]) as session,
                ):
                    await session.initialize()
                    tools = {t.name: t for t in (await session.list_tools()).tools}
                    assert "chat_id" not in tools["band_get_participants"].inputSchema.get(
                        "properties", {}
                    )
                    got = await session.call_tool("band_get_participants", {})
                    assert not got.isError, got
                    assert aid in str(got.content[0].text if got.content else got)
                server.unbind(rid)
                async with httpx.AsyncClient() as http:
                    assert (await http.post(url, json={})).status_code == 404

    asyncio.run(main())
