"""Band's platform tools: ``AgentTools`` for one room, and the tool registry band-mcp shares.

``inputs`` holds the argument models, ``ops`` one coroutine per tool, ``registry`` the specs,
schemas and the runner (its docstring is the API band-mcp builds on).
"""

from band.core.turn import TurnEffect

from .agent_tools import AgentTools
from .errors import (
    BandToolError,
    InvalidToolArgumentsError,
    MessagePostError,
    MessagePostKind,
    RoomExecutionStoppedError,
)
from .inputs import *  # noqa: F403 -- the input models are part of the public surface
from .inputs import __all__ as _inputs_all
from .ops import ToolContext
from .registry import (
    DEFAULT_CAPABILITIES,
    TOOLS,
    ToolCallOutcome,
    ToolSpec,
    run_tool,
    select_tools,
    tool_schema,
    validate_arguments,
)
from .schema_types import ToolParam

__all__ = [
    "DEFAULT_CAPABILITIES",
    "TOOLS",
    "AgentTools",
    "BandToolError",
    "InvalidToolArgumentsError",
    "MessagePostError",
    "MessagePostKind",
    "RoomExecutionStoppedError",
    "ToolCallOutcome",
    "ToolContext",
    "ToolParam",
    "ToolSpec",
    "TurnEffect",
    "run_tool",
    "select_tools",
    "tool_schema",
    "validate_arguments",
    *_inputs_all,
]
