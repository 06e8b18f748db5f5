"""Band: an open-source Python SDK for the Band agent platform."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

# Public names resolve on first use: ``import band`` stays cheap for the core, the dev
# server and the CLI, and band.client can read __version__ without an import cycle.
_EXPORTS = {
    "Agent": "band.agent",
    "AgentConfig": "band.runtime.agentconfig",
    "ConflictPolicy": "band.runtime.agentconfig",
    "SessionConfig": "band.runtime.sessionconfig",
    "AgentRuntime": "band.runtime.runtime",
    "AgentTools": "band.runtime.tools",
    "Capability": "band.runtime.capabilities",
    "PlatformMessage": "band.core.types",
    "Emit": "band.core.types",
    "BandError": "band.core.exceptions",
    "BandConfigError": "band.core.exceptions",
    "BandConnectionError": "band.core.exceptions",
    "AgentAlreadyRunningError": "band.core.exceptions",
    "BandToolError": "band.runtime.tools",
    "RoomExecutionStoppedError": "band.runtime.tools",
    "create_room_workspace_resolver": "band.workspaces",
}

__all__ = [
    "Agent",
    "AgentAlreadyRunningError",
    "AgentConfig",
    "AgentRuntime",
    "AgentTools",
    "BandConfigError",
    "BandConnectionError",
    "BandError",
    "BandToolError",
    "Capability",
    "ConflictPolicy",
    "Emit",
    "PlatformMessage",
    "RoomExecutionStoppedError",
    "SessionConfig",
    "__version__",
    "create_room_workspace_resolver",
]

if TYPE_CHECKING:
    from band.agent import Agent
    from band.core.exceptions import (
        AgentAlreadyRunningError,
        BandConfigError,
        BandConnectionError,
        BandError,
    )
    from band.core.types import Emit, PlatformMessage
    from band.runtime.agentconfig import AgentConfig, ConflictPolicy
    from band.runtime.capabilities import Capability
    from band.runtime.runtime import AgentRuntime
    from band.runtime.sessionconfig import SessionConfig
    from band.runtime.tools import AgentTools, BandToolError, RoomExecutionStoppedError
    from band.workspaces import create_room_workspace_resolver


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'band' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
