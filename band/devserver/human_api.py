"""Human API routes (``/api/v1/me/...``, user keys)."""

from __future__ import annotations

from starlette.responses import Response
from starlette.routing import Route

from band.core.wire import MeChatRoom

from . import shapes, writes
from .bodies import ChatBody, MessageBody, ProfileBody, RegisterBody
from .http import Ctx, cursor_meta, data, endpoint, offset_meta, offset_page, page_slice
from .inputs import accepts
from .queries import HumanMessagesQuery, PageQuery, ParticipantsQuery
from .rows import RoomRow
from .store import MessageFilter, Store

human = endpoint("user")


@human
@accepts(body=RegisterBody)
async def register_agent(ctx: Ctx) -> Response:
    """POST /me/agents/register."""
    new = ctx.body(RegisterBody).agent
    agent, key = await ctx.db.run(Store.create_agent, ctx.principal.id, new.name, new.description)
    return data({"agent": shapes.my_agent(agent), "credentials": {"api_key": key}}, 201)


# metadata the band-rest ListMyAgentsResponse requires (band-mcp health_check reads it)
AGENT_FILTERS = [
    {"param": "name", "label": "Name", "type": "string"},
    {"param": "is_external", "label": "External", "type": "boolean"},
    {"param": "listed_in_directory", "label": "Listed in directory", "type": "boolean"},
]
AGENT_SORTS = [
    {"param": "name", "label": "Name"},
    {"param": "inserted_at", "label": "Created"},
    {"param": "updated_at", "label": "Updated"},
]


@human
@accepts(query=PageQuery)
async def list_agents(ctx: Ctx) -> Response:
    """GET /me/agents."""
    page, size = ctx.query(PageQuery).window()
    rows = await ctx.db.run(Store.agents_of, ctx.principal.id)
    chunk = page_slice(rows, page, size)
    meta = {
        **offset_meta(page, size, len(rows)),
        "has_more": page * size < len(rows),
        "limit": size,
        "next_cursor": None,
        "available_filters": AGENT_FILTERS,
        "sortable_fields": AGENT_SORTS,
    }
    return data([shapes.my_agent(a) for a in chunk], metadata=meta)


async def _me_room(ctx: Ctx, room: RoomRow) -> MeChatRoom:
    parts = await ctx.db.run(Store.participants, room.id)
    return shapes.me_chat_room(room, parts)


@human
@accepts(query=PageQuery)
async def list_chats(ctx: Ctx) -> Response:
    """GET /me/chats."""
    page, size = ctx.query(PageQuery).window()
    rooms, total = await ctx.db.run(Store.rooms_of, ctx.principal.id, page, size)
    items = [await _me_room(ctx, r) for r in rooms]
    return data(items, metadata=offset_meta(page, size, total))


@human
@accepts(body=ChatBody)
async def create_chat(ctx: Ctx) -> Response:
    """POST /me/chats."""
    room = await writes.create_room(ctx)
    return data(await _me_room(ctx, room), 201)


@human
async def get_chat(ctx: Ctx) -> Response:
    """GET /me/chats/{chat_id}."""
    room = await ctx.db.run(Store.member_room, ctx.params["chat_id"], ctx.principal.id)
    return data(await _me_room(ctx, room))


@human
@accepts(query=HumanMessagesQuery)
async def list_messages(ctx: Ctx) -> Response:
    """GET /me/chats/{chat_id}/messages (every room message; type and ``since`` filters)."""
    rid = ctx.params["chat_id"]
    q = ctx.query(HumanMessagesQuery)
    limit, cursor = q.size(20), q.cursor
    types, exclude = q.types()
    where = MessageFilter(types=types, exclude=exclude, since=q.since)
    await ctx.db.run(Store.member_room, rid, ctx.principal.id)
    items, more = await ctx.db.run(Store.room_messages, rid, cursor, limit, where)
    total = await ctx.db.run(Store.count_messages, rid, where)
    meta = {**cursor_meta(items, more, limit), "total_count": total}
    return data([shapes.message(m) for m in items], metadata=meta)


@human
@accepts(body=MessageBody)
async def post_message(ctx: Ctx) -> Response:
    """POST /me/chats/{chat_id}/messages."""
    return data(await writes.post_message(ctx, ctx.params["chat_id"], require_mention=False), 201)


@human
@accepts(query=ParticipantsQuery)
async def list_participants(ctx: Ctx) -> Response:
    """GET /me/chats/{chat_id}/participants."""
    rid = ctx.params["chat_id"]
    q = ctx.query(ParticipantsQuery)
    await ctx.db.run(Store.member_room, rid, ctx.principal.id)
    parts = await ctx.db.run(Store.participants, rid)
    if q.participant_type:
        parts = [p for p in parts if p.type == q.participant_type]
    return offset_page(ctx, parts, q.page, q.page_size, shapes.participant)


add_participant = human(writes.add_participant)
remove_participant = human(writes.remove_participant)


@human
async def profile(ctx: Ctx) -> Response:
    """GET /me/profile."""
    row = await ctx.db.run(Store.user, ctx.principal.id)
    assert row is not None  # the principal was authenticated from this very row
    return data(shapes.user_details(row))


@human
@accepts(body=ProfileBody)
async def update_profile(ctx: Ctx) -> Response:
    """PUT /me/profile."""
    names = ctx.body(ProfileBody).user
    first, last = names.first_name, names.last_name
    user = await ctx.db.run(Store.update_user_name, ctx.principal.id, first, last)
    return data(shapes.user_details(user))


@human
async def delete_agent(ctx: Ctx) -> Response:
    """DELETE /me/agents/{id}."""
    agent = await ctx.db.run(Store.delete_agent, ctx.principal.id, ctx.params["agent_id"])
    await ctx.fanout.disconnect(agent.id)  # out of its rooms: its sockets must not hear them
    return data(
        {
            "id": agent.id,
            "name": agent.name,
            "description": agent.description,
            "executions_deleted": 0,
        }
    )


P = "/api/v1/me"
C = P + "/chats/{chat_id}"
routes = [
    Route(P + "/agents/register", register_agent, methods=["POST"]),
    Route(P + "/agents", list_agents, methods=["GET"]),
    Route(P + "/agents/{agent_id}", delete_agent, methods=["DELETE"]),
    Route(P + "/chats", list_chats, methods=["GET"]),
    Route(P + "/chats", create_chat, methods=["POST"]),
    Route(C, get_chat, methods=["GET"]),
    Route(C + "/messages", list_messages, methods=["GET"]),
    Route(C + "/messages", post_message, methods=["POST"]),
    Route(C + "/participants", list_participants, methods=["GET"]),
    Route(C + "/participants", add_participant, methods=["POST"]),
    Route(C + "/participants/{pid}", remove_participant, methods=["DELETE"]),
    Route(P + "/profile", profile, methods=["GET"]),
    Route(P + "/profile", update_profile, methods=["PUT"]),
]
