"""ACP client integration: one Agent Client Protocol agent process per Band room."""

from .config import (
    ACPClientAdapterConfig,
    ACPConfigRequest,
    ACPPermissionRequest,
    ConfigResolver,
    PermissionResolver,
)

__all__ = [
    "ACPClientAdapterConfig",
    "ACPConfigRequest",
    "ACPPermissionRequest",
    "ConfigResolver",
    "PermissionResolver",
]
