"""The agent runtime: rooms, delivery, and the platform tools adapters call.

The names below are band-sdk 6.0.1's ``band.runtime`` exports; they resolve on first use so
that importing a runtime submodule does not import the whole runtime.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from band._lazy import lazy_exports

_EXPORTS = {
    "ALL_TOOL_NAMES": "band.runtime.tools",
    "BASE_TOOL_NAMES": "band.runtime.tools",
    "CHAT_TOOL_NAMES": "band.runtime.tools",
    "CONTACT_TOOL_NAMES": "band.runtime.tools",
    "MCP_TOOL_PREFIX": "band.runtime.tools",
    "MEMORY_TOOL_NAMES": "band.runtime.tools",
    "READ_ONLY_TOOL_NAMES": "band.runtime.tools",
    "TOOL_MODELS": "band.runtime.tools",
    "AgentTools": "band.runtime.tools",
    "mcp_tool_names": "band.runtime.tools",
    "BASE_INSTRUCTIONS": "band.runtime.prompts",
    "TEMPLATES": "band.runtime.prompts",
    "render_system_prompt": "band.runtime.prompts",
    "AgentConfig": "band.runtime.agentconfig",
    "AgentRuntime": "band.runtime.runtime",
    "ExecutionContext": "band.runtime.composed",
    "GracefulShutdown": "band.runtime.shutdown",
    "run_with_graceful_shutdown": "band.runtime.shutdown",
    "PlatformMessage": "band.core.types",
    "SessionConfig": "band.runtime.sessionconfig",
    "ConversationContext": "band.runtime.conversation",
    "Execution": "band.runtime.execution_api",
    "ExecutionHandler": "band.runtime.execution_api",
    "HumanTools": "band.runtime.tools",
    "MessageHandler": "band.runtime.callbacks",
    "MessageRetryTracker": "band.runtime.retry_tracker",
    "OneShotEnvelopeError": "band.runtime.oneshot",
    "OneShotInvoker": "band.runtime.oneshot",
    "OneShotStatus": "band.runtime.oneshot",
    "RoomPresence": "band.runtime.presence",
    "build_participants_message": "band.runtime.formatters",
    "format_history_for_llm": "band.runtime.formatters",
    "format_message_for_llm": "band.runtime.formatters",
}

__all__ = [
    "ALL_TOOL_NAMES",
    "AgentConfig",
    "AgentRuntime",
    "AgentTools",
    "BASE_INSTRUCTIONS",
    "BASE_TOOL_NAMES",
    "CHAT_TOOL_NAMES",
    "CONTACT_TOOL_NAMES",
    "ConversationContext",
    "Execution",
    "ExecutionContext",
    "ExecutionHandler",
    "GracefulShutdown",
    "HumanTools",
    "MCP_TOOL_PREFIX",
    "MEMORY_TOOL_NAMES",
    "MessageHandler",
    "MessageRetryTracker",
    "OneShotEnvelopeError",
    "OneShotInvoker",
    "OneShotStatus",
    "PlatformMessage",
    "READ_ONLY_TOOL_NAMES",
    "RoomPresence",
    "SessionConfig",
    "TEMPLATES",
    "TOOL_MODELS",
    "build_participants_message",
    "format_history_for_llm",
    "format_message_for_llm",
    "mcp_tool_names",
    "render_system_prompt",
    "run_with_graceful_shutdown",
]

if TYPE_CHECKING:
    from band.core.types import PlatformMessage
    from band.runtime.agentconfig import AgentConfig
    from band.runtime.callbacks import MessageHandler
    from band.runtime.composed import ExecutionContext
    from band.runtime.conversation import ConversationContext
    from band.runtime.execution_api import Execution, ExecutionHandler
    from band.runtime.formatters import (
        build_participants_message,
        format_history_for_llm,
        format_message_for_llm,
    )
    from band.runtime.oneshot import OneShotEnvelopeError, OneShotInvoker, OneShotStatus
    from band.runtime.presence import RoomPresence
    from band.runtime.prompts import BASE_INSTRUCTIONS, TEMPLATES, render_system_prompt
    from band.runtime.retry_tracker import MessageRetryTracker
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
        READ_ONLY_TOOL_NAMES,
        TOOL_MODELS,
        AgentTools,
        HumanTools,
        mcp_tool_names,
    )


__getattr__ = lazy_exports(globals(), _EXPORTS)
