"""Assemble band-mcp from a resolved configuration: REST clients, tool surfaces, health probes."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator
from typing import Any

from band.client.rest import RestClient
from band.runtime.tools.spec import Surface, ToolSpec

from .agent_surface import AgentSurface
from .config import Config, Settings
from .human_tools import HumanTools
from .server import Backend, BandToolServer

log = logging.getLogger("band.mcp")


@contextlib.asynccontextmanager
async def build(config: Config, settings: Settings) -> AsyncIterator[BandToolServer]:
    """The tool server for ``config``; its REST clients close when the context ends."""
    clients: list[RestClient] = []
    tools: list[ToolSpec[Any, Any]] = []
    backends: dict[Surface, Backend] = {}
    keys = {Surface.AGENT: config.agent_key, Surface.HUMAN: config.user_key}
    try:
        for scope in config.scope:
            key = keys[scope]
            if not key:
                continue
            rest = RestClient(key, settings.band_base_url)
            clients.append(rest)
            backend = AgentSurface(rest) if scope is Surface.AGENT else HumanTools(rest)
            tools += backend.specs(config.tools)
            backends[scope] = backend
        yield BandToolServer(
            tools, config=config, base_url=settings.band_base_url, backends=backends
        )
    finally:
        for rest in clients:
            await rest.aclose()
