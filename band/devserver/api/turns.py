"""An agent's recent turns and one turn's timeline, for its owner (the web view's agent page).

Not a Band Cloud endpoint: ``band dev`` serves it from its own records of both sides of the
wire (``store.turns``), so a turn can be inspected without anything from the agent.
"""

from __future__ import annotations

from starlette.responses import Response

from band.core.wire import JsonObject

from ..store import turns as store_turns
from .http import Ctx, data
from .operations import Operation, declare

__all__ = ["routes"]

P = "/api/v1/me/agents/{agent_id}/turns"


async def list_turns(ctx: Ctx) -> Response:
    """GET /me/agents/{agent_id}/turns (the agent's last turns, newest first)."""
    return data(await ctx.db.run(store_turns.recent_turns, ctx.params["agent_id"]))


async def get_turn(ctx: Ctx) -> Response:
    """GET /me/agents/{agent_id}/turns/{message_id} (one turn's timeline)."""
    aid, mid = ctx.params["agent_id"], ctx.params["message_id"]
    return data(await ctx.db.run(store_turns.turn_timeline, aid, mid))


routes = declare(
    Operation("GET", P, list_turns, rule="own_agent", answer=(200, list[JsonObject])),
    Operation("GET", P + "/{message_id}", get_turn, rule="own_agent", answer=(200, JsonObject)),
)
