"""band-sdk's import path for the ACP adapters (client and server side): band.integrations.acp's."""

from band.integrations.acp.adapter import ACPClientAdapter
from band.integrations.acp.config import (
    ACPClientAdapterConfig,
    ACPConfigRequest,
    ACPPermissionRequest,
    PermissionResolver,
)
from band.integrations.acp.server import (
    ACPServer,
    BandACPServerAdapter,
    BandACPServerAdapterConfig,
)

__all__ = [
    "ACPClientAdapter",
    "ACPClientAdapterConfig",
    "ACPConfigRequest",
    "ACPPermissionRequest",
    "ACPServer",
    "BandACPServerAdapter",
    "BandACPServerAdapterConfig",
    "PermissionResolver",
]
