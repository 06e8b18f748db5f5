"""Agent API routes (``/api/v1/agent/...``, agent keys)."""

from __future__ import annotations

import logging
from typing import Any

from starlette.responses import Response
from starlette.routing import Route

from band.core.wire import ActivityResponse, EventCreatedResponse, MessageStatusResponse

from . import control, room_views, shapes, writes
from .bodies import (
    ActivityBody,
    ChatBody,
    EventBody,
    FailedBody,
    MessageBody,
    RenameBody,
)
from .http import Ctx, cursor_meta, data, endpoint, offset_meta, offset_page, page_slice
from .inputs import accepts
from .queries import (
    AgentChatsQuery,
    AgentMessagesQuery,
    PeersQuery,
    RoomPageQuery,
    includes,
)
from .rows import MessageRecord
from .store import Store

#: One line per settled turn (the agent named, not only its id): what band dev saw of it.
turns_log = logging.getLogger("band.devserver.turns")

agent = endpoint("agent")


@agent
async def me(ctx: Ctx) -> Response:
    """GET /agent/me."""
    row = await ctx.db.run(Store.agent, ctx.principal.id)
    assert row is not None  # the principal was authenticated from this very row
    return data(shapes.agent_me(row))


@agent
@accepts(query=AgentChatsQuery)
async def list_chats(ctx: Ctx) -> Response:
    """GET /agent/chats (``include=participants`` adds each room's roster)."""
    q = ctx.query(AgentChatsQuery)
    page, size, wanted = q.page, q.page_size, includes(q.include)
    rooms, total = await ctx.db.run(Store.rooms_of, ctx.principal.id, page, size)
    rows = [await room_views.agent_room(ctx, r, wanted) for r in rooms]
    return data(rows, metadata=offset_meta(page, size, total))


@agent
@accepts(body=ChatBody)
async def create_chat(ctx: Ctx) -> Response:
    """POST /agent/chats."""
    return data(shapes.chat_room(await writes.create_room(ctx)), 201)


@agent
async def get_chat(ctx: Ctx) -> Response:
    """GET /agent/chats/{id}."""
    room = await ctx.db.run(Store.member_room, ctx.params["chat_id"], ctx.principal.id)
    return data(shapes.chat_room(room))


@agent
@accepts(body=RenameBody)
async def rename_chat(ctx: Ctx) -> Response:
    """PATCH /agent/chats/{id}."""
    title = ctx.body(RenameBody).chat.title
    room = await ctx.db.run(Store.member_room, ctx.params["chat_id"], ctx.principal.id)
    return data(shapes.chat_room(await ctx.db.run(Store.rename_room, room.id, title)))


@agent
@accepts(query=AgentMessagesQuery)
async def list_messages(ctx: Ctx) -> Response:
    """GET /agent/chats/{chat_id}/messages (messages mentioning the agent)."""
    rid = ctx.params["chat_id"]
    q = ctx.query(AgentMessagesQuery)
    status, order, limit, cursor = q.status, q.sort_order, q.size(20), q.cursor
    await ctx.db.run(Store.member_room, rid, ctx.principal.id)
    if _offset_paged(q):  # the deprecated offset family the official SDK still sends
        every, _ = await ctx.db.run(
            Store.agent_messages, rid, ctx.principal.id, status, None, _ALL, order == "desc"
        )
        items, meta = _offset_window(q, every, 20)
        meta["status_filter"] = status
        return data([shapes.message(m) for m in items], metadata=meta)
    items, more = await ctx.db.run(
        Store.agent_messages, rid, ctx.principal.id, status, cursor, limit, order == "desc"
    )
    meta = {**cursor_meta(items, more, limit), "status_filter": status}
    return data([shapes.message(m) for m in items], metadata=meta)


@agent
@accepts(body=MessageBody)
async def post_message(ctx: Ctx) -> Response:
    """POST /agent/chats/{chat_id}/messages."""
    control.refuse_if_stopped(ctx, ctx.params["chat_id"])
    return data(await writes.post_message(ctx, ctx.params["chat_id"], require_mention=True), 201)


@agent
async def next_message(ctx: Ctx) -> Response:
    """GET /agent/chats/{chat_id}/messages/next (204 when nothing is pending)."""
    rid = ctx.params["chat_id"]
    await ctx.db.run(Store.member_room, rid, ctx.principal.id)
    msg = await ctx.db.run(Store.next_message, rid, ctx.principal.id)
    return Response(status_code=204) if msg is None else data(shapes.message(msg))


async def _mark(ctx: Ctx, state: str) -> Response:
    rid, mid = ctx.params["chat_id"], ctx.params["message_id"]
    await ctx.db.run(Store.member_room, rid, ctx.principal.id)
    if state == "processing":
        status, attempt = await ctx.db.run(Store.mark_processing, rid, mid, ctx.principal.id)
    else:
        error = None
        if state == "failed":
            error = ctx.body(FailedBody).error or "Unknown error"
        status, attempt = await ctx.db.run(Store.mark_done, rid, mid, ctx.principal.id, error)
        turns_log.info(
            "turn: agent %s (%s) marked message %s %s in room %s (attempt %s)%s",
            ctx.principal.name, ctx.principal.id, mid, state, rid, attempt,
            f": {error}" if error else "",
        )  # fmt: skip
    await writes.push_update(ctx, mid, ctx.principal)
    return data(MessageStatusResponse(id=mid, status=status, attempt_number=attempt, success=True))


