"""What the web view's room page needs beyond Band Cloud's human API (band dev additions).

``GET /api/v1/me/chats/{chat_id}/board``: the goal and every task, any state, for the room's
participants (Band Cloud's human API has no board reads; agents keep the board through the
agent API), so a person sees what the agents planned. ``PATCH /api/v1/me/chats/{chat_id}``
``{"chat": {"title"}}``: the room's owner renames it, as the agent API's rename does.
"""

from __future__ import annotations

from starlette.responses import Response

from band.core import wire
from band.core.wire import JsonObject

from ..contract import shapes
from ..contract.bodies import RenameBody
from ..store import tasks as st
from ..store.db import Store
from .http import Ctx, data
from .operations import Operation, declare

__all__ = ["routes"]

#: Tasks shown on the board, at most.
MAX_TASKS = 200


async def room_board(ctx: Ctx) -> Response:
    """GET /me/chats/{chat_id}/board (the goal and the tasks, a band dev addition)."""
    rid = ctx.params["chat_id"]
    await ctx.member_room(rid)
    board = await ctx.db.run(st.get_board, rid)
    tasks, more, _ = await ctx.db.run(st.list_tasks, rid, "all", None, MAX_TASKS)
    return data({"board": board, "tasks": tasks, "more": more})


async def rename_room(ctx: Ctx) -> Response:
    """PATCH /me/chats/{chat_id} (the owner renames the room, a band dev addition)."""
    title = ctx.body(RenameBody).chat.title
    room = await ctx.member_room()
    return data(shapes.chat_room(await ctx.db.run(Store.rename_room, room.id, title)))


routes = declare(
    Operation(
        "GET", "/api/v1/me/chats/{chat_id}/board", room_board, rule="read", answer=(200, JsonObject)
    ),
    Operation(
        "PATCH",
        "/api/v1/me/chats/{chat_id}",
        rename_room,
        rule="rename",
        answer=(200, wire.RoomDetails),
        body=RenameBody,
    ),
)
