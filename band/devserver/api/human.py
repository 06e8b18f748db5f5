"""Human API routes (``/api/v1/me/...``, user keys)."""

from __future__ import annotations

from typing import Any

from starlette.responses import Response

from band.core import wire
from band.core.wire import ChatParticipantDetails, JsonObject

from ..contract import keyset, shapes
from ..contract.bodies import ChatBody, ProfileBody, RegisterBody
from ..contract.queries import (
    ForceQuery,
    HumanMessagesQuery,
    MyAgentsQuery,
    MyChatQuery,
    MyChatsQuery,
    ParticipantsQuery,
    includes,
)
from ..contract.views import MyAgent, MyChatRoom, UserDetails
from ..store import rooms as store_rooms
from ..store.db import MessageFilter, Store
from ..store.rows import Member
from . import room_views, writes
from .http import Ctx, cursor_meta, data, offset_meta, page_slice
from .operations import Operation, declare


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


def _agent_key(sort: str) -> Any:
    if sort == "name":
        return lambda a: (a.name.casefold(), a.id)
    return lambda a: (getattr(a, sort), a.id)


async def list_agents(ctx: Ctx) -> Response:
    """GET /me/agents: ``name`` (case-insensitive substring), ``is_external`` and
    ``listed_in_directory`` filters (band dev's agents are neither external nor listed),
    ``sort`` / ``order``, cursor or the deprecated offset paging."""
    q = ctx.query(MyAgentsQuery)
    rows = await ctx.db.run(Store.agents_of, ctx.principal.id)
    if q.name is not None:
        rows = [a for a in rows if q.name.casefold() in a.name.casefold()]
    if q.is_external is True or q.listed_in_directory is True:
        rows = []
    key, desc = _agent_key(q.sort), q.order == "desc"
    meta: dict[str, Any] = {"available_filters": AGENT_FILTERS, "sortable_fields": AGENT_SORTS}
    if q.page is not None or (q.page_size is not None and q.limit is None):
        page, size = q.page or 1, q.page_size or 20
        chunk = page_slice(sorted(rows, key=key, reverse=desc), page, size)
        meta |= {**offset_meta(page, size, len(rows)), "has_more": page * size < len(rows),
                 "limit": size, "next_cursor": None}  # fmt: skip
    else:
        limit = q.limit or 20
        chunk, more, nxt = keyset.window(
            rows, key, limit, q.cursor, [q.sort, q.order], descending=desc
        )
        # both metadata shapes, as Band sends them while offset paging is deprecated
        meta |= {**offset_meta(1, limit, len(rows)), "has_more": more, "limit": limit,
                 "next_cursor": nxt}  # fmt: skip
    return data([shapes.my_agent(a) for a in chunk], metadata=meta)


async def create_chat(ctx: Ctx) -> Response:
    """POST /me/chats."""
    room = await writes.create_room(ctx)
    return data(await room_views.my_room(ctx, room), 201)


async def get_chat(ctx: Ctx) -> Response:
    """GET /me/chats/{chat_id} (``include=message_counts``)."""
    room = await ctx.member_room()
    wanted = includes(ctx.query(MyChatQuery).include)
    return data(await room_views.my_room(ctx, room, wanted))


async def list_messages(ctx: Ctx) -> Response:
    """GET /me/chats/{chat_id}/messages (every room message; type and ``since`` filters; the
    ``after`` / ``before`` / ``around`` anchored reads)."""
    rid = ctx.params["chat_id"]
    q = ctx.query(HumanMessagesQuery)
    limit, cursor = q.size(20), q.cursor
    types, exclude = q.types()
    where = MessageFilter(types=types, exclude=exclude, since=q.since)
    anchor = q.anchor()
    await ctx.member_room(rid)
    if anchor is not None:
        read = await ctx.db.run(store_rooms.anchored, rid, *anchor, limit, where)
        meta: dict[str, Any] = {"has_more": read.has_more, "limit": limit, "next_cursor": None}
        if read.has_older is not None:
            meta |= {"has_older": read.has_older, "has_newer": read.has_newer}
        return data([shapes.message(m) for m in read.items], metadata=meta)
    items, more = await ctx.db.run(Store.room_messages, rid, cursor, limit, where)
    total = await ctx.db.run(Store.count_messages, rid, where)
    meta = {**cursor_meta(items, more, limit), "total_count": total}
    return data([shapes.message(m) for m in items], metadata=meta)


