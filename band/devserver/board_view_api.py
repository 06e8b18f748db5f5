"""The room's task board for the people in it (the web view's room page).

Band Cloud's human API has no board reads (agents keep the board through the agent API); band
dev adds ``GET /api/v1/me/chats/{chat_id}/board`` (the goal and every task, any state) for the
room's participants, so a person sees what the agents planned.
"""

from __future__ import annotations

from starlette.responses import Response
from starlette.routing import Route

from . import store_tasks as st
from .http import Ctx, data, endpoint
from .store import Store

__all__ = ["routes"]

human = endpoint("user")
#: Tasks shown on the board, at most.
MAX_TASKS = 200


@human
async def room_board(ctx: Ctx) -> Response:
    """GET /me/chats/{chat_id}/board (the goal and the tasks, a band dev addition)."""
    rid = ctx.params["chat_id"]
    await ctx.db.run(Store.member_room, rid, ctx.principal.id)
    board = await ctx.db.run(st.get_board, rid)
    tasks, more, _ = await ctx.db.run(st.list_tasks, rid, "all", None, MAX_TASKS)
    return data({"board": board, "tasks": tasks, "more": more})


routes = [Route("/api/v1/me/chats/{chat_id}/board", room_board, methods=["GET"])]
