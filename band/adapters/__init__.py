"""Adapters that connect agent frameworks and protocols to Band rooms."""

from typing import TYPE_CHECKING

from band._lazy import lazy_exports

# every adapter loads on first use: the ACP adapter needs the [acp] extra, the model adapters
# their provider's SDK ([anthropic], [openai]), the framework adapters their framework
# ([langgraph], [pydantic-ai], [gemini], [openai-agents], [strands], [agno], [claude-sdk],
# [google-adk], [crewai]): a missing one is one ImportError line naming the extra
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
    "ClaudeApprovalOptions": "band.adapters.claude_sdk",
    "ClaudeCLIOptions": "band.adapters.claude_sdk",
    "ClaudePermissionMode": "band.adapters.claude_sdk",
    "ClaudeSDKAdapter": "band.adapters.claude_sdk",
    "ClaudeSDKAdapterConfig": "band.adapters.claude_sdk",
    "AnthropicAdapter": "band.adapters.anthropic",
    "AnthropicAdapterConfig": "band.adapters.anthropic",
    "GeminiAdapter": "band.adapters.gemini",
    "GeminiAdapterConfig": "band.adapters.gemini",
    "OpenAIAdapter": "band.adapters.openai",
    "OpenAIAdapterConfig": "band.adapters.openai",
    "LangGraphAdapter": "band.adapters.langgraph",
    "LangGraphAdapterConfig": "band.adapters.langgraph",
    "PydanticAIAdapter": "band.adapters.pydantic_ai",
    "PydanticAIAdapterConfig": "band.adapters.pydantic_ai",
    "OpenAIAgentsAdapter": "band.adapters.openai_agents",
    "OpenAIAgentsAdapterConfig": "band.adapters.openai_agents",
    "CrewAIAdapter": "band.adapters.crewai",
    "CrewAIAdapterConfig": "band.adapters.crewai",
    "GoogleADKAdapter": "band.adapters.google_adk",
    "GoogleADKAdapterConfig": "band.adapters.google_adk",
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
    "ACPServer",
    "AnthropicAdapter",
    "AnthropicAdapterConfig",
    "BandACPServerAdapter",
    "BandACPServerAdapterConfig",
    "GeminiAdapter",
    "GeminiAdapterConfig",
    "LangGraphAdapter",
    "LangGraphAdapterConfig",
    "AgnoAdapter",
    "AgnoAdapterConfig",
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
    "OpenAIAgentsAdapter",
    "OpenAIAgentsAdapterConfig",
    "PermissionResolver",
    "PydanticAIAdapter",
    "PydanticAIAdapterConfig",
    "StrandsAdapter",
    "StrandsAdapterConfig",
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
    from band.adapters.gemini import GeminiAdapter, GeminiAdapterConfig
    from band.adapters.google_adk import GoogleADKAdapter, GoogleADKAdapterConfig
    from band.adapters.langgraph import LangGraphAdapter, LangGraphAdapterConfig
    from band.adapters.openai import OpenAIAdapter, OpenAIAdapterConfig
    from band.adapters.openai_agents import OpenAIAgentsAdapter, OpenAIAgentsAdapterConfig
    from band.adapters.pydantic_ai import PydanticAIAdapter, PydanticAIAdapterConfig
    from band.adapters.strands import StrandsAdapter, StrandsAdapterConfig


__getattr__ = lazy_exports(globals(), _ADAPTERS)
