"""band-sdk's ``band.runtime.mcp_server`` names: the local MCP server that serves Band's tools
(``LocalMCPServer``, its uvicorn and constants) and the tool registrations it serves, from
``band.integrations.mcp`` (needs the ``[mcp]`` extra)."""

from band._extras import require

require("mcp", "The local Band MCP server (band.runtime.mcp_server)")

from band.integrations.mcp.local_server import *  # noqa: E402, F403 -- the server's names
from band.integrations.mcp.local_server import __all__ as _server_all  # noqa: E402
from band.integrations.mcp.registrations import *  # noqa: E402, F403 -- the registrations'
from band.integrations.mcp.registrations import __all__ as _registrations_all  # noqa: E402

# the two modules' names, as band-sdk's path lists them: all but the server's MCP name
__all__ = [name for name in (*_server_all, *_registrations_all) if name != "SERVER_NAME"]
