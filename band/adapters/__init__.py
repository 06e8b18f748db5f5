"""Adapters that connect agent frameworks and protocols to Band rooms."""

from typing import TYPE_CHECKING

from band._lazy import lazy_exports

# every adapter loads on first use: the ACP adapter needs the [acp] extra, the model adapters
# their provider's SDK ([anthropic], [openai]), the framework adapters their framework ([strands],
# [agno], ...): a missing one is one ImportError line naming the extra
_ACP = (
    "ACPClientAdapter",
    "ACPClientAdapterConfig",
    "ACPConfigRequest",
    "ACPPermissionRequest",
    "PermissionResolver",
)
_ADAPTERS = {
    **dict.fromkeys(_ACP, "band.adapters.acp"),
    "ClaudeApprovalOptions": "band.adapters.claude_sdk",
    "ClaudeCLIOptions": "band.adapters.claude_sdk",
    "ClaudePermissionMode": "band.adapters.claude_sdk",
    "ClaudeSDKAdapter": "band.adapters.claude_sdk",
    "ClaudeSDKAdapterConfig": "band.adapters.claude_sdk",
    "AnthropicAdapter": "band.adapters.anthropic",
    "AnthropicAdapterConfig": "band.adapters.anthropic",
    "CrewAIAdapter": "band.adapters.crewai",
    "CrewAIAdapterConfig": "band.adapters.crewai",
    "GoogleADKAdapter": "band.adapters.google_adk",
    "GoogleADKAdapterConfig": "band.adapters.google_adk",
    "OpenAIAdapter": "band.adapters.openai",
    "OpenAIAdapterConfig": "band.adapters.openai",
    "AgnoAdapter": "band.adapters.agno",
    "AgnoAdapterConfig": "band.adapters.agno",
    "StrandsAdapter": "band.adapters.strands",
    "StrandsAdapterConfig": "band.adapters.strands",
}

__all__ = [
    "ACPClientAdapter",
    "ACPClientAdapterConfig",
    "ACPConfigRequest",
    "ACPPermissionRequest",
    "AgnoAdapter",
    "AgnoAdapterConfig",
    "AnthropicAdapter",
    "AnthropicAdapterConfig",
    "ClaudeApprovalOptions",
    "ClaudeCLIOptions",
    "ClaudePermissionMode",
    "ClaudeSDKAdapter",
    "ClaudeSDKAdapterConfig",
    "CrewAIAdapter",
    "CrewAIAdapterConfig",
    "GoogleADKAdapter",
    "GoogleADKAdapterConfig",
    "OpenAIAdapter",
    "OpenAIAdapterConfig",
    "PermissionResolver",
    "StrandsAdapter",
    "StrandsAdapterConfig",
]

if TYPE_CHECKING:
    from band.adapters.acp import (
        ACPClientAdapter,
        ACPClientAdapterConfig,
        ACPConfigRequest,
        ACPPermissionRequest,
        PermissionResolver,
    )
    from band.adapters.agno import AgnoAdapter, AgnoAdapterConfig
    from band.adapters.anthropic import AnthropicAdapter, AnthropicAdapterConfig
    from band.adapters.claude_sdk import (
        ClaudeApprovalOptions,
        ClaudeCLIOptions,
        ClaudePermissionMode,
        ClaudeSDKAdapter,
        ClaudeSDKAdapterConfig,
    )
    from band.adapters.crewai import CrewAIAdapter, CrewAIAdapterConfig
    from band.adapters.google_adk import GoogleADKAdapter, GoogleADKAdapterConfig
    from band.adapters.openai import OpenAIAdapter, OpenAIAdapterConfig
    from band.adapters.strands import StrandsAdapter, StrandsAdapterConfig


__getattr__ = lazy_exports(globals(), _ADAPTERS)
