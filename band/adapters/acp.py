"""band-sdk's import path for the ACP client adapter: an alias of band.integrations.acp names."""

from band.integrations.acp.adapter import ACPClientAdapter
from band.integrations.acp.config import (
    ACPClientAdapterConfig,
    ACPConfigRequest,
    ACPPermissionRequest,
    PermissionResolver,
)

__all__ = [
    "ACPClientAdapter",
    "ACPClientAdapterConfig",
    "ACPConfigRequest",
    "ACPPermissionRequest",
    "PermissionResolver",
]
