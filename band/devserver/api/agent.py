"""Agent API routes (``/api/v1/agent/...``, agent keys)."""

from __future__ import annotations

import logging
from typing import Any

import msgspec
from starlette.responses import Response

from band.core import wire
from band.core.wire import ActivityResponse, EventCreatedResponse, MessageStatusResponse

from ..contract import shapes
from ..contract.bodies import (
    ActivityBody,
    ChatBody,
    EventBody,
    FailedBody,
    RenameBody,
)
from ..contract.queries import (
    AgentChatsQuery,
    AgentMessagesQuery,
    PeersQuery,
    RoomPageQuery,
    includes,
)
from ..contract.views import AgentChatRoom
from ..store.db import Store
from ..store.rows import MessageRecord
from . import control, room_views, writes
from .http import Ctx, bound, cursor_meta, data, offset_meta, offset_page
from .operations import NO_BODY, Operation, declare

#: One line per settled turn (the agent named, not only its id): what band dev saw of it.
turns_log = logging.getLogger("band.devserver.turns")


async def me(ctx: Ctx) -> Response:
    """GET /agent/me."""
    row = await ctx.db.run(Store.agent, ctx.principal.id)
    assert row is not None  # the principal was authenticated from this very row
    return data(shapes.agent_me(row))


async def list_chats(ctx: Ctx) -> Response:
    """GET /agent/chats (``include=participants`` adds each room's roster)."""
    q = ctx.query(AgentChatsQuery)
    page, size, wanted = q.page, q.page_size, includes(q.include)
    rooms, total = await ctx.db.run(Store.rooms_of, ctx.principal.id, page, size)
    rows = [await room_views.agent_room(ctx, r, wanted) for r in rooms]
    return data(rows, metadata=offset_meta(page, size, total))


async def create_chat(ctx: Ctx) -> Response:
    """POST /agent/chats."""
    return data(shapes.chat_room(await writes.create_room(ctx)), 201)


async def get_chat(ctx: Ctx) -> Response:
    """GET /agent/chats/{id}."""
    room = await ctx.member_room()
    return data(shapes.chat_room(room))


async def rename_chat(ctx: Ctx) -> Response:
    """PATCH /agent/chats/{id}."""
    title = ctx.body(RenameBody).chat.title
    room = await ctx.member_room()
    return data(shapes.chat_room(await ctx.db.run(Store.rename_room, room.id, title)))


async def list_messages(ctx: Ctx) -> Response:
    """GET /agent/chats/{chat_id}/messages (messages mentioning the agent)."""
    rid = ctx.params["chat_id"]
    q = ctx.query(AgentMessagesQuery)
    status, order, limit, cursor = q.status, q.sort_order, q.size(20), q.cursor
    await ctx.member_room(rid)
    if _offset_paged(q):  # the deprecated offset family the official SDK still sends
        total = await ctx.db.run(Store.count_agent_messages, rid, ctx.principal.id, status)
        skip, size, meta = _offset_window(q, total, 20)
        items, _ = await ctx.db.run(
            Store.agent_messages, rid, ctx.principal.id, status, None, size, order == "desc", skip
        )
        meta["status_filter"] = status
        return data([shapes.message(m) for m in items], metadata=meta)
    items, more = await ctx.db.run(
        Store.agent_messages, rid, ctx.principal.id, status, cursor, limit, order == "desc"
    )
    meta = {**cursor_meta(items, more, limit), "status_filter": status}
    return data([shapes.message(m) for m in items], metadata=meta)


async def post_message(ctx: Ctx) -> Response:
    """POST /agent/chats/{chat_id}/messages."""
    control.refuse_if_stopped(ctx, ctx.params["chat_id"])
    return data(await writes.post_message(ctx, ctx.params["chat_id"], require_mention=True), 201)


