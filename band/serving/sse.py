"""One MCP session over SSE, as both MCP servers (``band-mcp`` and the ACP adapter's) run it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from starlette.types import Receive, Scope, Send

if TYPE_CHECKING:  # the mcp package comes with the mcp and acp extras, not with band.serving
    from mcp.server.lowlevel import Server
    from mcp.server.sse import SseServerTransport

__all__ = ["serve_sse"]


async def serve_sse(
    transport: SseServerTransport,
    server: Server[Any, Any],
    scope: Scope,
    receive: Receive,
    send: Send,
) -> None:
    """Run ``server`` over one SSE connection of ``transport`` (a refused request ends quietly)."""
    try:
        async with transport.connect_sse(scope, receive, send) as (read, write):
            await server.run(read, write, server.create_initialization_options())
    except ValueError as exc:
        # the Host/Origin (DNS-rebinding) check already answered 421/403 and logged a warning;
        # the transport then raises, which would log a traceback per refused request
        if str(exc) != "Request validation failed":
            raise
