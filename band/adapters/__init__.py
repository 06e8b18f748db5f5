"""Adapters that connect agent frameworks and protocols to Band rooms."""

from typing import TYPE_CHECKING

from band._lazy import lazy_exports

# every adapter loads on first use: the ACP adapter needs the [acp] extra, the model adapters
# their provider's SDK ([anthropic], [openai]), the framework adapters their framework
# ([langgraph], [pydantic-ai], [gemini], [openai-agents])
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
    "OpenAIAdapter",
    "OpenAIAdapterConfig",
    "OpenAIAgentsAdapter",
    "OpenAIAgentsAdapterConfig",
    "PermissionResolver",
    "PydanticAIAdapter",
    "PydanticAIAdapterConfig",
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
    from band.adapters.gemini import GeminiAdapter, GeminiAdapterConfig
    from band.adapters.langgraph import LangGraphAdapter, LangGraphAdapterConfig
    from band.adapters.openai import OpenAIAdapter, OpenAIAdapterConfig
    from band.adapters.openai_agents import OpenAIAgentsAdapter, OpenAIAgentsAdapterConfig
    from band.adapters.pydantic_ai import PydanticAIAdapter, PydanticAIAdapterConfig


__getattr__ = lazy_exports(globals(), _ADAPTERS)
