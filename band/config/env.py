"""The one way ``band`` reads a setting from the environment, and the Band Cloud URLs.

Every reader follows pydantic-settings' rules (``LogSettings`` and band-mcp's ``Settings`` use it
directly): names match case-insensitively, and an empty or blank value counts as unset. A flag is
on for exactly the values pydantic accepts as ``True``: ``TRUE_VALUES``; a flag on by default is
off for exactly its ``False`` values, ``FALSE_VALUES``. ``band_sdk_core`` keeps a copy of the
first set (the core imports nothing from ``band``); tests/runtime/test_config.py holds the two
equal.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

__all__ = [
    "DEFAULT_BAND_URL",
    "DEFAULT_REST_URL",
    "DEFAULT_WS_URL",
    "FALSE_VALUES",
    "TRUE_VALUES",
    "env_flag",
    "env_value",
]

#: Band Cloud: the REST base URL (band-mcp's ``BAND_BASE_URL`` default too) and its socket.
DEFAULT_BAND_URL = "https://app.band.ai"
DEFAULT_REST_URL = DEFAULT_BAND_URL
DEFAULT_WS_URL = DEFAULT_BAND_URL.replace("https://", "wss://", 1) + "/api/v1/socket/websocket"

#: Lower-cased, stripped values that turn a flag on (pydantic's ``True`` strings).
TRUE_VALUES = frozenset({"1", "true", "yes", "on", "t", "y"})
#: Lower-cased, stripped values that turn a flag off (pydantic's ``False`` strings).
FALSE_VALUES = frozenset({"0", "false", "no", "off", "f", "n"})


def env_value(name: str, environ: Mapping[str, str] | None = None) -> str | None:
    """The stripped value of ``name`` (any case) in ``environ`` (``os.environ``); blank is None."""
    wanted = name.upper()
    for key, value in (os.environ if environ is None else environ).items():
        if key.upper() == wanted and value.strip():
            return value.strip()
    return None


def env_flag(name: str, environ: Mapping[str, str] | None = None, *, default: bool = False) -> bool:
    """Whether flag ``name`` is on: a :data:`TRUE_VALUES` value (any case) turns it on; with
    ``default=True`` (a flag on unless switched off) only a :data:`FALSE_VALUES` value turns it
    off; otherwise ``default``."""
    value = env_value(name, environ)
    if value is None:
        return default
    if default:
        return value.lower() not in FALSE_VALUES
    return value.lower() in TRUE_VALUES
