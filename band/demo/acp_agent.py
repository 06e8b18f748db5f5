"""The demo's ACP agent: a deterministic process on the official ``agent-client-protocol`` SDK.

``band demo --acp`` launches it (``python -m band.demo.acp_agent``) through ``ACPClientAdapter``,
one process per room. Each prompt it thinks aloud, then answers by calling ``band_send_message``
on the ``band`` MCP server the adapter gives every session (with the official MCP client),
reporting that call as ACP ``tool_call`` frames. No model: the same message gets the same answer.
Only stderr may carry logs; stdout is the protocol channel.
"""

from __future__ import annotations

import asyncio
import re
import uuid
from typing import Any

from acp import (
    PROTOCOL_VERSION,
    RequestError,
    run_agent,
    start_tool_call,
    text_block,
    tool_content,
    update_agent_thought_text,
    update_tool_call,
)
from acp.schema import (
    AgentCapabilities,
    HttpMcpServer,
    Implementation,
    InitializeResponse,
    McpCapabilities,
    NewSessionResponse,
    PromptResponse,
    SseMcpServer,
)

__all__ = ["DemoACPAgent", "main"]

SERVER_NAME = "band"
_REQUESTER_ID = re.compile(r"^Current requester id: (\S+)$", re.M)
# the adapter sends each message as ``[Sender name]: text`` (PlatformMessage.format_for_llm)
_MESSAGE = re.compile(r"^\[([^\]\n]+)\]: (.*)$", re.M)
# the leading mentions: ``@handle`` (the adapter rewrites the platform's ``@[[id]]`` tokens)
_LEADING_MENTIONS = re.compile(r"^\s*(?:@\S+(?:\s+|$))+")


class DemoACPAgent:
    """Answers every prompt through the session's ``band`` MCP server."""

    def __init__(self) -> None:
        self.conn: Any = None
        self.servers: dict[str, list[Any]] = {}
        self.requesters: dict[str, str] = {}

    def on_connect(self, conn: Any) -> None:
        self.conn = conn

    async def initialize(self, protocol_version: int, **kw: Any) -> InitializeResponse:
        return InitializeResponse(
            protocol_version=PROTOCOL_VERSION,
            agent_capabilities=AgentCapabilities(
                load_session=False, mcp_capabilities=McpCapabilities(http=True, sse=True)
            ),
            auth_methods=[],
            agent_info=Implementation(name="band-demo-acp-agent", version="1.0"),
        )

    async def new_session(
        self, cwd: str, mcp_servers: list[Any] | None = None, **kw: Any
    ) -> NewSessionResponse:
        session_id = f"demo-{uuid.uuid4().hex[:12]}"
        self.servers[session_id] = list(mcp_servers or [])
        return NewSessionResponse(session_id=session_id)

    async def cancel(self, session_id: str, **kw: Any) -> None:
        return None

    async def prompt(self, session_id: str, prompt: list[Any], **kw: Any) -> PromptResponse:
        if session_id not in self.servers:
            raise RequestError.resource_not_found(session_id)
        text = "\n".join(getattr(block, "text", "") for block in prompt)
        found = _REQUESTER_ID.search(text)
        if found:  # only a session's first prompt carries the system context
            self.requesters[session_id] = found.group(1)
        messages = _MESSAGE.findall(text)
        sender, said = messages[-1] if messages else ("there", text)
        said = _LEADING_MENTIONS.sub("", said, count=1).strip() or "(nothing)"
        await self.conn.session_update(
            session_id,
            update_agent_thought_text(
                f"{sender} wrote to me over ACP; I answer with the band_send_message MCP tool."
            ),
        )
        # mention by id when the system context named the requester, else by name
        mention = self.requesters.get(session_id) if found else sender
        args = {
            "content": f"Hello {sender}! (from an ACP agent) You said: {said}",
            "mentions": [mention or sender],
        }
        await self.call_tool(session_id, "band_send_message", args)
        return PromptResponse(stop_reason="end_turn")

    async def call_tool(self, session_id: str, name: str, args: dict[str, Any]) -> None:
        """Call ``name`` on the session's ``band`` MCP server, reported as ACP tool frames."""
        from mcp import ClientSession
        from mcp.client.sse import sse_client
        from mcp.client.streamable_http import streamable_http_client

        call_id = f"call-{uuid.uuid4().hex[:8]}"
        await self.conn.session_update(
            session_id,
            start_tool_call(call_id, name, kind="other", status="in_progress", raw_input=args),
        )
        server = next(
            (s for s in self.servers[session_id] if getattr(s, "name", "") == SERVER_NAME), None
        )
        if not isinstance(server, HttpMcpServer | SseMcpServer):
            await self.finish(session_id, call_id, "no band MCP server was given", failed=True)
            return
        transport: Any = (
            streamable_http_client(server.url)
            if isinstance(server, HttpMcpServer)
            else sse_client(server.url)
        )
        async with transport as streams, ClientSession(streams[0], streams[1]) as session:
            await session.initialize()
            result = await session.call_tool(name, args)
        output = "\n".join(getattr(c, "text", "") for c in result.content)
        await self.finish(session_id, call_id, output, failed=bool(result.isError))

    async def finish(self, session_id: str, call_id: str, text: str, *, failed: bool) -> None:
        await self.conn.session_update(
            session_id,
            update_tool_call(
                call_id,
                status="failed" if failed else "completed",
                content=[tool_content(text_block(text))],
            ),
        )


def main() -> None:
    """Serve one ACP client over stdio until stdin closes."""
    asyncio.run(run_agent(DemoACPAgent()))  # type: ignore[arg-type]


if __name__ == "__main__":
    main()
