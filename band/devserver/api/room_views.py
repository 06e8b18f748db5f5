"""Room rows of the human API (``GET /me/chats``, ``GET /me/chats/{id}``) and the agent API's
room list with their ``include`` fields: activity summaries, rosters, membership."""

from __future__ import annotations

from collections.abc import Set
from typing import Any

import msgspec
from starlette.responses import Response

from band.core.wire import ChatParticipantDetails

from ..contract import keyset, shapes
from ..contract.queries import MyChatsQuery, includes
from ..contract.views import ROSTER_ROWS, AgentChatRoom, MyChatRoom
from ..store import rooms as store_rooms
from ..store.db import Store
from ..store.rows import RoomRow
from .http import Ctx, data, offset_meta, page_slice


async def roster(ctx: Ctx, rid: str) -> dict[str, Any]:
    """The ``include=participants`` fields: the first ``ROSTER_ROWS`` participants by id, the
    whole count, and whether rows were left out."""
    parts = sorted(await ctx.db.run(Store.participants, rid), key=lambda p: p.id)
    rows: list[ChatParticipantDetails] = [
        shapes.participant_details(p, ctx.fanout.online(p.id)) for p in parts[:ROSTER_ROWS]
    ]
    return {
        "participants": rows,
        "participant_count": len(parts),
        "participants_truncated": len(parts) > ROSTER_ROWS,
    }


async def my_room(
    ctx: Ctx,
    room: RoomRow,
    wanted: Set[str] = frozenset(),
    listed: store_rooms.Listed | None = None,
) -> MyChatRoom:
    """A room as the human API answers it, with the fields the ``wanted`` includes add."""
    parts = await ctx.db.run(Store.participants, room.id)
    base = msgspec.structs.asdict(shapes.me_chat_room(room, parts))
    extra: dict[str, Any] = {
        "last_message_at": await ctx.db.run(store_rooms.last_message_at, room.id),
        "task_counts": await ctx.db.run(store_rooms.task_counts, room.id),
    }
    if "message_counts" in wanted:
        extra["message_counts"] = await ctx.db.run(store_rooms.message_counts, room.id)
    if "participants" in wanted:
        extra.update(await roster(ctx, room.id))
    if "last_message" in wanted:
        last = await ctx.db.run(store_rooms.last_message, room.id)
        extra["last_message"] = shapes.message(last) if last is not None else None
    if "membership" in wanted and listed is not None:
        extra["membership"] = "participant" if listed.role is not None else "via_agent"
        extra["my_role"] = listed.role
        extra["my_status"] = "active" if listed.role is not None else None
        extra["via_agent_ids"] = listed.via_agent_ids
    return MyChatRoom(**base, **extra)


def _sort_key(sort_by: str) -> Any:
    return lambda r: (getattr(r, sort_by), r.id)


async def list_my_chats(ctx: Ctx) -> Response:
    """GET /me/chats: the caller's rooms (``include=agent_rooms``: and their agents' rooms),
    filtered by ``status`` / ``type``, sorted by ``sort_by`` / ``order``, paged by cursor
    (or the deprecated ``page`` / ``page_size``)."""
    q = ctx.query(MyChatsQuery)
    wanted = includes(q.include)
    agent_rooms = "agent_rooms" in wanted
    rows = await ctx.db.run(store_rooms.listable, ctx.principal.id, agent_rooms)
    rows = [
        r
        for r in rows
        if (q.status is None or r.status == q.status) and (q.type is None or r.type == q.type)
    ]
    desc, key = q.order == "desc", _sort_key(q.sort_by)
    meta: dict[str, Any]
    if q.page is not None or (q.page_size is not None and q.limit is None):
        page, size = q.page or 1, q.page_size or q.limit or 20
        ordered = sorted(rows, key=key, reverse=desc)
        chunk = page_slice(ordered, page, size)
        meta = {**offset_meta(page, size, len(rows)), "has_more": page * size < len(rows),
                "limit": size, "next_cursor": None}  # fmt: skip
    else:
        limit = q.limit or 20
        bound = [q.sort_by, q.order, agent_rooms]
        chunk, more, nxt = keyset.window(rows, key, limit, q.cursor, bound, descending=desc,
                                         mismatch="cursor_filter_mismatch")  # fmt: skip
        meta = {"has_more": more, "limit": limit, "next_cursor": nxt}
        if "total_count" in wanted and q.cursor is None:
            meta["total_count"] = len(rows)
    rooms = await ctx.db.run(Store.rooms_in_order, [r.id for r in chunk])
    listed = {r.id: r for r in chunk}
    items = [await my_room(ctx, room, wanted, listed[room.id]) for room in rooms]
    return data(items, metadata=meta)


async def agent_room(ctx: Ctx, room: RoomRow, wanted: Set[str]) -> AgentChatRoom:
    """A room of the agent API's list, with its roster when ``participants`` is wanted."""
    base = msgspec.structs.asdict(shapes.chat_room(room))
    extra = await roster(ctx, room.id) if "participants" in wanted else {}
    return AgentChatRoom(**base, **extra)