async def post_message(ctx: Ctx) -> Response:
    """POST /me/chats/{chat_id}/messages."""
    return data(await writes.post_message(ctx, ctx.params["chat_id"], require_mention=False), 201)


async def list_participants(ctx: Ctx) -> Response:
    """GET /me/chats/{chat_id}/participants (cursor or the deprecated offset paging)."""
    rid = ctx.params["chat_id"]
    q = ctx.query(ParticipantsQuery)
    await ctx.member_room(rid)
    parts = await ctx.db.run(Store.participants, rid)
    if q.participant_type:
        parts = [p for p in parts if p.type == q.participant_type]

    def row(p: Member) -> ChatParticipantDetails:
        return shapes.participant_details(p, ctx.fanout.online(p.id))

    if q.page is not None or (q.page_size is not None and q.limit is None):
        page, size = q.page or 1, q.page_size or 20
        chunk = page_slice(parts, page, size)
        return data([row(p) for p in chunk], metadata=offset_meta(page, size, len(parts)))
    limit = q.limit or 20
    chunk, more, nxt = keyset.window(
        parts, lambda p: (p.id,), limit, q.cursor, [q.participant_type]
    )
    meta = {"has_more": more, "limit": limit, "next_cursor": nxt}
    return data([row(p) for p in chunk], metadata=meta)


async def profile(ctx: Ctx) -> Response:
    """GET /me/profile."""
    row = await ctx.db.run(Store.user, ctx.principal.id)
    assert row is not None  # the principal was authenticated from this very row
    return data(shapes.user_details(row))


async def update_profile(ctx: Ctx) -> Response:
    """PUT /me/profile."""
    names = ctx.body(ProfileBody).user
    first, last = names.first_name, names.last_name
    user = await ctx.db.run(Store.update_user_name, ctx.principal.id, first, last)
    return data(shapes.user_details(user))


async def delete_agent(ctx: Ctx) -> Response:
    """DELETE /me/agents/{id} (422 ``execution_history_exists`` unless ``force=true``)."""
    force = ctx.query(ForceQuery).force
    agent, executions = await ctx.db.run(
        Store.delete_agent, ctx.principal.id, ctx.params["agent_id"], force
    )
    await ctx.fanout.disconnect(agent.id)  # out of its rooms: its sockets must not hear them
    return data(
        {
            "id": agent.id,
            "name": agent.name,
            "description": agent.description,
            "executions_deleted": executions,
        }
    )


P = "/api/v1/me"
C = P + "/chats/{chat_id}"
routes = declare(
    Operation(
        "POST",
        P + "/agents/register",
        register_agent,
        rule="self",
        answer=(201, JsonObject),
        body=RegisterBody,
    ),
    Operation(
        "GET",
        P + "/agents",
        list_agents,
        rule="self",
        answer=(200, list[MyAgent]),
        query=MyAgentsQuery,
    ),
    Operation(
        "DELETE",
        P + "/agents/{agent_id}",
        delete_agent,
        rule="own_agent",
        answer=(200, JsonObject),
        query=ForceQuery,
    ),
    Operation(
        "GET",
        P + "/chats",
        room_views.list_my_chats,
        rule="self",
        answer=(200, list[MyChatRoom]),
        query=MyChatsQuery,
    ),
    Operation(
        "POST", P + "/chats", create_chat, rule="self", answer=(201, MyChatRoom), body=ChatBody
    ),
    Operation("GET", C, get_chat, rule="read", answer=(200, MyChatRoom), query=MyChatQuery),
    *writes.message_routes(C, list_messages, HumanMessagesQuery, post_message),
    Operation(
        "GET",
        C + "/participants",
        list_participants,
        rule="read",
        answer=(200, list[wire.ChatParticipantDetails]),
        query=ParticipantsQuery,
    ),
    *writes.participant_routes(C),
    Operation("GET", P + "/profile", profile, rule="self", answer=(200, UserDetails)),
    Operation(
        "PUT",
        P + "/profile",
        update_profile,
        rule="self",
        answer=(200, UserDetails),
        body=ProfileBody,
    ),
)