async def next_message(ctx: Ctx) -> Response:
    """GET /agent/chats/{chat_id}/messages/next (204 when nothing is pending)."""
    rid = ctx.params["chat_id"]
    await ctx.member_room(rid)
    msg = await ctx.db.run(Store.next_message, rid, ctx.principal.id)
    return Response(status_code=204) if msg is None else data(shapes.message(msg))


async def _mark(ctx: Ctx, state: str) -> Response:
    rid, mid = ctx.params["chat_id"], ctx.params["message_id"]
    await ctx.member_room(rid)
    error = (ctx.body(FailedBody).error or "Unknown error") if state == "failed" else None
    status, attempt, msg, payload = await ctx.db.run(
        settle, rid, mid, ctx.principal.id, state, error
    )
    if state != "processing":
        turns_log.info(
            "turn: agent %s (%s) marked message %s %s in room %s (attempt %s)%s",
            ctx.principal.name, ctx.principal.id, mid, state, rid, attempt,
            f": {error}" if error else "",
        )  # fmt: skip
    await writes.push_update(ctx, msg, payload)
    return data(MessageStatusResponse(id=mid, status=status, attempt_number=attempt, success=True))


def settle(
    store: Store, rid: str, mid: str, aid: str, state: str, error: str | None
) -> tuple[str, int, MessageRecord, msgspec.Raw]:
    """Mark ``mid`` ``state`` for ``aid`` and record the ``message_updated`` push of the
    message as marked, in one transaction: (status, attempt, message, the push's JSON)."""
    with store.transaction():
        if state == "processing":
            status, attempt = store.mark_processing(rid, mid, aid)
        else:
            status, attempt = store.mark_done(rid, mid, aid, error)
        msg = store.message(mid)
        assert msg is not None  # the mark found it in this transaction
        return status, attempt, msg, writes.log_message(store, "message_updated", msg)


async def mark_processing(ctx: Ctx) -> Response:
    """POST .../messages/{id}/processing (204 while the agent is stopped in the room)."""
    if control.stopped(ctx, ctx.params["chat_id"]):
        return Response(status_code=204)
    return await _mark(ctx, "processing")


mark_processed = bound(_mark, "mark_processed", "POST .../messages/{id}/processed.", "processed")
mark_failed = bound(_mark, "mark_failed", "POST .../messages/{id}/failed.", "failed")


async def create_event(ctx: Ctx) -> Response:
    """POST /agent/chats/{chat_id}/events (stored as a non-text message, never a turn)."""
    rid = ctx.params["chat_id"]
    control.refuse_if_stopped(ctx, rid)
    event = ctx.body(EventBody).event
    content, mtype, meta = event.content, event.message_type, event.metadata or {}
    await ctx.member_room(rid)
    msg, payload = await ctx.db.run(
        writes.message_logged,
        "event_created",
        lambda store: store.create_message(rid, ctx.principal, content, mtype, [], meta),
    )
    await ctx.fanout.push(f"chat_room:{rid}", "event_created", payload)
    return data(EventCreatedResponse(id=msg.id, success=True, message_type=mtype), 201)


async def context(ctx: Ctx) -> Response:
    """GET /agent/chats/{chat_id}/context."""
    rid = ctx.params["chat_id"]
    q = ctx.query(RoomPageQuery)
    limit, cursor = q.size(50), q.cursor
    await ctx.member_room(rid)
    if _offset_paged(q):
        total = await ctx.db.run(Store.count_context, rid, ctx.principal.id)
        skip, size, meta = _offset_window(q, total, 50)
        items, _ = await ctx.db.run(Store.context, rid, ctx.principal.id, None, size, skip)
    else:
        items, more = await ctx.db.run(Store.context, rid, ctx.principal.id, cursor, limit)
        meta = cursor_meta(items, more, limit)
    return data([shapes.message(m) for m in items], metadata=meta, meta=meta)


def _offset_paged(q: RoomPageQuery) -> bool:
    """True when the request pages by ``page`` (and not by ``cursor``)."""
    return q.page is not None and q.cursor is None


