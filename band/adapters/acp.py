"""The ACP client adapter (implemented in ``band.integrations.acp``)."""

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
