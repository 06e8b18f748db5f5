"""What the framework adapters (LangGraph, Pydantic AI, Strands, Agno, Claude SDK, ADK, CrewAI)
share: their config base, the Band tools each framework gets in its native form, the events
and declared effects of the framework's own tools, the prompt, and the failure a broken run
reports.

A framework adapter hands the framework one tool per Band tool (the platform tools the
adapter's ``capabilities`` select, and the custom ``(InputModel, handler)`` tools); each runs
through :func:`band.adapters._model.run_tool_call`, which posts the ``tool_call`` /
``tool_result`` events and records a custom tool's declared effect. The framework's own
(native) tools run inside the framework; :class:`NativeToolEvents` gives them the same events
and, where the adapter observes them, their declared effect.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from pydantic import BaseModel, ConfigDict

from band.core.protocols import AgentToolsProtocol
from band.core.turn import AgentFailure, TurnEffect
from band.core.types import AdapterFeatures
from band.core.wire import JsonObject, JsonValue
from band.runtime.prompts import render_system_prompt
from band.runtime.tools.custom import (
    CustomToolDef,
    custom_tools_to_schemas,
    declared_effect,
    is_failed_tool_output,
)
from band.runtime.tools.registry import TOOLS, select_tools

from ._model import GENERIC_PROVIDER_FAILURE_MESSAGE, post_tool_event

if TYPE_CHECKING:
    from band.core.simple_adapter import SimpleAdapter

__all__ = [
    "BandToolSpec",
    "FrameworkConfig",
    "NativeToolEvents",
    "band_prompt",
    "band_tool_specs",
    "framework_failure",
    "native_effect",
    "registry_tool_specs",
    "result_text",
]


class FrameworkConfig(BaseModel):
    """Base of the framework adapters' configs: frozen, and an unknown field is an error."""

    model_config = ConfigDict(frozen=True, extra="forbid")


@dataclass(frozen=True)
class BandToolSpec:
    """One Band tool as a framework declares it: name, description, JSON schema."""

    name: str
    description: str
    parameters: JsonObject


def band_tool_specs(
    tools: AgentToolsProtocol, features: AdapterFeatures, custom_tools: Sequence[CustomToolDef]
) -> list[BandToolSpec]:
    """The platform tools ``features`` selects (its capabilities, then its include/exclude
    and category filters: a tool filtered out never reaches the model), then the custom
    tools."""
    schemas = tools.get_openai_tool_schemas(capabilities=features.capabilities)
    return _specs(features, schemas, custom_tools)


def registry_tool_specs(
    features: AdapterFeatures,
    custom_tools: Sequence[CustomToolDef] = (),
    *,
    is_hub_room: bool = False,
) -> list[BandToolSpec]:
    """:func:`band_tool_specs` before a room's tools exist: the registry's agent tools for
    ``features`` (contacts too in the hub room), filtered the same way."""
    schemas = [
        s.schema("openai") for s in select_tools(features.capabilities, hub_room=is_hub_room)
    ]
    return _specs(features, schemas, custom_tools)


def _specs(
    features: AdapterFeatures,
    platform: Iterable[Mapping[str, object]],
    custom_tools: Sequence[CustomToolDef],
) -> list[BandToolSpec]:
    """The selected platform tools' OpenAI schemas, then the custom tools', as specs."""
    schemas: list[Mapping[str, object]] = [
        schema
        for schema in platform
        if _selected(features, str(cast(Mapping[str, object], schema["function"])["name"]))
    ]
    schemas.extend(custom_tools_to_schemas(custom_tools, "openai"))
    specs = []
    for schema in schemas:
        function = schema["function"]
        assert isinstance(function, Mapping)
        parameters = function.get("parameters") or {"type": "object", "properties": {}}
        specs.append(
            BandToolSpec(
                str(function["name"]), str(function.get("description") or ""), dict(parameters)
            )
        )
    return specs


