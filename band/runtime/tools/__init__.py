"""Band's platform tools: ``AgentTools`` for one room, and the tool registry band-mcp shares.

``spec`` defines ``ToolSpec``, the one descriptor of a tool (input model, handler, typed result,
turn effect, group, surface) and the schemas derived from it; ``inputs`` holds the argument
models, ``ops`` one coroutine per tool, ``registry`` the agent tools' specs and the runner (its
docstring is the API band-mcp and the ACP MCP server build on). An adapter running its
own model loop does::

    schemas = tools.get_openai_tool_schemas(capabilities=frozenset({Capability.TASKS}))
    ...  # the model answers with a tool call
    outcome = await tools.execute_tool_call_structured(call.name, call.arguments)
    # outcome.value goes back to the model; outcome.ok is False with an error string on failure
    # tools.turn.complete says whether the turn replied, declined or did work
"""

from band.core.exceptions import (
    BandToolError,
    InvalidToolArgumentsError,
    MessagePostError,
    MessagePostKind,
    RoomExecutionStoppedError,
)
from band.core.turn import TurnEffect
from band.core.types import ToolParam

from .agent_tools import AgentTools
from .constants import *  # noqa: F403 -- band-sdk's tool constants under its names
from .constants import __all__ as _constants_all
from .definitions import *  # noqa: F403 -- band-sdk's ToolDefinition table, from our specs
from .definitions import __all__ as _definitions_all
from .docstrings import *  # noqa: F403 -- docstrings and args schemas from the input models
from .docstrings import __all__ as _docstrings_all
from .files import (
    DEFAULT_FILE_CAPTION,
    FILE_UNAVAILABLE_MESSAGE,
    FILENAME_HEADER_SAFE_PATTERN,
    MAX_INLINE_IMAGE_BYTES,
    MAX_INLINE_TEXT_BYTES,
    PREVIEWABLE_IMAGE_CONTENT_TYPES,
    AttachmentCache,
    file_content_placeholder,
    redact_tool_call_args,
)
from .human import *  # noqa: F403 -- HumanTools and the human-scope input models
from .human import __all__ as _human_all
from .images import *  # noqa: F403 -- band_read_room_file's image blocks
from .images import __all__ as _images_all
from .inputs import *  # noqa: F403 -- the input models are part of the public surface
from .inputs import __all__ as _inputs_all
from .lookup import *  # noqa: F403 -- tool look-ups by name, chat paging
from .lookup import __all__ as _lookup_all
from .mentions import *  # noqa: F403 -- participant matching and the handles hint
from .mentions import __all__ as _mentions_all
from .naming import *  # noqa: F403 -- MCP spellings of the tool names
from .naming import __all__ as _naming_all
from .ops import ToolContext
from .registry import *  # noqa: F403 -- the registry's API is part of the public surface
from .registry import __all__ as _registry_all
from .results import *  # noqa: F403 -- tool results as plain data or text
from .results import __all__ as _results_all
from .vocabulary import *  # noqa: F403 -- BandTool, ToolCategory
from .vocabulary import __all__ as _vocabulary_all

__all__ = [
    "DEFAULT_FILE_CAPTION",
    "FILENAME_HEADER_SAFE_PATTERN",
    "FILE_UNAVAILABLE_MESSAGE",
    "MAX_INLINE_IMAGE_BYTES",
    "MAX_INLINE_TEXT_BYTES",
    "PREVIEWABLE_IMAGE_CONTENT_TYPES",
    "AgentTools",
    "AttachmentCache",
    "BandToolError",
    "InvalidToolArgumentsError",
    "MessagePostError",
    "MessagePostKind",
    "RoomExecutionStoppedError",
    "ToolContext",
    "ToolParam",
    "TurnEffect",
    "file_content_placeholder",
    "redact_tool_call_args",
    *_registry_all,
    *_definitions_all,
    *_docstrings_all,
    *_inputs_all,
    *_constants_all,
    *_human_all,
    *_images_all,
    *_lookup_all,
    *_mentions_all,
    *_naming_all,
    *_results_all,
    *_vocabulary_all,
]
