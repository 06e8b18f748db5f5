"""Assemble band-mcp from a resolved configuration: REST clients, tool surfaces, health probes."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator

from band.client.rest import RestClient

from .agent_surface import AgentSurface
from .config import Config, Scope, Settings
from .human_tools import HumanTools, human_tool_defs
from .server import BandToolServer, Probe
from .tooldef import ToolDef

log = logging.getLogger("band.mcp")


@contextlib.asynccontextmanager
async def build(config: Config, settings: Settings) -> AsyncIterator[BandToolServer]:
    """The tool server for ``config``; its REST clients close when the context ends."""
    clients: list[RestClient] = []
    tools: list[ToolDef] = []
    probes: dict[Scope, Probe] = {}
    try:
        for scope in config.scope:
            if scope is Scope.AGENT and config.agent_key:
                rest = RestClient(config.agent_key, settings.band_base_url)
                clients.append(rest)
                agent = AgentSurface(rest)
                tools += agent.tool_defs(config.tools)
                probes[Scope.AGENT] = agent.probe
            elif scope is Scope.HUMAN and config.user_key:
                rest = RestClient(config.user_key, settings.band_base_url)
                clients.append(rest)
                human = HumanTools(rest)
                tools += human_tool_defs(human, config.tools)
                probes[Scope.HUMAN] = human.probe
        yield BandToolServer(tools, config=config, base_url=settings.band_base_url, probes=probes)
    finally:
        for rest in clients:
            await rest.aclose()