@agent
async def mark_processing(ctx: Ctx) -> Response:
    """POST .../messages/{id}/processing (204 while the agent is stopped in the room)."""
    if control.stopped(ctx, ctx.params["chat_id"]):
        return Response(status_code=204)
    return await _mark(ctx, "processing")


@agent
async def mark_processed(ctx: Ctx) -> Response:
    """POST .../messages/{id}/processed."""
    return await _mark(ctx, "processed")


@agent
@accepts(body=FailedBody)
async def mark_failed(ctx: Ctx) -> Response:
    """POST .../messages/{id}/failed."""
    return await _mark(ctx, "failed")


@agent
@accepts(body=EventBody)
async def create_event(ctx: Ctx) -> Response:
    """POST /agent/chats/{chat_id}/events (stored as a non-text message, never a turn)."""
    rid = ctx.params["chat_id"]
    control.refuse_if_stopped(ctx, rid)
    event = ctx.body(EventBody).event
    content, mtype, meta = event.content, event.message_type, event.metadata or {}
    await ctx.db.run(Store.member_room, rid, ctx.principal.id)
    msg = await ctx.db.run(Store.create_message, rid, ctx.principal, content, mtype, [], meta)
    await writes.push(ctx, f"chat_room:{rid}", "event_created", shapes.message(msg))
    return data(EventCreatedResponse(id=msg.id, success=True, message_type=mtype), 201)


@agent
@accepts(query=RoomPageQuery)
async def context(ctx: Ctx) -> Response:
    """GET /agent/chats/{chat_id}/context."""
    rid = ctx.params["chat_id"]
    q = ctx.query(RoomPageQuery)
    limit, cursor = q.size(50), q.cursor
    await ctx.db.run(Store.member_room, rid, ctx.principal.id)
    if _offset_paged(q):
        every, _ = await ctx.db.run(Store.context, rid, ctx.principal.id, None, _ALL)
        items, meta = _offset_window(q, every, 50)
    else:
        items, more = await ctx.db.run(Store.context, rid, ctx.principal.id, cursor, limit)
        meta = cursor_meta(items, more, limit)
    return data([shapes.message(m) for m in items], metadata=meta, meta=meta)


#: "no limit" for the offset family, which pages the whole listing
_ALL = 1_000_000


def _offset_paged(q: RoomPageQuery) -> bool:
    """True when the request pages by ``page`` (and not by ``cursor``)."""
    return q.page is not None and q.cursor is None


def _offset_window(
    q: RoomPageQuery, rows: list[MessageRecord], default_size: int
) -> tuple[list[MessageRecord], dict[str, Any]]:
    """Page ``page`` of ``rows`` and its metadata: offset fields plus the cursor ones."""
    page = q.page or 1
    size = q.page_size or q.limit or default_size
    meta: dict[str, Any] = offset_meta(page, size, len(rows))
    meta.update(has_more=page < meta["total_pages"], limit=size, next_cursor=None)
    return page_slice(rows, page, size), meta


@agent
async def list_participants(ctx: Ctx) -> Response:
    """GET /agent/chats/{chat_id}/participants."""
    rid = ctx.params["chat_id"]
    await ctx.db.run(Store.member_room, rid, ctx.principal.id)
    parts = await ctx.db.run(Store.participants, rid)
    return data([shapes.participant(p, ctx.fanout.online(p.id)) for p in parts])


add_participant = agent(writes.add_participant)
remove_participant = agent(writes.remove_participant)


@agent
@accepts(query=PeersQuery)
async def peers(ctx: Ctx) -> Response:
    """GET /agent/peers."""
    q = ctx.query(PeersQuery)
    rows = await ctx.db.run(Store.peers, ctx.principal.id, q.not_in_chat)
    return offset_page(ctx, rows, q.page, q.page_size, shapes.peer)


@agent
@accepts(body=ActivityBody)
async def activity(ctx: Ctx) -> Response:
    """POST /agent/chats/{chat_id}/activity (echoes ``working``)."""
    rid = ctx.params["chat_id"]
    working = ctx.body(ActivityBody).working
    await ctx.db.run(Store.member_room, rid, ctx.principal.id)
    return data(ActivityResponse(working=working))


P = "/api/v1/agent"
C = P + "/chats/{chat_id}"
M = C + "/messages/{message_id}"
routes = [
    Route(P + "/me", me, methods=["GET"]),
    Route(P + "/chats", list_chats, methods=["GET"]),
    Route(P + "/chats", create_chat, methods=["POST"]),
    Route(C, get_chat, methods=["GET"]),
    Route(C, rename_chat, methods=["PATCH"]),
    Route(C + "/messages", list_messages, methods=["GET"]),
    Route(C + "/messages", post_message, methods=["POST"]),
    Route(C + "/messages/next", next_message, methods=["GET"]),
    Route(M + "/processing", mark_processing, methods=["POST"]),
    Route(M + "/processed", mark_processed, methods=["POST"]),
    Route(M + "/failed", mark_failed, methods=["POST"]),
    Route(C + "/events", create_event, methods=["POST"]),
    Route(C + "/context", context, methods=["GET"]),
    Route(C + "/activity", activity, methods=["POST"]),
    Route(C + "/participants", list_participants, methods=["GET"]),
    Route(C + "/participants", add_participant, methods=["POST"]),
    Route(C + "/participants/{pid}", remove_participant, methods=["DELETE"]),
    Route(P + "/peers", peers, methods=["GET"]),
]
