"""Room task board routes (agent API rows 29-35) and the human ``GET /me/peers``."""

from __future__ import annotations

from typing import Any

from starlette.responses import Response
from starlette.routing import Route

from . import ops, shapes
from . import store_tasks as st
from .http import Ctx, data, endpoint, offset_page
from .store import Store, StoreError

agent = endpoint("agent")
human = endpoint("user")
UPDATE_FIELDS = ("status", "active_form", "comment", "subject", "detail", "state")
BOARD_FIELDS = ("goal_title", "goal_summary")
PEER_TYPES = ("User", "Agent")


def _bad(field: str, message: str) -> StoreError:
    return StoreError(422, "validation_error", message, {field: ["is invalid"]})


async def _room(ctx: Ctx) -> str:
    rid: str = ctx.params["chat_id"]
    await ctx.db.run(Store.member_room, rid, ctx.principal.id)
    return rid


def _include_history(ctx: Ctx) -> bool:
    include = ctx.request.query_params.get("include")
    if include not in (None, "", "history"):
        raise _bad("include", "include must be 'history' or omitted")
    return include == "history"


def _strings(body: dict[str, Any], names: tuple[str, ...]) -> dict[str, Any]:
    out = {}
    for name in names:
        if name in body and body[name] is not None:
            if not isinstance(body[name], str):
                raise _bad(name, f"{name} must be a string")
            out[name] = body[name]
    return out


def _cursor_meta(more: bool, limit: int, nxt: int | None) -> dict[str, Any]:
    return {"has_more": more, "limit": limit, "next_cursor": str(nxt) if nxt else None}


@agent
async def list_tasks(ctx: Ctx) -> Response:
    """GET /agent/chats/{chat_id}/tasks."""
    state = ctx.request.query_params.get("state") or "active"
    if state not in st.LIST_STATES:
        raise _bad("state", "invalid state")
    limit = ctx.int_q("limit", 50, 1, 100) or 50
    cursor = ctx.int_q("cursor", None, 0)
    rid = await _room(ctx)
    items, more, nxt = await ctx.db.run(st.list_tasks, rid, state, cursor, limit)
    return data(items, metadata=_cursor_meta(more, limit, nxt))


@agent
async def create_task(ctx: Ctx) -> Response:
    """POST /agent/chats/{chat_id}/tasks (flat body)."""
    body = await ctx.body()
    fields = _strings(body, ("subject", "detail", "supersedes_id"))
    subject = fields.get("subject", "").strip()
    if not subject:
        raise _bad("subject", "subject can't be blank")
    rid = await _room(ctx)
    task = await ctx.db.run(
        st.create_task,
        rid,
        ctx.principal.id,
        subject,
        fields.get("detail", ""),
        fields.get("supersedes_id") or None,
    )
    await ops.push_task(ctx, rid, "task_created", task)
    if fields.get("supersedes_id"):  # the old task changed too (state superseded)
        old = await ctx.db.run(st.get_task, rid, fields["supersedes_id"])
        await ops.push_task(ctx, rid, "task_updated", old)
    return data(task, 201)


@agent
async def get_task(ctx: Ctx) -> Response:
    """GET /agent/chats/{chat_id}/tasks/{id} (``include=history``)."""
    history = _include_history(ctx)
    rid = await _room(ctx)
    return data(await ctx.db.run(st.get_task, rid, ctx.params["task_id"], history))


@agent
async def update_task(ctx: Ctx) -> Response:
    """POST /agent/chats/{chat_id}/tasks/{id} (flat body, at least one field)."""
    body = await ctx.body()
    fields = _strings(body, (*UPDATE_FIELDS, "linked_native_id"))
    if not fields:
        raise StoreError(
            422,
            "validation_error",
            "At least one of status, active_form, comment, subject, detail, or state must be set",
            {"body": ["no updatable field"]},
        )
    if "status" in fields and fields["status"] not in st.TASK_STATUSES:
        raise _bad("status", "invalid status")
    if "state" in fields and fields["state"] not in st.SET_STATES:
        raise _bad("state", "invalid state")
    if "subject" in fields and not fields["subject"].strip():
        raise _bad("subject", "subject can't be blank")
    if "comment" in fields and not fields["comment"].strip():
        raise _bad("comment", "comment can't be blank")
    rid = await _room(ctx)
    task = await ctx.db.run(st.update_task, rid, ctx.params["task_id"], ctx.principal.id, fields)
    await ops.push_task(ctx, rid, "task_updated", task)
    return data(task)


@agent
async def task_history(ctx: Ctx) -> Response:
    """GET /agent/chats/{chat_id}/tasks/{id}/history."""
    limit = ctx.int_q("limit", 50, 1, 100) or 50
    cursor = ctx.int_q("cursor", None, 0)
    rid = await _room(ctx)
    items, more, nxt = await ctx.db.run(st.task_history, rid, ctx.params["task_id"], cursor, limit)
    return data(items, metadata=_cursor_meta(more, limit, nxt))


@agent
async def get_board(ctx: Ctx) -> Response:
    """GET /agent/chats/{chat_id}/board (``include=history``)."""
    history = _include_history(ctx)
    rid = await _room(ctx)
    return data(await ctx.db.run(st.get_board, rid, history))


@agent
async def put_board(ctx: Ctx) -> Response:
    """PUT /agent/chats/{chat_id}/board (flat body, only the sent fields change)."""
    body = await ctx.body()
    fields = _strings(body, BOARD_FIELDS)
    if not fields:
        raise StoreError(
            422,
            "validation_error",
            "At least one of goal_title or goal_summary must be set",
            {"body": ["no goal field"]},
        )
    rid = await _room(ctx)
    return data(await ctx.db.run(st.put_board, rid, ctx.principal.id, fields))


@human
async def my_peers(ctx: Ctx) -> Response:
    """GET /me/peers (q: not_in_chat, type, page, page_size; offset metadata)."""
    page, size = ctx.page()
    kind = ctx.request.query_params.get("type") or None
    if kind is not None and kind not in PEER_TYPES:
        raise _bad("type", "type must be User or Agent")
    not_in = ctx.request.query_params.get("not_in_chat") or None
    if not_in:
        await ctx.db.run(Store.member_room, not_in, ctx.principal.id)
    rows = await ctx.db.run(Store.peers, ctx.principal.id, not_in)
    if kind:
        rows = [r for r in rows if r["type"] == kind]
    return offset_page(ctx, rows, page, size, shapes.peer)


C = "/api/v1/agent/chats/{chat_id}"
T = C + "/tasks/{task_id}"
routes = [
    Route(C + "/tasks", list_tasks, methods=["GET"]),
    Route(C + "/tasks", create_task, methods=["POST"]),
    Route(T, get_task, methods=["GET"]),
    Route(T, update_task, methods=["POST"]),
    Route(T + "/history", task_history, methods=["GET"]),
    Route(C + "/board", get_board, methods=["GET"]),
    Route(C + "/board", put_board, methods=["PUT"]),
    Route("/api/v1/me/peers", my_peers, methods=["GET"]),
]
