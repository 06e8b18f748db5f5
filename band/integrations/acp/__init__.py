"""ACP client integration: one Agent Client Protocol agent process per Band room."""

from band._extras import require

# the [acp] extra's packages: without them, one line naming the extra instead of a trace
require("acp", "The ACP adapter (band.integrations.acp)")

from .adapter import ACPClientAdapter  # noqa: E402
from .client import ACPClientProfile  # noqa: E402
from .config import (  # noqa: E402
    ACPClientAdapterConfig,
    ACPConfigRequest,
    ACPPermissionRequest,
    ConfigResolver,
    PermissionResolver,
)

__all__ = [
    "ACPClientAdapter",
    "ACPClientAdapterConfig",
    "ACPClientProfile",
    "ACPConfigRequest",
    "ACPPermissionRequest",
    "ConfigResolver",
    "PermissionResolver",
]