def _selected(features: AdapterFeatures, name: str) -> bool:
    """Whether the include/exclude/category filters keep the platform tool ``name``."""
    if features.include_tools is not None and name not in features.include_tools:
        return False
    if features.exclude_tools is not None and name in features.exclude_tools:
        return False
    categories = features.include_categories
    return categories is None or (name in TOOLS and TOOLS[name].category in categories)


def band_prompt(adapter: SimpleAdapter[Any], custom_section: str | None) -> str:
    """Band's system prompt for the started ``adapter``, ``custom_section`` added."""
    return render_system_prompt(
        agent_name=adapter.agent_name,
        agent_description=adapter.agent_description,
        custom_section=custom_section or "",
        features=adapter.features,
    )


def framework_failure(provider: str, code: str | None = None) -> AgentFailure:
    """The room-safe failure of a broken framework run: the generic text (the provider's own
    may echo the prompt; it goes to the logs), and a coarse code when there is one."""
    return AgentFailure(provider, GENERIC_PROVIDER_FAILURE_MESSAGE, code)


def native_effect(tool: object) -> TurnEffect | None:
    """The effect a framework-native tool declares (on the tool, or on the function it
    wraps, whichever way round the decorators were applied)."""
    for candidate in (tool, *(getattr(tool, a, None) for a in _WRAPPED)):
        if candidate is not None and (effect := declared_effect(candidate)) is not None:
            return effect
    return None


#: where the frameworks keep the function a tool object wraps
_WRAPPED = ("_tool_func", "original_func", "entrypoint", "func", "__wrapped__")


def _text(value: object) -> str:
    return value if isinstance(value, str) else json.dumps(value, default=str)


def result_text(value: object) -> str:
    """A tool's output as text for a ``tool_result`` event: a string as it is, content
    blocks' text joined, anything else as JSON (never a framework object's repr)."""
    content = getattr(value, "content", value)  # a framework's tool message: its content
    if isinstance(content, str):
        return content
    if isinstance(content, list) and all(isinstance(b, dict) for b in content):
        texts = [str(b["text"]) for b in content if b.get("type") == "text" and "text" in b]
        if texts:
            return "\n".join(texts)
    if isinstance(content, BaseModel):
        return content.model_dump_json()
    return _text(content)


class NativeToolEvents:
    """The ``tool_call`` / ``tool_result`` events of the framework's own tools (with
    ``Emit.TOOL_CALLS``), and the declared effect of a successful one when ``effects`` has it
    (the adapter observes the tool)."""

    def __init__(
        self,
        tools: AgentToolsProtocol,
        features: AdapterFeatures,
        effects: Mapping[str, TurnEffect] | None = None,
    ) -> None:
        self._tools = tools
        self._features = features
        self._effects = dict(effects or {})

    async def called(self, name: str, args: JsonValue, call_id: str) -> None:
        """The framework is about to run its tool ``name``."""
        body: JsonObject = {"name": name, "args": args, "tool_call_id": call_id}
        await post_tool_event(self._tools, self._features, "tool_call", body)

    async def finished(self, name: str, output: object, call_id: str, *, ok: bool) -> None:
        """The tool ran: its output (text as the model reads it) and whether it succeeded."""
        text = _text(output)
        ok = ok and not is_failed_tool_output(_maybe_json(text))
        effect = self._effects.get(name)
        if ok and effect is not None:
            self._tools.turn.record(effect)
        body: JsonObject = {
            "name": name,
            "output": text,
            "tool_call_id": call_id,
            "is_error": not ok,
        }
        await post_tool_event(self._tools, self._features, "tool_result", body)


def native_effects(named: Iterable[tuple[str, object]]) -> dict[str, TurnEffect]:
    """Tool name -> declared effect of each framework-native tool that declares one."""
    return {name: effect for name, tool in named if (effect := native_effect(tool)) is not None}


def _maybe_json(text: str) -> object:
    try:
        return json.loads(text)
    except ValueError:
        return text
