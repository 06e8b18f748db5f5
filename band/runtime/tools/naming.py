"""Band tool names as MCP clients spell them, and what a call did by its tool's name."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from band.core.turn import TurnEffect

from .registry import ALL_TOOL_NAMES, BAND_MCP_SERVER_NAME, TOOLS

__all__ = [
    "_resolve_mcp_tool_name",
    "band_tool_errored",
    "canonicalize_mcp_tool_name",
    "mcp_tool_spelling",
    "turn_effect",
]

#: How the Band MCP server's tools show up in clients that join server and tool with a hyphen.
_SERVER_PREFIX = f"{BAND_MCP_SERVER_NAME}-"


def mcp_tool_spelling(server: str, tool: str) -> str:
    """``tool`` of MCP server ``server`` as ``<server>-<tool>``, the spelling resolved below."""
    return f"{server}-{tool}"


def _resolve_mcp_tool_name(tool_name: str, names: Collection[str]) -> str | None:
    """The member of ``names`` that ``tool_name`` is, bare or as ``band-<name>``; else None."""
    if tool_name in names:
        return tool_name
    # Only the Band server's own prefix: another server's ``x-band_send_message`` is not ours.
    if tool_name.startswith(_SERVER_PREFIX):
        bare = tool_name.removeprefix(_SERVER_PREFIX)
        if bare in names:
            return bare
    return None


def canonicalize_mcp_tool_name(tool_name: str, own_names: Collection[str]) -> str:
    """The name in ``own_names`` behind ``tool_name``'s ``band-`` spelling, else ``tool_name``."""
    return _resolve_mcp_tool_name(tool_name, own_names) or tool_name


def band_tool_errored(tool_name: str | None, content: Any) -> bool:
    """True when a Band tool (by its exact name) answered with its ``"Error ..."`` string."""
    return tool_name in ALL_TOOL_NAMES and isinstance(content, str) and content.startswith("Error ")


def turn_effect(
    tool_name: str, *, custom_effects: Mapping[str, TurnEffect] | None = None
) -> TurnEffect:
    """A tool's turn effect: a Band tool's own (its ``band-`` spelling too), else the custom
    one ``custom_effects`` declares, else ``OBSERVE``; a custom entry cannot redefine a Band tool.
    """
    band = _resolve_mcp_tool_name(tool_name, ALL_TOOL_NAMES)
    if band is not None:
        return TOOLS[band].effect
    return (custom_effects or {}).get(tool_name, TurnEffect.OBSERVE)
