"""Band: an open-source Python SDK for the Band agent platform."""

from __future__ import annotations

from typing import TYPE_CHECKING

# first: beside the official band-sdk or band-sdk-core this raises ImportError with the fix
import band_sdk_core._guard  # noqa: F401
from band._lazy import lazy_exports
from band._version import __version__

# Public names resolve on first use: ``import band`` stays cheap for the core, the dev
# server and the CLI.
_EXPORTS = {
    "Agent": "band.agent",
    "AgentConfig": "band.runtime",
    "ConflictPolicy": "band.core.types",
    "SessionConfig": "band.runtime",
    "AgentRuntime": "band.runtime",
    "AgentTools": "band.runtime",
    "Capability": "band.core.types",
    "PlatformMessage": "band.core.types",
    "Emit": "band.core.types",
    "BandError": "band.core.exceptions",
    "BandConfigError": "band.core.exceptions",
    "BandConnectionError": "band.core.exceptions",
    "AgentAlreadyRunningError": "band.core.exceptions",
    "BandToolError": "band.core.exceptions",
    "RoomExecutionStoppedError": "band.core.exceptions",
    "create_room_workspace_resolver": "band.workspaces",
    "ALL_TOOL_NAMES": "band.runtime",
    "BASE_TOOL_NAMES": "band.runtime",
    "CHAT_TOOL_NAMES": "band.runtime",
    "CONTACT_TOOL_NAMES": "band.runtime",
    "MCP_TOOL_PREFIX": "band.runtime",
    "MEMORY_TOOL_NAMES": "band.runtime",
    "TOOL_MODELS": "band.runtime",
    "mcp_tool_names": "band.runtime",
    "AdapterFeatures": "band.core.types",
    "FeatureKwargs": "band.core.types",
    "ExecutionContext": "band.runtime",
    "GracefulShutdown": "band.runtime",
    "run_with_graceful_shutdown": "band.runtime",
    "PlatformEvent": "band.platform.event",
    "build_participants_message": "band.runtime",
    "format_history_for_llm": "band.runtime",
    "format_message_for_llm": "band.runtime",
    "render_system_prompt": "band.runtime",
    "strip_mentions": "band.runtime.formatters",
    "CHATTY_LOGGERS": "band.logging_config",
    "STANDARD_FORMAT": "band.logging_config",
    "FileStyle": "band.logging_config",
    "FormatStyle": "band.logging_config",
    "LogLevel": "band.logging_config",
    "LogStream": "band.logging_config",
    "LoggingConfig": "band.logging_config",
    "LoggingStyle": "band.logging_config",
    "build_logging_config": "band.logging_config",
    "chatty_logger_levels": "band.logging_config",
    "configure_logging": "band.logging_config",
    "LogSettings": "band.config.logs",
    "configure_logging_from_env": "band.config.logs",
}

__all__ = [
    "ALL_TOOL_NAMES",
    "AdapterFeatures",
    "Agent",
    "AgentAlreadyRunningError",
    "AgentConfig",
    "AgentRuntime",
    "AgentTools",
    "BASE_TOOL_NAMES",
    "BandConfigError",
    "BandConnectionError",
    "BandError",
    "BandToolError",
    "CHATTY_LOGGERS",
    "CHAT_TOOL_NAMES",
    "CONTACT_TOOL_NAMES",
    "Capability",
    "ConflictPolicy",
    "Emit",
    "ExecutionContext",
    "FeatureKwargs",
    "FileStyle",
    "FormatStyle",
    "GracefulShutdown",
    "LogLevel",
    "LogSettings",
    "LogStream",
    "LoggingConfig",
    "LoggingStyle",
    "MCP_TOOL_PREFIX",
    "MEMORY_TOOL_NAMES",
    "PlatformEvent",
    "PlatformMessage",
    "RoomExecutionStoppedError",
    "STANDARD_FORMAT",
    "SessionConfig",
    "TOOL_MODELS",
    "__version__",
    "build_logging_config",
    "build_participants_message",
    "chatty_logger_levels",
    "configure_logging",
    "configure_logging_from_env",
    "create_room_workspace_resolver",
    "format_history_for_llm",
    "format_message_for_llm",
    "mcp_tool_names",
    "render_system_prompt",
    "run_with_graceful_shutdown",
    "strip_mentions",
]

if TYPE_CHECKING:
    from band.agent import Agent
    from band.config.logs import LogSettings, configure_logging_from_env
    from band.core.exceptions import (
        AgentAlreadyRunningError,
        BandConfigError,
        BandConnectionError,
        BandError,
        BandToolError,
        RoomExecutionStoppedError,
    )
    from band.core.types import (
        AdapterFeatures,
        Capability,
        ConflictPolicy,
        Emit,
        FeatureKwargs,
        PlatformMessage,
    )
    from band.logging_config import (
        CHATTY_LOGGERS,
        STANDARD_FORMAT,
        FileStyle,
        FormatStyle,
        LoggingConfig,
        LoggingStyle,
        LogLevel,
        LogStream,
        build_logging_config,
        chatty_logger_levels,
        configure_logging,
    )
    from band.platform.event import PlatformEvent
    from band.runtime import (
        ALL_TOOL_NAMES,
        BASE_TOOL_NAMES,
        CHAT_TOOL_NAMES,
        CONTACT_TOOL_NAMES,
        MCP_TOOL_PREFIX,
        MEMORY_TOOL_NAMES,
        TOOL_MODELS,
        AgentConfig,
        AgentRuntime,
        AgentTools,
        ExecutionContext,
        GracefulShutdown,
        SessionConfig,
        build_participants_message,
        format_history_for_llm,
        format_message_for_llm,
        mcp_tool_names,
        render_system_prompt,
        run_with_graceful_shutdown,
    )
    from band.runtime.formatters import strip_mentions
    from band.workspaces import create_room_workspace_resolver


__getattr__ = lazy_exports(globals(), _EXPORTS)
