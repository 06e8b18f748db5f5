"""band-sdk's ``band.runtime.mcp_server`` names: the local MCP server that serves Band's tools
(``LocalMCPServer``, its uvicorn and constants) and the tool registrations it serves, from
``band.integrations.mcp`` (needs the ``[mcp]`` extra)."""

from band._extras import require

require("mcp", "The local Band MCP server (band.runtime.mcp_server)")

from band.integrations.mcp.local_server import (  # noqa: E402
    LOCAL_MCP_HEALTH_PATH,
    LOCAL_MCP_HOST,
    LOCAL_MCP_HTTP_PATH,
    LOCAL_MCP_MESSAGE_PATH,
    LOCAL_MCP_PORT_MAX,
    LOCAL_MCP_PORT_MIN,
    LOCAL_MCP_SSE_PATH,
    SERVER_START_TIMEOUT_S,
    SERVER_STOP_TIMEOUT_S,
    EmbeddedUvicornServer,
    LocalMCPServer,
    MCPToolExecutor,
    MCPToolRegistration,
)
from band.integrations.mcp.registrations import (  # noqa: E402
    RoomToolResolver,
    build_band_mcp_tool_registrations,
    build_resolved_band_mcp_tool_registrations,
)

__all__ = [
    "LOCAL_MCP_HEALTH_PATH",
    "LOCAL_MCP_HOST",
    "LOCAL_MCP_HTTP_PATH",
    "LOCAL_MCP_MESSAGE_PATH",
    "LOCAL_MCP_PORT_MAX",
    "LOCAL_MCP_PORT_MIN",
    "LOCAL_MCP_SSE_PATH",
    "SERVER_START_TIMEOUT_S",
    "SERVER_STOP_TIMEOUT_S",
    "EmbeddedUvicornServer",
    "LocalMCPServer",
    "MCPToolExecutor",
    "MCPToolRegistration",
    "RoomToolResolver",
    "build_band_mcp_tool_registrations",
    "build_resolved_band_mcp_tool_registrations",
]
