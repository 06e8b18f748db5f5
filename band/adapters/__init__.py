"""Adapters that connect agent frameworks and protocols to Band rooms."""

from band.adapters.acp import (
    ACPClientAdapter,
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
