"""History converters: a room's platform history in a framework's or provider's message format.

Each converter loads on first use, so ``import band.converters`` imports no framework; one
whose framework is missing (LangChain, Pydantic AI, Agno) says which extra installs it, in one
line. ``ACPServerHistoryConverter`` reads the sessions the ACP server adapter records in its
rooms, ``ACPClientHistoryConverter`` the session and replay lines of an ACP client adapter's
room. A converter is built with ``agent_name`` (or told it by ``set_agent_name``) and its
``convert(raw)`` takes the platform's history rows, oldest first.
"""

from typing import TYPE_CHECKING

from band._lazy import lazy_exports

_CONVERTERS = {
    "ACPClientHistoryConverter": "band.converters.acp_client",
    "ACPServerHistoryConverter": "band.converters.acp_server",
    "AgnoHistoryConverter": "band.converters.agno",
    "AgnoMessages": "band.converters.agno",
    "AnthropicHistoryConverter": "band.converters.anthropic",
    "AnthropicMessages": "band.converters.anthropic",
    "ClaudeSDKHistoryConverter": "band.converters.claude_sdk",
    "CrewAIHistoryConverter": "band.converters.crewai",
    "CrewAIMessages": "band.converters.crewai",
    "GeminiHistoryConverter": "band.converters.gemini",
    "GeminiMessages": "band.converters.gemini",
    "GoogleADKHistoryConverter": "band.converters.google_adk",
    "GoogleADKMessages": "band.converters.google_adk",
    "LangChainHistoryConverter": "band.converters.langchain",
    "LangChainMessages": "band.converters.langchain",
    "PydanticAIHistoryConverter": "band.converters.pydantic_ai",
    "PydanticAIMessages": "band.converters.pydantic_ai",
    "StrandsHistoryConverter": "band.converters.strands",
    "StrandsMessages": "band.converters.strands",
}

__all__ = [
    "ACPClientHistoryConverter",
    "ACPServerHistoryConverter",
    "AgnoHistoryConverter",
    "AgnoMessages",
    "AnthropicHistoryConverter",
    "AnthropicMessages",
    "ClaudeSDKHistoryConverter",
    "CrewAIHistoryConverter",
    "CrewAIMessages",
    "GeminiHistoryConverter",
    "GeminiMessages",
    "GoogleADKHistoryConverter",
    "GoogleADKMessages",
    "LangChainHistoryConverter",
    "LangChainMessages",
    "PydanticAIHistoryConverter",
    "PydanticAIMessages",
    "StrandsHistoryConverter",
    "StrandsMessages",
]

if TYPE_CHECKING:
    from band.converters.acp_client import ACPClientHistoryConverter
    from band.converters.acp_server import ACPServerHistoryConverter
    from band.converters.agno import AgnoHistoryConverter, AgnoMessages
    from band.converters.anthropic import AnthropicHistoryConverter, AnthropicMessages
    from band.converters.claude_sdk import ClaudeSDKHistoryConverter
    from band.converters.crewai import CrewAIHistoryConverter, CrewAIMessages
    from band.converters.gemini import GeminiHistoryConverter, GeminiMessages
    from band.converters.google_adk import GoogleADKHistoryConverter, GoogleADKMessages
    from band.converters.langchain import LangChainHistoryConverter, LangChainMessages
    from band.converters.pydantic_ai import PydanticAIHistoryConverter, PydanticAIMessages
    from band.converters.strands import StrandsHistoryConverter, StrandsMessages


__getattr__ = lazy_exports(globals(), _CONVERTERS)
