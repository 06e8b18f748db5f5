"""The band-mcp tool surface on the official ``mcp`` low-level Server: schemas, dispatch, errors."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from mcp import types
from mcp.server.lowlevel import Server
from pydantic import BaseModel, Field, ValidationError

from band.client.errors import BandAPIError
from band.core.wire import JsonObject, JsonValue
from band.runtime.tools.spec import Surface, ToolSpec

from . import __version__
from .config import Config, ConfigError

log = logging.getLogger("band.mcp")

SERVER_NAME = "band-mcp-server"
HEALTH_CHECK = "health_check"
ROOM_ID_MAX = 255
ROOM_DESCRIPTION = (
    "ID of the chat room the call acts on (the room this conversation belongs to; "
    "when creating a new room, the room you create it from)."
)


class Backend(Protocol):
    """What serves one surface's tools: ``AgentSurface`` or ``HumanTools``."""

    async def probe(self) -> object:
        """health_check: returns normally when the surface's key works."""
        ...

    async def run(self, spec: ToolSpec[Any, Any], args: BaseModel, room: str | None) -> JsonValue:
        """Run one validated call (``room``: the call's room, None for room-less tools)."""
        ...


class RoomArg(BaseModel):
    """The room argument the server adds to agent tools (sent as ``chat_id`` or ``room_id``)."""

    chat_id: str = Field(min_length=1, max_length=ROOM_ID_MAX)


def describe_error(exc: BaseException) -> str:
    """Text of a failed call: status and Band error code for API errors, else the exception."""
    if isinstance(exc, BandAPIError):
        parts = [
            f"status_code: {exc.status_code}",
            f"code={exc.code!r}",
            f"message={exc.message!r}",
        ]
        if exc.request_id:
            parts.append(f"request_id={exc.request_id!r}")
        return ", ".join(parts)
    return str(exc) or type(exc).__name__


def validation_text(exc: ValidationError) -> str:
    """``<loc>: <msg>`` for each problem, comma-separated."""
    return ", ".join(
        f"{'.'.join(str(p) for p in err['loc'])}: {err['msg']}" for err in exc.errors()
    )


def serialize(result: JsonValue) -> str:
    """A str passes through; models and other values become JSON (None becomes ``null``)."""
    if isinstance(result, str):
        return result
    if isinstance(result, BaseModel):
        return result.model_dump_json()
    return json.dumps(result, default=str)


def adds_room(tool: ToolSpec[Any, Any]) -> bool:
    """Whether the server adds the room argument: a room-bound agent tool (bound per call)."""
    return tool.room_bound and tool.surface is Surface.AGENT


def room_in_model(tool: ToolSpec[Any, Any]) -> bool:
    """Whether the room is the tool's own ``chat_id`` argument (room-bound human tools)."""
    return tool.room_bound and tool.surface is Surface.HUMAN


def input_schema(tool: ToolSpec[Any, Any], pinned: str | None) -> JsonObject:
    """The advertised JSON schema: room argument added, or hidden when the room is pinned."""
    schema = tool.json_schema()
    props: JsonObject = schema.setdefault("properties", {})
    required: list[str] = list(schema.get("required", []))
    if adds_room(tool) and pinned is None:
        props["chat_id"] = {
            "type": "string",
            "maxLength": ROOM_ID_MAX,
            "minLength": 1,
            "description": ROOM_DESCRIPTION,
        }
        required.append("chat_id")
    elif room_in_model(tool) and pinned is not None:
        props.pop("chat_id", None)
        required = [r for r in required if r != "chat_id"]
    if required:
        schema["required"] = required
    else:
        schema.pop("required", None)
    return schema


def check_unique(tools: Sequence[ToolSpec[Any, Any]]) -> None:
    """Two surfaces may not register the same tool name."""
    seen: dict[str, ToolSpec[Any, Any]] = {}
    for tool in tools:
        first = seen.get(tool.name)
        if first is not None:
            raise ConfigError(
                f"Duplicate tool name across enabled surfaces: {tool.name} "
                f"({first.surface.value}, {tool.surface.value})"
            )
        seen[tool.name] = tool


