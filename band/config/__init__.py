"""Agent configuration: credentials from agent_config.yaml, platform URLs from the environment.

The names resolve on first use: the YAML reader (``yaml``) and ``LogSettings``
(``pydantic-settings``, about 10 MiB of an agent's memory) load only when asked for, so an
agent given its credentials as arguments, or any module reading ``band.config.env``, never
loads them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from band._lazy import lazy_exports

_EXPORTS = {
    "DEFAULT_REST_URL": "band.config.settings",
    "DEFAULT_WS_URL": "band.config.settings",
    "PlatformSettings": "band.config.settings",
    "LogSettings": "band.config.logs",
    "configure_logging_from_env": "band.config.logs",
    "get_config_path": "band.config.loader",
    "load_agent_config": "band.config.loader",
}

__all__ = [
    "DEFAULT_REST_URL",
    "DEFAULT_WS_URL",
    "LogSettings",
    "PlatformSettings",
    "configure_logging_from_env",
    "get_config_path",
    "load_agent_config",
]

if TYPE_CHECKING:
    from .loader import get_config_path, load_agent_config
    from .logs import LogSettings, configure_logging_from_env
    from .settings import DEFAULT_REST_URL, DEFAULT_WS_URL, PlatformSettings

__getattr__ = lazy_exports(globals(), _EXPORTS)
