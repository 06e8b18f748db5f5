"""ACP client integration: one Agent Client Protocol agent process per Band room."""

from .adapter import ACPClientAdapter
from .client import ACPClientProfile
from .config import (
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
