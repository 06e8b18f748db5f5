"""Agent configuration: credentials from agent_config.yaml, platform URLs from the environment."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .loader import get_config_path, load_agent_config
from .settings import DEFAULT_REST_URL, DEFAULT_WS_URL, PlatformSettings

if TYPE_CHECKING:
    from .logs import LogSettings, configure_logging_from_env

__all__ = [
    "DEFAULT_REST_URL",
    "DEFAULT_WS_URL",
    "LogSettings",
    "PlatformSettings",
    "configure_logging_from_env",
    "get_config_path",
    "load_agent_config",
]


def __getattr__(name: str) -> Any:
    # The logging names load on first use: band.client reads band.config.env, and an eager
    # import of .logs (band.logging_config -> band.core.exceptions -> band.client) would close
    # an import circle when band.core is the first module a program imports.
    if name in ("LogSettings", "configure_logging_from_env"):
        from . import logs

        return getattr(logs, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
