"""The base of the framework adapters (LangGraph, Pydantic AI, Strands, Agno, Claude SDK, ADK,
CrewAI): what every one of them does the same way, so each adapter writes only its framework's
part.

It owns the custom ``(InputModel, handler)`` tools (checked once, in ``self._custom``), the
capabilities (all by default) and the emit flags most frameworks support, the Band tools as
specs, a Band tool's run (its events and declared effect), the Band system prompt, the failure
a broken run reports under the adapter's ``PROVIDER``, the turn's closing text and its usage.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import ClassVar, TypeVar

from band.core.protocols import AgentToolsProtocol
from band.core.simple_adapter import SimpleAdapter
from band.core.types import Emit, PlatformMessage
from band.core.wire import JsonValue
from band.runtime.capabilities import Capability
from band.runtime.tools.custom import CustomToolDef

from ._bandtools import BandToolSpec, band_prompt, band_tool_specs, framework_failure
from ._model import (
    ALL_CAPABILITIES,
    ToolRun,
    check_custom_tools,
    relay_closing_text,
    run_tool_call,
    send_usage,
)

__all__ = ["FrameworkAdapterBase"]


#: the history type the adapter's ``on_message`` receives
H = TypeVar("H")


class FrameworkAdapterBase(SimpleAdapter[H]):
    """A framework adapter: its custom tools, Band tools, prompt, failure, closing and usage."""

    #: ``provider`` of the failure a broken run reports (band-sdk 6.0.1's name per adapter)
    PROVIDER: ClassVar[str]
    SUPPORTED_EMIT: ClassVar[frozenset[Emit]] = frozenset({Emit.TOOL_CALLS, Emit.USAGE})
    SUPPORTED_CAPABILITIES: ClassVar[frozenset[Capability]] = ALL_CAPABILITIES

    #: the custom ``(InputModel, handler)`` tools, set by :meth:`_take_custom_tools`
    _custom: list[CustomToolDef]

    def _take_custom_tools(self, tools: Sequence[CustomToolDef] | None) -> None:
        """Keep the custom tools, refusing duplicate names and platform tool names."""
        self._custom = check_custom_tools(tools)

    def _band_specs(self, tools: AgentToolsProtocol) -> list[BandToolSpec]:
        """The room's Band tools the features select, then the custom tools."""
        return band_tool_specs(tools, self.features, self._custom)

    async def _run_band_tool(
        self, tools: AgentToolsProtocol, name: str, arguments: JsonValue, call_id: str
    ) -> ToolRun:
        """Run the Band or custom tool ``name`` (its events posted, its effect recorded)."""
        return await run_tool_call(tools, self._custom, self.features, name, arguments, call_id)

    def _band_prompt(self, custom_section: str | None = None) -> str:
        """Band's system prompt for the started agent, ``custom_section`` added."""
        return band_prompt(self, custom_section)

    async def _send_failure(self, tools: AgentToolsProtocol, code: str | None = None) -> None:
        """Tell the room the framework's run failed (the generic text, ``code`` if known)."""
        await tools.send_failure(framework_failure(self.PROVIDER, code))

    async def _run_failed(
        self, tools: AgentToolsProtocol, room_id: str, exc: BaseException, code: str | None = None
    ) -> None:
        """Log the broken run with its traceback (the provider's text stays in the logs, under
        the adapter module's logger) and tell the room."""
        log = logging.getLogger(f"band.adapters.{self.PROVIDER}")
        log.error("room %s: the %s run failed", room_id, type(self).__name__, exc_info=exc)
        await self._send_failure(tools, code)

    async def _close(self, tools: AgentToolsProtocol, msg: PlatformMessage, text: str) -> None:
        """Relay the run's closing text (when no tool replied or declined)."""
        await relay_closing_text(tools, msg, text)

    async def _send_usage(self, tools: AgentToolsProtocol, usage: Mapping[str, int]) -> None:
        """Post the turn's token usage (with ``Emit.USAGE``, when not empty)."""
        await send_usage(tools, self.features, usage)
