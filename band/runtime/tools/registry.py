"""The agent's platform tools as data: one ``ToolSpec`` (see ``spec``) per tool, and a runner.

The whole API (band-mcp, the ACP MCP server and ``AgentTools`` all build on it):

- ``TOOLS``: ``{name: ToolSpec}`` in the order models see them; each tool is also a module
  constant (``SEND_MESSAGE``, ...) so ``AgentTools`` keeps its input and result types. A spec's
  ``run`` is the ``ops`` coroutine, ``group`` its ``Capability`` (None: the chat tools),
  ``effect`` band_sdk_core's ``TurnEffect`` for it, ``room_bound`` whether it acts on the room.
- ``select_tools(capabilities, *, hub_room=False)``: the specs a model gets. ``None`` means the
  contact tools join the chat tools; an explicit collection replaces that; the hub room always
  has the contact tools.
- ``spec.schema(format)`` / ``tool_schema(name, description, schema, format)``: one tool in
  ``"openai"`` or ``"anthropic"`` format (``ValueError`` for any other format).
- ``spec.validate(arguments)`` (``validate_arguments``): the input model, or
  ``InvalidToolArgumentsError`` whose message is ``Invalid arguments for <tool>: <field>:
  <reason>, ...``.
- ``run_tool(ctx, name, arguments)``: validate and run one call against a ``ToolContext``; a
  ``ToolCallOutcome`` with the seed's error strings. It records no turn effect (the caller does,
  on ``ok``); ``BandToolError`` and ``RoomExecutionStoppedError`` propagate.
- ``CHAT_TOOL_NAMES``, ``CONTACT_TOOL_NAMES``, ``MEMORY_TOOL_NAMES``, ``TASK_TOOL_NAMES``,
  ``FILE_TOOL_NAMES``, ``ALL_TOOL_NAMES``: frozensets of names per group.

``ops.ToolContext(rest, room_id, agent_id, participants)`` is what a call is bound to; set
``participants`` to None (or call ``ops.load_participants``) to refresh the mention cache.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Collection, Mapping
from functools import partial
from typing import Any, TypeVar

import msgspec
from pydantic import BaseModel

from band.core import wire as w
from band.core.exceptions import BandToolError, InvalidToolArgumentsError, RoomExecutionStoppedError
from band.core.turn import TOOL_EFFECTS, TurnEffect
from band.core.types import Capability, ToolCallOutcome

from . import files as f
from . import inputs as i
from . import ops
from .files import file_content_placeholder, redact_tool_call_args  # noqa: F401 -- official path
from .spec import (
    Surface,
    ToolSpec,
    clean_schema,
    format_validation_error,
    tool_schema,
)

__all__ = [
    "AGENT_ROOM_BOUND_TOOL_NAMES",
    "ALL_TOOL_NAMES",
    "BAND_MCP_SERVER_NAME",
    "BASE_TOOL_NAMES",
    "CHAT_TOOL_NAMES",
    "CONTACT_TOOL_NAMES",
    "DEFAULT_CAPABILITIES",
    "EVENT_TOOL_NAMES",
    "FILE_TOOL_NAMES",
    "MCP_TOOL_PREFIX",
    "MEMORY_TOOL_NAMES",
    "READ_ONLY_TOOL_NAMES",
    "TASK_TOOL_NAMES",
    "TOOLS",
    "TOOL_MODELS",
    "Surface",
    "ToolCallOutcome",
    "ToolSpec",
    "clean_schema",
    "format_validation_error",
    "mcp_tool_names",
    "run_tool",
    "select_tools",
    "tool_schema",
    "validate_arguments",
]

#: What ``capabilities=None`` means for the schema accessors.
DEFAULT_CAPABILITIES: frozenset[Capability] = frozenset({Capability.CONTACTS})

I = TypeVar("I", bound=BaseModel)  # noqa: E741 -- the input model
R = TypeVar("R")
M = TypeVar("M", bound=w.WireModel)


def _agent(
    name: str,
    model: type[I],
    run: Callable[[ops.ToolContext, I], Awaitable[w.JsonValue]],
    result: Callable[[w.JsonValue], R],
    group: Capability | None = None,
    *,
    room_bound: bool | None = None,
) -> ToolSpec[I, R]:
    """An agent tool; its effect is band_sdk_core's, and it acts on the bound room unless it
    is a contact or memory tool (or says otherwise)."""
    if room_bound is None:
        room_bound = group not in (Capability.CONTACTS, Capability.MEMORY)
    effect = TOOL_EFFECTS.get(name, TurnEffect.OBSERVE)
    return ToolSpec(name, model, run, result, group, effect, Surface.AGENT, room_bound)


def _wire(model: type[M]) -> Callable[[w.JsonValue], M]:
    """The decoder of a tool whose direct method returns the wire model ``model``."""
    # ``w.decode_as(model, value)`` as a partial of msgspec's own: no Python call per result
    return partial(msgspec.convert, type=model, strict=False)


def _object(value: w.JsonValue) -> w.JsonObject:
    """The decoder of a tool whose direct method returns its JSON object as it is."""
    if not isinstance(value, dict):
        raise TypeError(f"expected a JSON object, got {type(value).__name__}")
    return value


def _participants(rows: w.JsonValue) -> list[w.ChatParticipant]:
    return [w.decode_as(w.ChatParticipant, row) for row in rows]


def _memories(value: w.JsonValue) -> w.ListAgentMemoriesResponse:
    listed = w.decode_as(w.ListAgentMemoriesResponse, value)
    if listed.meta is None and listed.metadata is not None:
        # the platform sends the paging under both keys; the tool's dict keeps one
        listed.meta = w.decode_as(w.ListAgentMemoriesResponseMeta, listed.metadata.model_dump())
    return listed


_C, _M, _F, _T = Capability.CONTACTS, Capability.MEMORY, Capability.FILES, Capability.TASKS

# --- the agent tools, in the order models see them ---------------------------------------------

SEND_MESSAGE = _agent(
    "band_send_message", i.SendMessageInput, ops.send_message, _wire(w.MessageSentResponse)
)
SEND_EVENT = _agent(
    "band_send_event", i.SendEventInput, ops.send_event, _wire(w.EventCreatedResponse)
)
NO_REPLY = _agent("band_no_reply", i.NoReplyInput, ops.no_reply, _object, room_bound=False)
ADD_PARTICIPANT = _agent(
    "band_add_participant", i.AddParticipantInput, ops.add_participant, _object
)
REMOVE_PARTICIPANT = _agent(
    "band_remove_participant", i.RemoveParticipantInput, ops.remove_participant, _object
)
LOOKUP_PEERS = _agent(
    "band_lookup_peers", i.LookupPeersInput, ops.lookup_peers, _wire(w.ListAgentPeersResponse)
)
GET_PARTICIPANTS = _agent(
    "band_get_participants", i.GetParticipantsInput, ops.get_participants, _participants
)
CREATE_CHATROOM = _agent(
    "band_create_chatroom", i.CreateChatroomInput, ops.create_chatroom, str, room_bound=False
)
LIST_CONTACTS = _agent(
    "band_list_contacts",
    i.ListContactsInput,
    ops.list_contacts,
    _wire(w.ListAgentContactsResponse),
    _C,
)
ADD_CONTACT = _agent(
    "band_add_contact",
    i.AddContactInput,
    ops.add_contact,
    _wire(w.AddAgentContactResponseData),
    _C,
)
REMOVE_CONTACT = _agent(
    "band_remove_contact",
    i.RemoveContactInput,
    ops.remove_contact,
    _wire(w.RemoveAgentContactResponseData),
    _C,
)
LIST_CONTACT_REQUESTS = _agent(
    "band_list_contact_requests",
    i.ListContactRequestsInput,
    ops.list_contact_requests,
    _wire(w.ListAgentContactRequestsResponse),
    _C,
)
RESPOND_CONTACT_REQUEST = _agent(
    "band_respond_contact_request",
    i.RespondContactRequestInput,
    ops.respond_contact_request,
    _wire(w.RespondToAgentContactRequestResponseData),
    _C,
)
LIST_MEMORIES = _agent("band_list_memories", i.ListMemoriesInput, ops.list_memories, _memories, _M)
STORE_MEMORY = _agent(
    "band_store_memory", i.StoreMemoryInput, ops.store_memory, _wire(w.AgentMemory), _M
)
GET_MEMORY = _agent("band_get_memory", i.GetMemoryInput, ops.get_memory, _wire(w.AgentMemory), _M)
SUPERSEDE_MEMORY = _agent(
    "band_supersede_memory",
    i.SupersedeMemoryInput,
    ops.supersede_memory,
    _wire(w.AgentMemory),
    _M,
)
ARCHIVE_MEMORY = _agent(
    "band_archive_memory", i.ArchiveMemoryInput, ops.archive_memory, _wire(w.AgentMemory), _M
)
LIST_ROOM_FILES = _agent(
    "band_list_room_files", i.ListRoomFilesInput, f.list_room_files, _object, _F
)
READ_ROOM_FILE = _agent("band_read_room_file", i.ReadRoomFileInput, f.read_room_file, _object, _F)
SEND_ROOM_FILE = _agent("band_send_room_file", i.SendRoomFileInput, f.send_room_file, _object, _F)
LIST_TASKS = _agent(
    "band_list_tasks", i.ListTasksInput, ops.list_tasks, _wire(w.ListChatTasksResponse), _T
)
CREATE_TASK = _agent("band_create_task", i.CreateTaskInput, ops.create_task, _wire(w.Task), _T)
GET_TASK = _agent("band_get_task", i.GetTaskInput, ops.get_task, _wire(w.Task), _T)
UPDATE_TASK = _agent("band_update_task", i.UpdateTaskInput, ops.update_task, _wire(w.Task), _T)
GET_TASK_HISTORY = _agent(
    "band_get_task_history",
    i.GetTaskHistoryInput,
    ops.get_task_history,
    _wire(w.GetChatTaskHistoryResponse),
    _T,
)
GET_BOARD = _agent("band_get_board", i.GetBoardInput, ops.get_board, _wire(w.Board), _T)
SET_BOARD = _agent("band_set_board", i.SetBoardInput, ops.set_board, _wire(w.Board), _T)

#: Any: each spec has its own input model and result type (``ToolSpec`` is invariant in both)
TOOLS: dict[str, ToolSpec[Any, Any]] = {
    s.name: s
    for s in (
        SEND_MESSAGE,
        SEND_EVENT,
        NO_REPLY,
        ADD_PARTICIPANT,
        REMOVE_PARTICIPANT,
        LOOKUP_PEERS,
        GET_PARTICIPANTS,
        CREATE_CHATROOM,
        LIST_CONTACTS,
        ADD_CONTACT,
        REMOVE_CONTACT,
        LIST_CONTACT_REQUESTS,
        RESPOND_CONTACT_REQUEST,
        LIST_MEMORIES,
        STORE_MEMORY,
        GET_MEMORY,
        SUPERSEDE_MEMORY,
        ARCHIVE_MEMORY,
        LIST_ROOM_FILES,
        READ_ROOM_FILE,
        SEND_ROOM_FILE,
        LIST_TASKS,
        CREATE_TASK,
        GET_TASK,
        UPDATE_TASK,
        GET_TASK_HISTORY,
        GET_BOARD,
        SET_BOARD,
    )
}


def _names(group: Capability | None) -> frozenset[str]:
    return frozenset(s.name for s in TOOLS.values() if s.group is group)


CHAT_TOOL_NAMES = _names(None)
CONTACT_TOOL_NAMES = _names(Capability.CONTACTS)
MEMORY_TOOL_NAMES = _names(Capability.MEMORY)
TASK_TOOL_NAMES = _names(Capability.TASKS)
FILE_TOOL_NAMES = _names(Capability.FILES)
ALL_TOOL_NAMES = frozenset(TOOLS)
#: The tools whose call acts on the room the tools are bound to (band-mcp adds ``chat_id``).
AGENT_ROOM_BOUND_TOOL_NAMES = frozenset(s.name for s in TOOLS.values() if s.room_bound)
#: The tools every room offers without capabilities: chat plus contacts (band-sdk's "base").
BASE_TOOL_NAMES = CHAT_TOOL_NAMES | CONTACT_TOOL_NAMES
EVENT_TOOL_NAMES = frozenset({"band_send_event"})
#: The tools that only read (safe to call again, never a turn's reply).
READ_ONLY_TOOL_NAMES = frozenset(
    n for n in TOOLS if n.startswith(("band_get_", "band_list_", "band_lookup_", "band_read_"))
)
#: Each tool's pydantic input model.
TOOL_MODELS: dict[str, type[BaseModel]] = {n: s.input_model for n, s in TOOLS.items()}
#: The MCP server name the tools are served under, and the prefix clients see them with.
BAND_MCP_SERVER_NAME = "band"
MCP_TOOL_PREFIX = f"mcp__{BAND_MCP_SERVER_NAME}__"


def mcp_tool_names(names: Collection[str]) -> list[str]:
    """``names`` as an MCP client spells them (``mcp__band__<name>``), sorted."""
    return sorted(MCP_TOOL_PREFIX + name for name in names)


def select_tools(
    capabilities: Collection[Capability] | None = None, *, hub_room: bool = False
) -> list[ToolSpec[Any, Any]]:
    """The chat tools plus the groups ``capabilities`` names (contacts when ``None``)."""
    caps = set(DEFAULT_CAPABILITIES if capabilities is None else capabilities)
    for cap in caps:
        if not isinstance(cap, Capability):
            raise TypeError(f"capabilities must hold Capability members, not {cap!r}")
    if hub_room:
        caps.add(Capability.CONTACTS)
    return [s for s in TOOLS.values() if s.group is None or s.group in caps]


def validate_arguments(spec: ToolSpec[I, Any], arguments: Mapping[str, w.JsonValue] | None) -> I:
    """Validate ``arguments`` against the tool's input model."""
    return spec.validate(arguments)


def _failed(message: str) -> ToolCallOutcome:
    return ToolCallOutcome(message, False, message)


async def run_tool(
    ctx: ops.ToolContext, name: str, arguments: Mapping[str, w.JsonValue] | None
) -> ToolCallOutcome:
    """Validate and run one tool call; failures come back as error strings with ``ok=False``."""
    spec = TOOLS.get(name)
    if spec is None:
        return _failed(f"Unknown tool: {name}")
    try:
        args = spec.validate(arguments)
    except InvalidToolArgumentsError as exc:
        return _failed(str(exc))
    except Exception as exc:  # a validator that crashed rather than refused
        return _failed(f"Error validating {name} arguments: {exc}")
    try:
        value = await spec.run(ctx, args)
    except (BandToolError, RoomExecutionStoppedError):
        raise
    except Exception as exc:
        return _failed(f"Error executing {name}: {exc}")
    return ToolCallOutcome(value, True)
