"""Band's tools as ``MCPToolRegistration``s, read off the tool table (``ToolDefinition``s, our
``ToolSpec`` registry) and run on a room's ``AgentTools``."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from typing import Any

from pydantic import AliasChoices, BaseModel, Field, create_model

from band.core.exceptions import BandToolError
from band.core.protocols import AgentToolsProtocol
from band.core.types import Capability, ToolCallOutcome
from band.runtime.tools.constants import CHAT_ID_FIELD_NAME, CHAT_ID_MAX_LENGTH
from band.runtime.tools.custom import CustomToolDef, custom_tool_spec, execute_custom_tool
from band.runtime.tools.definitions import ToolDefinition, iter_tool_definitions
from band.runtime.tools.spec import ToolSpec

from .local_server import MCPToolExecutor, MCPToolRegistration

__all__ = [
    "RoomToolResolver",
    "build_band_mcp_tool_registrations",
    "build_resolved_band_mcp_tool_registrations",
]

#: room id -> the tools of the turn running there (None: no turn runs, the call is refused)
RoomToolResolver = Callable[[str], AgentToolsProtocol | None]

#: what a registration is built from: a definition of the tool table, or one of our specs
ToolSource = ToolDefinition | ToolSpec[Any, Any]


def _with_chat_id(model: type[BaseModel]) -> type[BaseModel]:
    """``model`` with a required ``chat_id`` (``room_id`` accepted too): the room a call on a
    multi-room endpoint acts in."""
    if CHAT_ID_FIELD_NAME in model.model_fields:
        return model
    field = Field(
        ...,
        min_length=1,
        max_length=CHAT_ID_MAX_LENGTH,
        validation_alias=AliasChoices(CHAT_ID_FIELD_NAME, "room_id"),
        description="ID of the chat room this call acts in.",
    )
    extended: type[BaseModel] = create_model(  # type: ignore[call-overload]
        f"{model.__name__}WithChatId", __base__=model, **{CHAT_ID_FIELD_NAME: (str, field)}
    )
    extended.__doc__ = model.__doc__
    return extended


def _room_of(arguments: dict[str, Any]) -> str:
    room = arguments.pop(CHAT_ID_FIELD_NAME, None) or arguments.pop("room_id", None)
    if not isinstance(room, str) or not room:
        raise ValueError(f"{CHAT_ID_FIELD_NAME} is required: the chat room this call acts in")
    return room


def _tools_of(get_tools: RoomToolResolver, room_id: str) -> AgentToolsProtocol:
    tools = get_tools(room_id)
    if tools is None:
        raise ValueError(f"No tools available for room {room_id}")
    return tools


def _band_executor(get_tools: RoomToolResolver, name: str) -> MCPToolExecutor:
    async def execute(arguments: dict[str, Any]) -> ToolCallOutcome:
        args = dict(arguments)
        tools = _tools_of(get_tools, _room_of(args))
        try:
            outcome: ToolCallOutcome = await tools.execute_tool_call_structured(name, args)
        except BandToolError as exc:  # a typed refusal (a missing file, say) is the caller's
            return ToolCallOutcome(None, False, str(exc))
        return outcome

    return execute


def _custom_executor(get_tools: RoomToolResolver, tool: CustomToolDef) -> MCPToolExecutor:
    async def execute(arguments: dict[str, Any]) -> Any:
        args = dict(arguments)
        tools = _tools_of(get_tools, _room_of(args))
        # the handler's declared effect counts for the room's turn
        return await execute_custom_tool(tool, args, turn=tools.turn)

    return execute


def build_resolved_band_mcp_tool_registrations(
    *,
    get_tools: RoomToolResolver,
    capabilities: frozenset[Capability] | None = None,
    additional_tools: list[CustomToolDef] | None = None,
    tool_definitions: Sequence[ToolSource] | None = None,
    room_from_connection: bool = False,
) -> list[MCPToolRegistration]:
    """Registrations of the agent tools (``tool_definitions``, else the table's for
    ``capabilities``) and the custom ``additional_tools``, each call run on the tools
    ``get_tools`` gives for its room: the endpoint's room with ``room_from_connection``, else
    the ``chat_id`` each tool then requires. Tool names must be unique."""
    sources = list(
        tool_definitions
        if tool_definitions is not None
        else iter_tool_definitions(capabilities=capabilities)
    )
    # each tool's name, description, input model and executor, the agent tools first
    served: list[tuple[str, str, type[BaseModel], MCPToolExecutor]] = []
    for source in sources:
        doc = inspect.cleandoc(source.input_model.__doc__ or "")
        description = source.description if isinstance(source, ToolSpec) else doc or source.name
        served.append(
            (source.name, description, source.input_model, _band_executor(get_tools, source.name))
        )
    for tool in additional_tools or []:
        spec = custom_tool_spec(tool)
        served.append(
            (spec.name, spec.description, spec.input_model, _custom_executor(get_tools, tool))
        )
    registrations = [
        MCPToolRegistration(
            name,
            description,
            model if room_from_connection else _with_chat_id(model),
            execute,
            room_from_connection=room_from_connection,
        )
        for name, description, model, execute in served
    ]
    names = [r.name for r in registrations]
    if len(set(names)) != len(names):
        twice = sorted({n for n in names if names.count(n) > 1})
        raise ValueError(f"Duplicate MCP tool names: {', '.join(twice)}")
    return registrations


def build_band_mcp_tool_registrations(
    agent_tools: AgentToolsProtocol,
    *,
    capabilities: frozenset[Capability] | None = None,
    additional_tools: list[CustomToolDef] | None = None,
    tool_definitions: Sequence[ToolSource] | None = None,
) -> list[MCPToolRegistration]:
    """Registrations whose calls all run on ``agent_tools`` (one server per ``AgentTools``;
    the ``chat_id`` each tool requires is not used to pick it)."""
    return build_resolved_band_mcp_tool_registrations(
        get_tools=lambda _room: agent_tools,
        capabilities=capabilities,
        additional_tools=additional_tools,
        tool_definitions=tool_definitions,
    )
