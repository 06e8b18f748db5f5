"""Hygiene shared by the local HTTP servers (``band dev``, ``band-mcp``, the ACP adapter's MCP
server): bounded request bodies, headers, header-read time and connections, and quiet logs."""

from __future__ import annotations

from .body import BodyLimit
from .config import guarded_config
from .limits import Limits
from .shutdown import GracefulServer

__all__ = ["BodyLimit", "GracefulServer", "Limits", "guarded_config"]
