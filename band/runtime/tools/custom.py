"""Custom tools: ``(InputModel, handler)`` pairs an adapter adds beside the platform tools.

The tool's name is the model's class name without its ``Input`` suffix, lowercased
(``FileTicketInput`` -> ``fileticket``); its description is the model's docstring. A handler
declares what a successful call does to the turn with :func:`declares_turn_effect`
(``band_terminal = True`` on a handler is shorthand for ``TurnEffect.ACT``); an undeclared
tool observes. The effect is recorded only on success: a handler that raises, or returns
``{"ok": False}`` or a string starting with ``Error:``, records nothing.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable, Mapping
from typing import Any, NoReturn, TypeVar

from pydantic import BaseModel

from band.core.turn import Turn, TurnEffect
from band.core.wire import JsonObject, JsonValue
from band.runtime.tools.ops import ToolContext
from band.runtime.tools.registry import TOOLS
from band.runtime.tools.spec import FORMATS, ToolSpec, raw

__all__ = [
    "CustomToolDef",
    "custom_tool_effects",
    "custom_tool_spec",
    "custom_tool_to_anthropic_schema",
    "custom_tool_to_openai_schema",
    "custom_tools_to_schemas",
    "declared_effect",
    "declares_turn_effect",
    "execute_custom_tool",
    "find_custom_tool",
    "get_custom_tool_name",
    "is_failed_tool_output",
    "reject_conflicting_tool_names",
]

#: A custom tool: its input model and the user's handler (any signature; it may be async).
CustomToolDef = tuple[type[BaseModel], Callable[..., Any]]
_H = TypeVar("_H", bound=Callable[..., Any])
#: Attribute the decorator sets on a handler.
EFFECT_ATTR = "band_turn_effect"


def declares_turn_effect(effect: TurnEffect) -> Callable[[_H], _H]:
    """Declare what a successful call of the decorated handler does to the turn."""
    if not isinstance(effect, TurnEffect):
        raise TypeError(f"effect must be a TurnEffect, not {type(effect).__name__}")

    def mark(handler: _H) -> _H:
        setattr(handler, EFFECT_ATTR, effect)
        return handler

    return mark


def declared_effect(handler: object) -> TurnEffect | None:
    """The handler's declared effect; ``band_terminal = True`` means ACT; else None."""
    effect = getattr(handler, EFFECT_ATTR, None)
    if isinstance(effect, TurnEffect):
        return effect
    if getattr(handler, "band_terminal", False) is True:
        return TurnEffect.ACT
    return None


def get_custom_tool_name(input_model: type[BaseModel]) -> str:
    """``FileTicketInput`` -> ``fileticket``."""
    name = input_model.__name__
    if name.endswith("Input") and len(name) > len("Input"):
        name = name[: -len("Input")]
    return name.lower()


def custom_tool_effects(tools: Iterable[CustomToolDef]) -> dict[str, TurnEffect]:
    """Tool name -> effect of each custom tool (undeclared ones observe)."""
    return {
        get_custom_tool_name(model): declared_effect(handler) or TurnEffect.OBSERVE
        for model, handler in tools
    }


def custom_tool_spec(tool: CustomToolDef) -> ToolSpec[BaseModel, JsonValue]:
    """The custom tool as a ``ToolSpec`` (an agent tool of no group, with its declared effect)."""
    model, handler = tool

    async def run(ctx: ToolContext, args: BaseModel) -> JsonValue:
        return await _invoke(handler, model, args)

    effect = declared_effect(handler) or TurnEffect.OBSERVE
    return ToolSpec(get_custom_tool_name(model), model, run, raw, effect=effect)


def _unbound(model: type[BaseModel]) -> ToolSpec[BaseModel, JsonValue]:
    """A model's spec for its schema alone (no handler)."""
    return custom_tool_spec((model, _no_handler))


def _no_handler(*args: object, **kwargs: object) -> NoReturn:
    raise RuntimeError("this custom tool spec describes a schema only")


def custom_tool_to_openai_schema(input_model: type[BaseModel]) -> JsonObject:
    """The custom tool as an OpenAI function tool."""
    return _unbound(input_model).schema("openai")


def custom_tool_to_anthropic_schema(input_model: type[BaseModel]) -> JsonObject:
    """The custom tool as an Anthropic tool."""
    return _unbound(input_model).schema("anthropic")


def custom_tools_to_schemas(tools: Iterable[CustomToolDef], format: str) -> list[JsonObject]:
    """Every custom tool in ``"openai"`` or ``"anthropic"`` format."""
    if format not in FORMATS:
        raise ValueError(f"Invalid format: {format}. Must be 'openai' or 'anthropic'")
    return [custom_tool_spec(tool).schema(format) for tool in tools]


def find_custom_tool(tools: Iterable[CustomToolDef], name: str) -> CustomToolDef | None:
    """The custom tool called ``name``, if any."""
    return next((t for t in tools if get_custom_tool_name(t[0]) == name), None)


def reject_conflicting_tool_names(names: Iterable[str]) -> None:
    """Refuse duplicate custom tool names and names of platform tools."""
    seen: set[str] = set()
    for name in names:
        if name in TOOLS:
            raise ValueError(f"Custom tool name {name!r} conflicts with a Band platform tool")
        if name in seen:
            raise ValueError(f"Custom tool name {name!r} is used by more than one tool")
        seen.add(name)


def is_failed_tool_output(result: object) -> bool:
    """Whether a handler's return value reports failure (``{"ok": False}`` or ``Error:...``)."""
    if isinstance(result, Mapping):
        return result.get("ok") is False
    return isinstance(result, str) and result.startswith("Error:")


def _takes_model(handler: Callable[..., Any], model: type[BaseModel]) -> bool:
    """Whether the handler takes the validated model (else it takes the fields as keywords)."""
    try:
        params = inspect.signature(handler).parameters.values()
    except (TypeError, ValueError):  # builtins and some callables hide their signature
        return True
    required = [
        p
        for p in params
        if p.default is p.empty and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
    ]
    if len(required) != 1:
        return False
    (param,) = required
    if param.annotation in (model, model.__name__):
        return True
    return param.name not in model.model_fields


async def execute_custom_tool(
    tool: CustomToolDef, arguments: Mapping[str, JsonValue] | None, *, turn: Turn | None
) -> JsonValue:
    """Validate ``arguments``, run the handler, and record its effect on ``turn`` on success.

    Invalid arguments raise ``InvalidToolArgumentsError`` (``Invalid arguments for <tool>:
    <field>: <reason>``); the handler's own exceptions propagate, recording nothing.
    """
    model, handler = tool
    args = custom_tool_spec(tool).validate(arguments)
    result = await _invoke(handler, model, args)
    effect = declared_effect(handler)
    if turn is not None and effect is not None and not is_failed_tool_output(result):
        turn.record(effect)
    return result


async def _invoke(
    handler: Callable[..., Any], model: type[BaseModel], args: BaseModel
) -> JsonValue:
    """Call the handler with the model or its fields, awaiting what it returns."""
    if _takes_model(handler, model):
        result = handler(args)
    else:
        result = handler(**{k: getattr(args, k) for k in model.model_fields})
    if inspect.isawaitable(result):
        result = await result
    return result
