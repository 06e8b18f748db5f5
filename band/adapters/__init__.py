"""Adapters that connect agent frameworks and protocols to Band rooms."""

from typing import TYPE_CHECKING

from band._lazy import lazy_exports

# every adapter loads on first use: the ACP adapter needs the [acp] extra, the model adapters
# their provider's SDK ([anthropic], [openai])
_ACP = (
    "ACPClientAdapter",
    "ACPClientAdapterConfig",
    "ACPConfigRequest",
    "ACPPermissionRequest",
    "ACPServer",
    "BandACPServerAdapter",
    "BandACPServerAdapterConfig",
    "PermissionResolver",
)
_ADAPTERS = {
    **dict.fromkeys(_ACP, "band.adapters.acp"),
    "AnthropicAdapter": "band.adapters.anthropic",
    "AnthropicAdapterConfig": "band.adapters.anthropic",
    "OpenAIAdapter": "band.adapters.openai",
    "OpenAIAdapterConfig": "band.adapters.openai",
}

__all__ = [
    "ACPClientAdapter",
    "ACPClientAdapterConfig",
    "ACPConfigRequest",
    "ACPPermissionRequest",
    "ACPServer",
    "AnthropicAdapter",
    "AnthropicAdapterConfig",
    "BandACPServerAdapter",
    "BandACPServerAdapterConfig",
    "OpenAIAdapter",
    "OpenAIAdapterConfig",
    "PermissionResolver",
]

if TYPE_CHECKING:
    from band.adapters.acp import (
        ACPClientAdapter,
        ACPClientAdapterConfig,
        ACPConfigRequest,
        ACPPermissionRequest,
        ACPServer,
        BandACPServerAdapter,
        BandACPServerAdapterConfig,
        PermissionResolver,
    )
    from band.adapters.anthropic import AnthropicAdapter, AnthropicAdapterConfig
    from band.adapters.openai import OpenAIAdapter, OpenAIAdapterConfig


__getattr__ = lazy_exports(globals(), _ADAPTERS)
