"""Band: an open-source Python SDK for the Band agent platform."""

from __future__ import annotations

from typing import TYPE_CHECKING

from band._lazy import lazy_exports
from band._version import __version__

# Public names resolve on first use: ``import band`` stays cheap for the core, the dev
# server and the CLI.
_EXPORTS = {
    "Agent": "band.agent",
    "AgentConfig": "band.runtime.agentconfig",
    "ConflictPolicy": "band.core.types",
    "SessionConfig": "band.runtime.sessionconfig",
    "AgentRuntime": "band.runtime.runtime",
    "AgentTools": "band.runtime.tools",
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
    "ALL_TOOL_NAMES": "band.runtime.tools",
    "BASE_TOOL_NAMES": "band.runtime.tools",
    "CHAT_TOOL_NAMES": "band.runtime.tools",
    "CONTACT_TOOL_NAMES": "band.runtime.tools",
    "MCP_TOOL_PREFIX": "band.runtime.tools",
    "MEMORY_TOOL_NAMES": "band.runtime.tools",
    "TOOL_MODELS": "band.runtime.tools",
    "mcp_tool_names": "band.runtime.tools",
    "AdapterFeatures": "band.core.types",
    "FeatureKwargs": "band.core.types",
    "ExecutionContext": "band.runtime.rooms.execution",
    "GracefulShutdown": "band.runtime.shutdown",
    "run_with_graceful_shutdown": "band.runtime.shutdown",
    "PlatformEvent": "band.platform.event",
    "build_participants_message": "band.runtime.formatters",
    "format_history_for_llm": "band.runtime.formatters",
    "format_message_for_llm": "band.runtime.formatters",
    "render_system_prompt": "band.runtime.prompts",
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
    from band.runtime.agentconfig import AgentConfig
    from band.runtime.formatters import (
        build_participants_message,
        format_history_for_llm,
        format_message_for_llm,
    )
    from band.runtime.prompts import render_system_prompt
    from band.runtime.rooms.execution import ExecutionContext
    from band.runtime.runtime import AgentRuntime
    from band.runtime.sessionconfig import SessionConfig
    from band.runtime.shutdown import GracefulShutdown, run_with_graceful_shutdown
    from band.runtime.tools import (
        ALL_TOOL_NAMES,
        BASE_TOOL_NAMES,
        CHAT_TOOL_NAMES,
        CONTACT_TOOL_NAMES,
        MCP_TOOL_PREFIX,
        MEMORY_TOOL_NAMES,
        TOOL_MODELS,
        AgentTools,
        mcp_tool_names,
    )
    from band.workspaces import create_room_workspace_resolver


__getattr__ = lazy_exports(globals(), _EXPORTS)
