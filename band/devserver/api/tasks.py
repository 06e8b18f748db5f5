"""Room task board routes (agent API rows 29-35) and the human ``GET /me/peers``."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import msgspec
from starlette.responses import Response

from band.core import wire
from band.core.wire import ListChatTasksResponseMetadata

from ..contract import shapes
from ..contract.bodies import BoardBody, TaskCreateBody, TaskUpdateBody
from ..contract.queries import CursorQuery, HistoryQuery, MyPeersQuery, TasksQuery
from ..store import tasks as st
from ..store.db import Store
from ..store.tasks import BoardTask
from . import writes
from .http import Ctx, data, offset_page
from .operations import Operation, declare

#: A keyset page: the rows, whether more follow, and the cursor of the next page.
Keyset = tuple[Sequence[msgspec.Struct], bool, int | None]


async def _cursor_page(
    ctx: Ctx, q: CursorQuery, fetch: Callable[..., Keyset], *args: Any
) -> Response:
    """One keyset page of ``fetch(*args, cursor, limit)`` (50 rows unless ``limit``)."""
    limit = q.limit or 50
    items, more, nxt = await ctx.db.run(fetch, *args, q.cursor, limit)
    # the task history's paging (GetChatTaskHistoryResponseMetadata) has the same fields
    meta = ListChatTasksResponseMetadata(
        has_more=more, limit=limit, next_cursor=str(nxt) if nxt else None
    )
    return data(items, metadata=meta)


async def list_tasks(ctx: Ctx) -> Response:
    """GET /agent/chats/{chat_id}/tasks."""
    q = ctx.query(TasksQuery)
    return await _cursor_page(ctx, q, st.list_tasks, (await ctx.member_room()).id, q.state)


async def create_task(ctx: Ctx) -> Response:
    """POST /agent/chats/{chat_id}/tasks (flat body)."""
    new = ctx.body(TaskCreateBody)
    supersedes = new.supersedes_id or None
    rid = (await ctx.member_room()).id
    task = await ctx.db.run(
        st.create_task, rid, ctx.principal.id, new.subject.strip(), new.detail or "", supersedes
    )
    await writes.push_task(ctx, rid, "task_created", task)
    if supersedes:  # the old task changed too (state superseded)
        old = await ctx.db.run(st.get_task, rid, supersedes)
        await writes.push_task(ctx, rid, "task_updated", old)
    return data(task, 201)


async def get_task(ctx: Ctx) -> Response:
    """GET /agent/chats/{chat_id}/tasks/{id} (``include=history``)."""
    history = ctx.query(HistoryQuery).include == "history"
    rid = (await ctx.member_room()).id
    return data(await ctx.db.run(st.get_task, rid, ctx.params["task_id"], history))


async def update_task(ctx: Ctx) -> Response:
    """POST /agent/chats/{chat_id}/tasks/{id} (flat body, at least one field)."""
    fields = ctx.body(TaskUpdateBody).model_dump(exclude_none=True)
    rid = (await ctx.member_room()).id
    task = await ctx.db.run(st.update_task, rid, ctx.params["task_id"], ctx.principal.id, fields)
    await writes.push_task(ctx, rid, "task_updated", task)
    return data(task)


async def task_history(ctx: Ctx) -> Response:
    """GET /agent/chats/{chat_id}/tasks/{id}/history."""
    rid = (await ctx.member_room()).id
    return await _cursor_page(
        ctx, ctx.query(CursorQuery), st.task_history, rid, ctx.params["task_id"]
    )


async def get_board(ctx: Ctx) -> Response:
    """GET /agent/chats/{chat_id}/board (``include=history``)."""
    history = ctx.query(HistoryQuery).include == "history"
    rid = (await ctx.member_room()).id
    return data(await ctx.db.run(st.get_board, rid, history))


async def put_board(ctx: Ctx) -> Response:
    """PUT /agent/chats/{chat_id}/board (flat body, only the sent fields change)."""
    fields = ctx.body(BoardBody).model_dump(exclude_none=True)
    rid = (await ctx.member_room()).id
    return data(await ctx.db.run(st.put_board, rid, ctx.principal.id, fields))


async def my_peers(ctx: Ctx) -> Response:
    """GET /me/peers (q: not_in_chat, type, page, page_size; offset metadata)."""
    q = ctx.query(MyPeersQuery)
    page, size, kind, not_in = q.page, q.page_size, q.type, q.not_in_chat
    if not_in:
        await ctx.member_room(not_in)
    rows = await ctx.db.run(Store.peers, ctx.principal.id, not_in)
    if kind:
        rows = [r for r in rows if r.type == kind]
    return offset_page(ctx, rows, page, size, shapes.peer)


C = "/api/v1/agent/chats/{chat_id}"
T = C + "/tasks/{task_id}"
routes = declare(
    Operation(
        "GET",
        C + "/tasks",
        list_tasks,
        rule="read",
        answer=(200, list[BoardTask]),
        query=TasksQuery,
    ),
    Operation(
        "POST", C + "/tasks", create_task, rule="post", answer=(201, BoardTask), body=TaskCreateBody
    ),
    Operation("GET", T, get_task, rule="read", answer=(200, BoardTask), query=HistoryQuery),
    Operation("POST", T, update_task, rule="post", answer=(200, BoardTask), body=TaskUpdateBody),
    Operation(
        "GET",
        T + "/history",
        task_history,
        rule="read",
        answer=(200, list[wire.TaskEvent]),
        query=CursorQuery,
    ),
    Operation(
        "GET", C + "/board", get_board, rule="read", answer=(200, wire.Board), query=HistoryQuery
    ),
    Operation(
        "PUT", C + "/board", put_board, rule="post", answer=(200, wire.Board), body=BoardBody
    ),
    Operation(
        "GET",
        "/api/v1/me/peers",
        my_peers,
        rule="peers",
        answer=(200, list[wire.Peer]),
        query=MyPeersQuery,
    ),
)
