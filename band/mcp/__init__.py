"""band-mcp: Band's tools for MCP clients (Claude Desktop, Cursor, Codex) over stdio or HTTP."""

#: The band-mcp release whose documented contract this server implements.
__version__ = "2.2.7"
