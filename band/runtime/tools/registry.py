"""The platform tools as data: one ``ToolSpec`` per tool, their schemas, and a runner.

The whole API (band-mcp and ``AgentTools`` both build on it):

- ``TOOLS``: ``{name: ToolSpec}`` in the order models see them. A ``ToolSpec`` has ``name``,
  ``input_model`` (pydantic, see ``inputs``), ``run`` (``await run(ctx, args)``, see ``ops``),
  ``group`` (``"chat"`` or a ``Capability`` value), ``effect`` (its ``TurnEffect``),
  ``description`` and ``json_schema()``.
- ``select_tools(capabilities, *, hub_room=False)``: the specs a model gets. ``None`` means the
  contact tools join the chat tools; an explicit collection replaces that; the hub room always
  has the contact tools.
- ``tool_schema(name, description, schema, format)``: one tool in ``"openai"`` or
  ``"anthropic"`` format (``ValueError`` for any other format).
- ``validate_arguments(spec, arguments)``: the input model, or ``InvalidToolArgumentsError``
  whose message is ``Invalid arguments for <tool>: <field>: <reason>, ...``.
- ``run_tool(ctx, name, arguments)``: validate and run one call against a ``ToolContext``; a
  ``ToolCallOutcome`` with the seed's error strings. It records no turn effect (the caller does,
  on ``ok``); ``BandToolError`` and ``RoomExecutionStoppedError`` propagate.
- ``CHAT_TOOL_NAMES``, ``CONTACT_TOOL_NAMES``, ``MEMORY_TOOL_NAMES``, ``TASK_TOOL_NAMES``,
  ``FILE_TOOL_NAMES``, ``ALL_TOOL_NAMES``: frozensets of names per group.

``ops.ToolContext(rest, room_id, agent_id, participants)`` is what a call is bound to; set
``participants`` to None (or call ``ops.load_participants``) to refresh the mention cache.
"""

from __future__ import annotations

import copy
import functools
import inspect
from collections.abc import Awaitable, Callable, Collection, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ValidationError

from band.core.turn import TOOL_EFFECTS, TurnEffect
from band.runtime.capabilities import Capability

from . import files as f
from . import inputs as i
from . import ops
from .errors import BandToolError, InvalidToolArgumentsError, RoomExecutionStoppedError
from .files import file_content_placeholder, redact_tool_call_args  # noqa: F401 -- official path

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
    "ToolCallOutcome",
    "ToolGroup",
    "ToolSpec",
    "clean_schema",
    "format_validation_error",
    "mcp_tool_names",
    "run_tool",
    "select_tools",
    "tool_schema",
    "validate_arguments",
]

ToolGroup = Literal["chat", "contacts", "memory", "tasks", "files"]
#: What ``capabilities=None`` means for the schema accessors.
DEFAULT_CAPABILITIES: frozenset[Capability] = frozenset({Capability.CONTACTS})
FORMATS = ("openai", "anthropic")


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """One platform tool: its name, arguments, implementation, group and turn effect."""

    name: str
    input_model: type[BaseModel]
    run: Callable[[ops.ToolContext, Any], Awaitable[Any]]
    group: ToolGroup

    @property
    def effect(self) -> TurnEffect:
        """What a successful call does to the turn (band_sdk_core's table)."""
        return TOOL_EFFECTS.get(self.name, TurnEffect.OBSERVE)

    @property
    def description(self) -> str:
        """The model-facing description (the input model's docstring)."""
        return inspect.cleandoc(self.input_model.__doc__ or "")

    @property
    def room_bound(self) -> bool:
        """Whether the tool acts on the bound room (contact and memory tools do not)."""
        return self.group not in ("contacts", "memory") and self.name != "band_create_chatroom"

    def json_schema(self) -> dict[str, Any]:
        """The JSON schema of the arguments (a fresh copy: callers may change it)."""
        return copy.deepcopy(model_schema(self.input_model))


@dataclass(slots=True)
class ToolCallOutcome:
    """The result of one tool call: ``value`` for the model, ``ok`` as the success flag."""

    value: Any
    ok: bool
    error_message: str | None = None


def _spec(name: str, model: type[BaseModel], run: Any, group: ToolGroup) -> ToolSpec:
    return ToolSpec(name, model, run, group)


