"""An agent's recent turns and one turn's timeline, for its owner (the web view's agent page).

Not a Band Cloud endpoint: ``band dev`` serves it from its own records of both sides of the
wire (``store_turns``), so a turn can be inspected without anything from the agent.
"""

from __future__ import annotations

from starlette.responses import Response
from starlette.routing import Route

from . import store_turns
from .http import Ctx, data, endpoint

__all__ = ["routes"]

human = endpoint("user")
P = "/api/v1/me/agents/{agent_id}/turns"


@human
async def list_turns(ctx: Ctx) -> Response:
    """GET /me/agents/{agent_id}/turns (the agent's last turns, newest first)."""
    return data(await ctx.db.run(store_turns.recent_turns, ctx.params["agent_id"]))


@human
async def get_turn(ctx: Ctx) -> Response:
    """GET /me/agents/{agent_id}/turns/{message_id} (one turn's timeline)."""
    aid, mid = ctx.params["agent_id"], ctx.params["message_id"]
    return data(await ctx.db.run(store_turns.turn_timeline, aid, mid))


routes = [
    Route(P, list_turns, methods=["GET"]),
    Route(P + "/{message_id}", get_turn, methods=["GET"]),
]
