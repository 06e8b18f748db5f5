"""Where band-mcp's bearer token comes from (no MCP SDK import: the CLI reads it first)."""

from __future__ import annotations

import secrets
from collections.abc import Mapping

TOKEN_ENV = "BAND_MCP_TOKEN"


def resolve_token(env: Mapping[str, str]) -> tuple[str, bool]:
    """The token from ``BAND_MCP_TOKEN``, else a new one; and whether it was generated."""
    given = (env.get(TOKEN_ENV) or "").strip()
    if given:
        return given, False
    return secrets.token_urlsafe(32), True
