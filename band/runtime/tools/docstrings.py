"""A tool's input model as the docstring or ``args_schema`` a framework builds its tool from.

Frameworks that read a Python function's docstring (pydantic-ai via griffe) see per-argument
text only under a Google-style ``Args:`` section; these helpers render it from the model's
``Field(description=...)`` values so no adapter retypes it.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar, cast

from pydantic import BaseModel, create_model

from band.core.wire import JsonValue

from .lookup import get_tool_description, resolve_tool_model
from .results import serialize_tool_result

__all__ = [
    "ToolFunc",
    "docstring_with_args",
    "format_arg_doc",
    "get_tool_docstring_with_args",
    "platform_args_schema",
    "platform_tool",
]

ToolFunc = TypeVar("ToolFunc", bound=Callable[..., Any])


def format_arg_doc(name: str, description: str) -> str:
    """One ``Args:`` entry; continuation lines are indented past the name so a parser keeps
    them in the entry."""
    head, *rest = description.strip().splitlines()
    return "\n".join([f"    {name}: {head}", *(f"        {line.strip()}" for line in rest)])


def docstring_with_args(description: str, model: type[BaseModel]) -> str:
    """``description`` plus an ``Args:`` section of ``model``'s described fields (if any)."""
    entries = [
        format_arg_doc(name, field.description)
        for name, field in model.model_fields.items()
        if field.description and field.description.strip()
    ]
    if not entries:
        return description
    return description.rstrip() + "\n\nArgs:\n" + "\n".join(entries)


def get_tool_docstring_with_args(name: str) -> str:
    """Tool ``name``'s description plus its ``Args:`` section (``band_`` prefix optional)."""
    description = get_tool_description(name)
    model = resolve_tool_model(name)
    return description if model is None else docstring_with_args(description, model)


def platform_tool(fn: ToolFunc) -> ToolFunc:
    """Decorate a coroutine named after a tool: it gets the tool's docstring with ``Args:`` and
    its result goes through ``serialize_tool_result`` (models become plain data)."""

    @functools.wraps(fn)
    async def wrapper(*args: Any, **kwargs: Any) -> Any:
        return serialize_tool_result(await fn(*args, **kwargs))

    wrapper.__doc__ = get_tool_docstring_with_args(fn.__name__)
    return cast(ToolFunc, wrapper)


#: keywords whose values map property names (not keywords) to schemas
_NAME_MAPS = frozenset({"properties", "patternProperties", "$defs", "definitions"})


def _enum_not_const(node: JsonValue, names: bool = False) -> JsonValue:
    """``const: X`` as ``enum: [X]`` (same meaning; some providers reject ``const``); a
    property that is itself named ``const`` keeps its name."""
    if isinstance(node, list):
        return [_enum_not_const(v) for v in node]
    if not isinstance(node, dict):
        return node
    if names:
        return {key: _enum_not_const(value) for key, value in node.items()}
    return {
        ("enum" if key == "const" else key): (
            [value] if key == "const" else _enum_not_const(value, key in _NAME_MAPS)
        )
        for key, value in node.items()
    }


class _ToolSchema(BaseModel):
    """Mixin: pydantic's JSON schema with ``const`` as ``enum`` (Gemini rejects ``const``)."""

    @classmethod
    def model_json_schema(cls, *args: Any, **kwargs: Any) -> dict[str, Any]:
        return cast(dict[str, Any], _enum_not_const(super().model_json_schema(*args, **kwargs)))


def platform_args_schema(name: str, *, validators: dict[str, Any] | None = None) -> type[BaseModel]:
    """Tool ``name``'s input model as a framework's ``args_schema`` (``KeyError`` when unknown).

    ``validators`` adds pydantic validators on a subclass, for a framework whose tool calls send
    a value the model is too strict to parse; the description stays the model's docstring.
    """
    model = resolve_tool_model(name)
    if model is None:
        raise KeyError(name)
    if validators:
        model = create_model(
            f"{model.__name__}Adapted",
            __base__=model,
            __doc__=model.__doc__,  # create_model drops it, and it is the tool's description
            __validators__=validators,
        )
    return type(model.__name__, (_ToolSchema, model), {"__doc__": model.__doc__})
