"""The Band tools as native Pydantic AI tools, the ones ``PydanticAIAdapter`` runs with."""

from __future__ import annotations

from band._extras import require_module

require_module("pydantic-ai", "band.integrations.pydantic_ai")  # optional: say how to get it

from pydantic_ai import Tool  # noqa: E402

from band.adapters._bandtools import registry_tool_specs  # noqa: E402
from band.adapters.pydantic_ai import band_pydantic_tools  # noqa: E402
from band.core.protocols import AgentToolsProtocol  # noqa: E402
from band.core.types import AdapterFeatures  # noqa: E402

__all__ = ["build_band_pydantic_ai_tools"]


def build_band_pydantic_ai_tools(features: AdapterFeatures) -> list[Tool[AgentToolsProtocol]]:
    """The platform tools ``features`` allows (capability groups, then the tool and category
    filters) as Pydantic AI tools for an agent whose ``deps`` are the room's Band tools
    (``Agent(..., deps_type=AgentToolsProtocol, tools=...)``, ``run(..., deps=tools)``).

    A call runs as ``PydanticAIAdapter``'s do: on ``ctx.deps``, its ``tool_call`` /
    ``tool_result`` events posted with ``Emit.TOOL_CALLS``, its success counted in the
    turn, a failure given back to the model as error text."""
    return band_pydantic_tools(registry_tool_specs(features), (), features)
