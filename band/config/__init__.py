"""Agent configuration: credentials from agent_config.yaml, platform URLs from the environment."""

from .loader import get_config_path, load_agent_config
from .settings import DEFAULT_REST_URL, DEFAULT_WS_URL, PlatformSettings

__all__ = [
    "DEFAULT_REST_URL",
    "DEFAULT_WS_URL",
    "PlatformSettings",
    "get_config_path",
    "load_agent_config",
]
