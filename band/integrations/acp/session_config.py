"""band-sdk's path of the ACP session-configuration helpers (``config_options`` here).

The ACP adapter's guide imports ``flatten_select_options`` from here for a
``resolve_session_config`` hook that reads the model catalog a session advertises.
"""

from __future__ import annotations

from .config import ACPConfigRequest
from .config_options import CONFIG_FAILURE_PREFIX, CONFIG_TIMEOUT_S, flatten_select_options

__all__ = [
    "CONFIG_FAILURE_PREFIX",
    "SESSION_CONFIG_TIMEOUT_SECONDS",
    "ACPConfigRequest",
    "flatten_select_options",
]

#: band-sdk's name of the bound on each ``session/set_config_option`` call (seconds).
SESSION_CONFIG_TIMEOUT_SECONDS = CONFIG_TIMEOUT_S
