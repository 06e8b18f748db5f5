"""Agent configuration: credentials from agent_config.yaml, platform URLs from the environment."""

from __future__ import annotations

from .loader import get_config_path, load_agent_config
from .logs import LogSettings, configure_logging_from_env
from .settings import DEFAULT_REST_URL, DEFAULT_WS_URL, PlatformSettings

__all__ = [
    "DEFAULT_REST_URL",
    "DEFAULT_WS_URL",
    "LogSettings",
    "PlatformSettings",
    "configure_logging_from_env",
    "get_config_path",
    "load_agent_config",
]
