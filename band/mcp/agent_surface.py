"""The agent-scope tools: the platform tools of ``band.runtime.tools`` served for any room.

Nothing here re-implements a tool: band-mcp serves the registry's ``ToolSpec`` of each tool
(input model, description, handler, room binding) and only widens ``band_send_event``'s model.
Agent tools act on one room, so the server adds a ``chat_id`` argument (alias ``room_id``) to
room-bound tools and this surface keeps one tool context per room.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections import OrderedDict
from collections.abc import Collection
from typing import Any, Literal

from pydantic import BaseModel, Field

from band.client.rest import RestClient
from band.core.types import Capability
from band.core.wire import AgentMe, JsonValue
from band.runtime.tools import SendEventInput, ToolContext, ToolSpec, select_tools
from band.runtime.tools.ops import load_participants

#: Rooms whose tool context (participant cache, lock) is kept between calls.
MAX_ROOMS = 128


class McpSendEventInput(SendEventInput):
    """Post an event to the room; it needs no mention.

    Types: 'thought' shares your plan or reasoning before you act, 'error' reports a problem,
    'task' reports progress on work, and 'tool_call' / 'tool_result' record a tool you called
    and what it returned (nobody else narrates your tool calls when you work through MCP).
    """

    message_type: Literal["thought", "error", "task", "tool_call", "tool_result"] = Field(  # type: ignore[assignment]
        description="Kind of event: thought, error, task, tool_call or tool_result"
    )


#: Tools whose input model band-mcp widens.
_MODELS: dict[str, type[BaseModel]] = {"band_send_event": McpSendEventInput}


class AgentSurface:
    """The agent's tools over one REST client: one tool context per room, calls serialized."""

    def __init__(self, rest: RestClient) -> None:
        self.rest = rest
        self._rooms: OrderedDict[str, tuple[ToolContext, asyncio.Lock]] = OrderedDict()
        self._agent_id: str | None = None

    async def probe(self) -> object:
        """health_check: the agent's identity (raises when the key does not work)."""
        return (await self.rest.request("GET", "agent/me")).data

    async def agent_id(self) -> str | None:
        """The agent's own ID, fetched once: mention hints leave the agent itself out."""
        if self._agent_id is None:
            me = (await self.rest.request("GET", "agent/me")).data_as(AgentMe)
            if me is not None and me.id:
                self._agent_id = me.id
        return self._agent_id

    def _room(self, room_id: str) -> tuple[ToolContext, asyncio.Lock]:
        entry = self._rooms.get(room_id)
        if entry is None:
            entry = (ToolContext(self.rest, room_id=room_id), asyncio.Lock())
            self._rooms[room_id] = entry
            while len(self._rooms) > MAX_ROOMS:
                self._rooms.popitem(last=False)
        self._rooms.move_to_end(room_id)
        return entry

    async def run(
        self, spec: ToolSpec[Any, Any], args: BaseModel, room_id: str | None
    ) -> JsonValue:
        """Run one tool; room tools share the room's context and wait for its earlier calls."""
        if room_id is None:
            return await spec.run(ToolContext(self.rest), args)
        ctx, lock = self._room(room_id)
        async with lock:
            if spec.name == "band_send_message":
                # a participant added since the last call (by anyone) must resolve
                ctx.agent_id = await self.agent_id()
                try:
                    await load_participants(ctx)
                except Exception:
                    self._rooms.pop(room_id, None)
                    raise
            return await spec.run(ctx, args)

    def specs(self, groups: Collection[Capability]) -> list[ToolSpec[Any, Any]]:
        """The 8 chat tools plus those of the enabled groups, in the registry's order."""
        return [
            dataclasses.replace(spec, input_model=_MODELS[spec.name])
            if spec.name in _MODELS
            else spec
            for spec in select_tools(groups)
        ]
