"""``ToolSpec``: one tool declared once, and everything derived from it.

A ``ToolSpec`` names a tool and holds its input model (pydantic; its docstring is the
description), its handler (``await run(ctx, args)``), the decoder of its typed result, its
``TurnEffect``, its group (a ``Capability``, None for the tools every room has) and its
``Surface`` (agent or human). The model-facing schemas (OpenAI, Anthropic, MCP), the
``AgentTools`` methods, band-mcp's agent and human tools and the ACP MCP server all read
these descriptors; nothing else describes a tool.
"""

from __future__ import annotations

import copy
import enum
import functools
import inspect
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Generic, TypeVar

from pydantic import BaseModel, ValidationError

from band.core.exceptions import InvalidToolArgumentsError
from band.core.turn import TurnEffect
from band.core.types import Capability, ToolParam
from band.core.wire import JsonObject, JsonValue

from .ops import ToolContext

__all__ = [
    "FORMATS",
    "Surface",
    "ToolSpec",
    "clean_schema",
    "format_validation_error",
    "model_schema",
    "raw",
    "tool_schema",
]

I = TypeVar("I", bound=BaseModel)  # noqa: E741 -- the input model, as in the type's name
R = TypeVar("R")
T = TypeVar("T")

#: The provider formats the schemas come in.
FORMATS = ("openai", "anthropic")


class Surface(enum.StrEnum):
    """Whose API a tool speaks for: the agent's (``/agent/...``) or its owner's (``/me/...``)."""

    AGENT = "agent"
    HUMAN = "human"


def raw(value: T) -> T:
    """The result decoder of tools whose typed result is what the handler returns."""
    return value


@dataclass(frozen=True, slots=True)
class ToolSpec(Generic[I, R]):
    """One tool: name, input model, handler, typed result, turn effect, group and surface.

    ``run`` returns the JSON-ready value a model or MCP client gets; ``result`` turns it into
    what the direct method (``AgentTools.<name>``) returns.
    """

    name: str
    input_model: type[I]
    run: Callable[[ToolContext, I], Awaitable[JsonValue]]
    result: Callable[[JsonValue], R]
    group: Capability | None = None
    effect: TurnEffect = TurnEffect.OBSERVE
    surface: Surface = Surface.AGENT
    #: Whether a call acts on one room: the bound room (agent) or its ``chat_id`` (human).
    room_bound: bool = False

    @property
    def description(self) -> str:
        """The model-facing description: the input model's docstring (else the name)."""
        return inspect.cleandoc(self.input_model.__doc__ or "") or self.name

    @property
    def category(self) -> str:
        """The ``include_categories`` name: the group's value, ``"chat"`` for the base tools."""
        return "chat" if self.group is None else self.group.value

    def json_schema(self) -> JsonObject:
        """The JSON schema of the arguments (a fresh copy: callers may change it)."""
        return copy.deepcopy(model_schema(self.input_model))

    def schema(self, format: str) -> JsonObject:
        """The tool's definition in ``"openai"`` or ``"anthropic"`` format."""
        return tool_schema(self.name, self.description, self.json_schema(), format)

    def anthropic_schema(self) -> ToolParam:
        """The tool as an Anthropic ``ToolParam``."""
        return ToolParam(
            name=self.name, description=self.description, input_schema=self.json_schema()
        )

    def validate(self, arguments: Mapping[str, JsonValue] | None) -> I:
        """``arguments`` as the input model, or ``InvalidToolArgumentsError`` naming each field."""
        try:
            return self.input_model.model_validate({} if arguments is None else arguments)
        except ValidationError as exc:
            raise InvalidToolArgumentsError(format_validation_error(self.name, exc)) from None


@functools.cache
def model_schema(model: type[BaseModel]) -> JsonObject:
    """A model's cleaned JSON schema, built once (pydantic's generation is slow); do not mutate."""
    return clean_schema(model.model_json_schema())


def clean_schema(schema: Mapping[str, JsonValue]) -> JsonObject:
    """Drop pydantic's generated titles and the top-level description (the tool carries it)."""
    out: JsonObject = _strip_titles(schema)  # a mapping in, a dict out
    out.pop("description", None)
    out.setdefault("properties", {})
    out["type"] = "object"
    return out


def _strip_titles(node: JsonValue, in_properties: bool = False) -> JsonValue:
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


def tool_schema(name: str, description: str, schema: JsonObject, format: str) -> JsonObject:
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