TOOLS: dict[str, ToolSpec] = {
    s.name: s
    for s in (
        _spec("band_send_message", i.SendMessageInput, ops.send_message, "chat"),
        _spec("band_send_event", i.SendEventInput, ops.send_event, "chat"),
        _spec("band_no_reply", i.NoReplyInput, ops.no_reply, "chat"),
        _spec("band_add_participant", i.AddParticipantInput, ops.add_participant, "chat"),
        _spec("band_remove_participant", i.RemoveParticipantInput, ops.remove_participant, "chat"),
        _spec("band_lookup_peers", i.LookupPeersInput, ops.lookup_peers, "chat"),
        _spec("band_get_participants", i.GetParticipantsInput, ops.get_participants, "chat"),
        _spec("band_create_chatroom", i.CreateChatroomInput, ops.create_chatroom, "chat"),
        _spec("band_list_contacts", i.ListContactsInput, ops.list_contacts, "contacts"),
        _spec("band_add_contact", i.AddContactInput, ops.add_contact, "contacts"),
        _spec("band_remove_contact", i.RemoveContactInput, ops.remove_contact, "contacts"),
        _spec(
            "band_list_contact_requests",
            i.ListContactRequestsInput,
            ops.list_contact_requests,
            "contacts",
        ),
        _spec(
            "band_respond_contact_request",
            i.RespondContactRequestInput,
            ops.respond_contact_request,
            "contacts",
        ),
        _spec("band_list_memories", i.ListMemoriesInput, ops.list_memories, "memory"),
        _spec("band_store_memory", i.StoreMemoryInput, ops.store_memory, "memory"),
        _spec("band_get_memory", i.GetMemoryInput, ops.get_memory, "memory"),
        _spec("band_supersede_memory", i.SupersedeMemoryInput, ops.supersede_memory, "memory"),
        _spec("band_archive_memory", i.ArchiveMemoryInput, ops.archive_memory, "memory"),
        _spec("band_list_room_files", i.ListRoomFilesInput, f.list_room_files, "files"),
        _spec("band_read_room_file", i.ReadRoomFileInput, f.read_room_file, "files"),
        _spec("band_send_room_file", i.SendRoomFileInput, f.send_room_file, "files"),
        _spec("band_list_tasks", i.ListTasksInput, ops.list_tasks, "tasks"),
        _spec("band_create_task", i.CreateTaskInput, ops.create_task, "tasks"),
        _spec("band_get_task", i.GetTaskInput, ops.get_task, "tasks"),
        _spec("band_update_task", i.UpdateTaskInput, ops.update_task, "tasks"),
        _spec("band_get_task_history", i.GetTaskHistoryInput, ops.get_task_history, "tasks"),
        _spec("band_get_board", i.GetBoardInput, ops.get_board, "tasks"),
        _spec("band_set_board", i.SetBoardInput, ops.set_board, "tasks"),
    )
}


def _names(group: ToolGroup) -> frozenset[str]:
    return frozenset(s.name for s in TOOLS.values() if s.group == group)


CHAT_TOOL_NAMES = _names("chat")
CONTACT_TOOL_NAMES = _names("contacts")
MEMORY_TOOL_NAMES = _names("memory")
TASK_TOOL_NAMES = _names("tasks")
FILE_TOOL_NAMES = _names("files")
ALL_TOOL_NAMES = frozenset(TOOLS)
#: The tools whose call acts on the room the tools are bound to (band-mcp adds ``chat_id``).
AGENT_ROOM_BOUND_TOOL_NAMES = (CHAT_TOOL_NAMES - {"band_create_chatroom", "band_no_reply"}) | (
    TASK_TOOL_NAMES | FILE_TOOL_NAMES
)
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
) -> list[ToolSpec]:
    """The chat tools plus the groups ``capabilities`` names (contacts when ``None``)."""
    caps = set(DEFAULT_CAPABILITIES if capabilities is None else capabilities)
    for cap in caps:
        if not isinstance(cap, Capability):
            raise TypeError(f"capabilities must hold Capability members, not {cap!r}")
    if hub_room:
        caps.add(Capability.CONTACTS)
    groups = {cap.value for cap in caps}
    return [s for s in TOOLS.values() if s.group == "chat" or s.group in groups]


@functools.cache
def model_schema(model: type[BaseModel]) -> dict[str, Any]:
    """A model's cleaned JSON schema, built once (pydantic's generation is slow); do not mutate."""
    return clean_schema(model.model_json_schema())


def clean_schema(schema: Mapping[str, Any]) -> dict[str, Any]:
    """Drop pydantic's generated titles and the top-level description (the tool carries it)."""
    out: dict[str, Any] = _strip_titles(schema)  # a mapping in, a dict out
    out.pop("description", None)
    out.setdefault("properties", {})
    out["type"] = "object"
    return out


def _strip_titles(node: Any, in_properties: bool = False) -> Any:
    if isinstance(node, dict):
        return {
            # a property may itself be named "title": only schema keywords are dropped
            key: _strip_titles(value, key in ("properties", "$defs") and not in_properties)
            for key, value in node.items()
            if in_properties or key != "title"
        }
    if isinstance(node, list):
        return [_strip_titles(v) for v in node]
    return node


def tool_schema(name: str, description: str, schema: dict[str, Any], format: str) -> dict[str, Any]:
    """One tool's definition in a provider's format."""
    if format == "openai":
        function = {"name": name, "description": description, "parameters": schema}
        return {"type": "function", "function": function}
    if format == "anthropic":
        return {"name": name, "description": description, "input_schema": schema}
    raise ValueError(f"Invalid format: {format}. Must be 'openai' or 'anthropic'")


def format_validation_error(tool_name: str, exc: ValidationError) -> str:
    """``Invalid arguments for <tool>: <field>: <reason>, <field>: <reason>``."""
    parts = [f"{'.'.join(str(p) for p in err['loc'])}: {err['msg']}" for err in exc.errors()]
    return f"Invalid arguments for {tool_name}: {', '.join(parts)}"


def validate_arguments(spec: ToolSpec, arguments: Mapping[str, Any] | None) -> BaseModel:
    """Validate ``arguments`` against the tool's input model."""
    try:
        return spec.input_model.model_validate({} if arguments is None else arguments)
    except ValidationError as exc:
        raise InvalidToolArgumentsError(format_validation_error(spec.name, exc)) from None


def _failed(message: str) -> ToolCallOutcome:
    return ToolCallOutcome(message, False, message)


async def run_tool(
    ctx: ops.ToolContext, name: str, arguments: Mapping[str, Any] | None
) -> ToolCallOutcome:
    """Validate and run one tool call; failures come back as error strings with ``ok=False``."""
    spec = TOOLS.get(name)
    if spec is None:
        return _failed(f"Unknown tool: {name}")
    try:
        args = validate_arguments(spec, arguments)
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
