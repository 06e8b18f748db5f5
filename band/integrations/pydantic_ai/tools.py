"""The Band tools as native Pydantic AI tools, the ones ``PydanticAIAdapter`` runs with."""

from __future__ import annotations

# the [pydantic-ai] extra is checked (one line naming it) by this package's __init__, which
# Python imports before this module
from pydantic_ai import Tool

from band.adapters._bandtools import registry_tool_specs
from band.adapters.pydantic_ai import band_pydantic_tools
from band.core.protocols import AgentToolsProtocol
from band.core.types import AdapterFeatures

__all__ = ["build_band_pydantic_ai_tools"]


def build_band_pydantic_ai_tools(features: AdapterFeatures) -> list[Tool[AgentToolsProtocol]]:
    """The platform tools ``features`` allows (capability groups, then the tool and category
    filters) as Pydantic AI tools for an agent whose ``deps`` are the room's Band tools
    (``Agent(..., deps_type=AgentToolsProtocol, tools=...)``, ``run(..., deps=tools)``).

    A call runs as ``PydanticAIAdapter``'s do: on ``ctx.deps``, its ``tool_call`` /
    ``tool_result`` events posted with ``Emit.TOOL_CALLS``, its success counted in the
    turn, a failure given back to the model as error text."""
    return band_pydantic_tools(registry_tool_specs(features), (), features)