class BandToolServer:
    """The tools of the enabled scopes and groups, served by one ``mcp`` low-level Server."""

    def __init__(
        self,
        tools: Sequence[ToolSpec[Any, Any]],
        *,
        config: Config,
        base_url: str,
        backends: Mapping[Surface, Backend] | None = None,
    ) -> None:
        check_unique(tools)
        self.config = config
        self.base_url = base_url
        self.pinned = config.room_id
        self.tools = {t.name: t for t in tools}
        self.backends = dict(backends or {})
        self.server: Server[Any, Any] = Server(SERVER_NAME, version=__version__)
        self._listing = [self._describe(t) for t in tools] + [self._health_tool()]
        self.server.list_tools()(self._list_tools)
        self.server.call_tool(validate_input=False)(self._call_tool)

    def _describe(self, tool: ToolSpec[Any, Any]) -> types.Tool:
        return types.Tool(
            name=tool.name,
            description=tool.description,
            inputSchema=input_schema(tool, self.pinned),
        )

    @staticmethod
    def _health_tool() -> types.Tool:
        return types.Tool(
            name=HEALTH_CHECK,
            description="Check that the server runs and that each configured key reaches Band.",
            inputSchema={"type": "object", "properties": {}},
        )

    async def _list_tools(self) -> list[types.Tool]:
        return list(self._listing)

    async def _call_tool(self, name: str, arguments: JsonObject) -> types.CallToolResult:
        if name == HEALTH_CHECK:
            return _text(await self.health_check())
        tool = self.tools.get(name)
        if tool is None:
            return _error(f"Unknown tool: {name}")
        try:
            model, room = self.prepare(tool, dict(arguments or {}))
        except ValidationError as exc:
            return _error(
                f"Error executing tool {name}: Invalid arguments for {name}: {validation_text(exc)}"
            )
        try:
            return _text(serialize(await self.backends[tool.surface].run(tool, model, room)))
        except BandAPIError as exc:
            log.warning("tool %s failed: %s", name, describe_error(exc))
            return _error(f"Error executing tool {name}: {describe_error(exc)}")
        except Exception as exc:
            log.warning("tool %s failed", name, exc_info=True)
            return _error(f"Error executing tool {name}: {describe_error(exc)}")

    def prepare(self, tool: ToolSpec[Any, Any], args: JsonObject) -> tuple[BaseModel, str | None]:
        """The validated input and room of a call; a pinned room overrides the client's."""
        room: str | None = None
        if adds_room(tool):
            chat_id, room_id = args.pop("chat_id", None), args.pop("room_id", None)
            if self.pinned is not None:
                room = self.pinned
            else:
                given = chat_id if chat_id is not None else room_id
                room = RoomArg.model_validate(
                    {"chat_id": given} if given is not None else {}
                ).chat_id
        elif room_in_model(tool):
            if self.pinned is not None:
                args["chat_id"] = self.pinned
            room = args.get("chat_id") if isinstance(args.get("chat_id"), str) else None
        return tool.input_model.model_validate(args), room

    async def health_check(self) -> str:
        """``OK | <scopes> | <base url>``, or ``Failed | <scope> | <error>`` (human first)."""
        if not self.backends:
            return "Failed | no credential configured"
        order = [s for s in (Surface.HUMAN, Surface.AGENT) if s in self.backends]
        results = await asyncio.gather(
            *(self.backends[s].probe() for s in order), return_exceptions=True
        )
        for scope, result in zip(order, results, strict=True):
            if isinstance(result, BaseException):
                return f"Failed | {scope.value} | {describe_error(result)}"
        return f"OK | {','.join(s.value for s in order)} | {self.base_url}"


def _text(text: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)])


def _error(text: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)], isError=True)
