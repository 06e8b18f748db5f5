"""What the web view's room page needs beyond Band Cloud's human API (band dev additions).

``GET /api/v1/me/chats/{chat_id}/board``: the goal and every task, any state, for the room's
participants (Band Cloud's human API has no board reads; agents keep the board through the
agent API), so a person sees what the agents planned. ``PATCH /api/v1/me/chats/{chat_id}``
``{"chat": {"title"}}``: the room's owner renames it, as the agent API's rename does.
"""

from __future__ import annotations

from starlette.responses import Response
from starlette.routing import Route

from . import shapes
from . import store_tasks as st
from .bodies import RenameBody
from .http import Ctx, data, endpoint
from .inputs import accepts
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


@human
@accepts(body=RenameBody)
async def rename_room(ctx: Ctx) -> Response:
    """PATCH /me/chats/{chat_id} (the owner renames the room, a band dev addition)."""
    title = ctx.body(RenameBody).chat.title
    room = await ctx.db.run(Store.member_room, ctx.params["chat_id"], ctx.principal.id)
    return data(shapes.chat_room(await ctx.db.run(Store.rename_room, room.id, title)))


routes = [
    Route("/api/v1/me/chats/{chat_id}/board", room_board, methods=["GET"]),
    Route("/api/v1/me/chats/{chat_id}", rename_room, methods=["PATCH"]),
]