def _offset_window(
    q: RoomPageQuery, total: int, default_size: int
) -> tuple[int, int, dict[str, Any]]:
    """Page ``page`` of a listing of ``total`` rows: the rows to skip, the page size, and the
    metadata (offset fields plus the cursor ones); the store reads that page alone."""
    page = q.page or 1
    size = q.page_size or q.limit or default_size
    meta: dict[str, Any] = offset_meta(page, size, total)
    meta.update(has_more=page < meta["total_pages"], limit=size, next_cursor=None)
    return (page - 1) * size, size, meta


async def list_participants(ctx: Ctx) -> Response:
    """GET /agent/chats/{chat_id}/participants."""
    rid = ctx.params["chat_id"]
    await ctx.member_room(rid)
    parts = await ctx.db.run(Store.participants, rid)
    return data([shapes.participant(p, ctx.fanout.online(p.id)) for p in parts])


async def peers(ctx: Ctx) -> Response:
    """GET /agent/peers."""
    q = ctx.query(PeersQuery)
    rows = await ctx.db.run(Store.peers, ctx.principal.id, q.not_in_chat)
    return offset_page(ctx, rows, q.page, q.page_size, shapes.peer)


async def activity(ctx: Ctx) -> Response:
    """POST /agent/chats/{chat_id}/activity (echoes ``working``)."""
    rid = ctx.params["chat_id"]
    working = ctx.body(ActivityBody).working
    await ctx.member_room(rid)
    return data(ActivityResponse(working=working))


P = "/api/v1/agent"
C = P + "/chats/{chat_id}"
M = C + "/messages/{message_id}"
routes = declare(
    Operation("GET", P + "/me", me, rule="self", answer=(200, wire.AgentMe)),
    Operation(
        "GET",
        P + "/chats",
        list_chats,
        rule="self",
        answer=(200, list[AgentChatRoom]),
        query=AgentChatsQuery,
    ),
    Operation(
        "POST",
        P + "/chats",
        create_chat,
        rule="self",
        answer=(201, wire.RoomDetails),
        body=ChatBody,
    ),
    Operation("GET", C, get_chat, rule="read", answer=(200, wire.RoomDetails)),
    Operation(
        "PATCH", C, rename_chat, rule="rename", answer=(200, wire.RoomDetails), body=RenameBody
    ),
    *writes.message_routes(C, list_messages, AgentMessagesQuery, post_message),
    Operation(
        "GET", C + "/messages/next", next_message, rule="read", answer=(200, wire.MessageRow)
    ),
    Operation(
        "POST",
        M + "/processing",
        mark_processing,
        rule="mark",
        answer=(200, wire.MessageStatusResponse),
        body=NO_BODY,
    ),
    Operation(
        "POST",
        M + "/processed",
        mark_processed,
        rule="mark",
        answer=(200, wire.MessageStatusResponse),
        body=NO_BODY,
    ),
    Operation(
        "POST",
        M + "/failed",
        mark_failed,
        rule="mark",
        answer=(200, wire.MessageStatusResponse),
        body=FailedBody,
    ),
    Operation(
        "POST",
        C + "/events",
        create_event,
        rule="post",
        answer=(201, wire.EventCreatedResponse),
        body=EventBody,
    ),
    Operation(
        "GET",
        C + "/context",
        context,
        rule="read",
        answer=(200, list[wire.MessageRow]),
        query=RoomPageQuery,
    ),
    Operation(
        "POST",
        C + "/activity",
        activity,
        rule="post",
        answer=(200, wire.ActivityResponse),
        body=ActivityBody,
    ),
    Operation(
        "GET",
        C + "/participants",
        list_participants,
        rule="read",
        answer=(200, list[wire.Participant]),
    ),
    *writes.participant_routes(C),
    Operation(
        "GET", P + "/peers", peers, rule="peers", answer=(200, list[wire.Peer]), query=PeersQuery
    ),
)
