"""The built-in tools as band-sdk's ``ToolDefinition`` table, read off our ``ToolSpec`` registry.

``TOOL_DEFINITIONS`` maps each agent and human tool's name to its input model and the
``AgentTools``/``HumanTools`` method that runs it; nothing here is a second registry: every row
comes from ``registry.TOOLS`` and ``human_specs.TOOLS``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from band.core.types import AdapterFeatures, Capability

from .constants import CHAT_ID_FIELD_NAME, withheld_tool_names
from .human_specs import TOOLS as HUMAN_TOOLS
from .lookup import resolve_capabilities
from .registry import AGENT_ROOM_BOUND_TOOL_NAMES, TOOLS
from .spec import Surface, ToolSpec

__all__ = [
    "TOOL_DEFINITIONS",
    "ToolDefinition",
    "classify_room_binding",
    "iter_tool_definitions",
    "selected_tool_definitions",
]


@dataclass(frozen=True)
class ToolDefinition:
    """A built-in tool: its name, input model, the method that runs it, and its surface."""

    name: str
    input_model: type[BaseModel]
    method_name: str
    surface: Surface = Surface.AGENT

    @classmethod
    def of(cls, spec: ToolSpec[Any, Any]) -> ToolDefinition:
        """The definition of ``spec``: its method is its name without the ``band_`` prefix."""
        return cls(spec.name, spec.input_model, spec.name.removeprefix("band_"), spec.surface)


#: Every built-in tool by name: the agent tools, then the human-scope ones.
TOOL_DEFINITIONS: dict[str, ToolDefinition] = {
    name: ToolDefinition.of(spec) for name, spec in (TOOLS | HUMAN_TOOLS).items()
}


def classify_room_binding(definition: ToolDefinition) -> tuple[bool, bool]:
    """``(agent room-bound, human room-bound)``: an agent tool acting on the bound room, or a
    human tool whose input takes the room as ``chat_id``."""
    if definition.surface == Surface.AGENT:
        return definition.name in AGENT_ROOM_BOUND_TOOL_NAMES, False
    if definition.surface == Surface.HUMAN:
        return False, CHAT_ID_FIELD_NAME in definition.input_model.model_fields
    return False, False


def iter_tool_definitions(
    *,
    surface: Surface | None = Surface.AGENT,
    capabilities: frozenset[Capability] | None = None,
) -> list[ToolDefinition]:
    """The definitions of ``surface`` (``None``: both) whose capability group is enabled
    (``capabilities`` ``None``: contacts only, as ``DEFAULT_CAPABILITIES``)."""
    withheld = withheld_tool_names(resolve_capabilities(capabilities))
    return [
        d
        for d in TOOL_DEFINITIONS.values()
        if (surface is None or d.surface == surface) and d.name not in withheld
    ]


def filter_by_features(
    specs: Iterable[ToolSpec[Any, Any]], features: AdapterFeatures
) -> list[ToolSpec[Any, Any]]:
    """``specs`` narrowed by ``include_categories``, then ``include_tools``, then
    ``exclude_tools`` (each stage narrows the previous one)."""
    out = list(specs)
    if features.include_categories is not None:
        out = [s for s in out if s.category in features.include_categories]
    if features.include_tools is not None:
        out = [s for s in out if s.name in features.include_tools]
    if features.exclude_tools is not None:
        out = [s for s in out if s.name not in features.exclude_tools]
    return out


def selected_tool_definitions(
    features: AdapterFeatures, *, is_hub_room: bool = False
) -> list[ToolDefinition]:
    """The agent tools ``features`` allow: its capability groups (contacts always in the hub
    room, whose prompt asks for them), then its category and tool filters."""
    capabilities = features.capabilities | ({Capability.CONTACTS} if is_hub_room else set())
    names = {d.name for d in iter_tool_definitions(capabilities=frozenset(capabilities))}
    specs = [s for s in TOOLS.values() if s.name in names]
    return [TOOL_DEFINITIONS[s.name] for s in filter_by_features(specs, features)]
