"""Human API routes (``/api/v1/me/...``, user keys)."""

from __future__ import annotations

from datetime import UTC, datetime

from starlette.responses import Response
from starlette.routing import Route

from . import ops, shapes
from .http import (
    Ctx,
    cursor_meta,
    data,
    endpoint,
    offset_meta,
    offset_page,
    page_slice,
    require_str,
)
from .store import MessageFilter, Store, StoreError

human = endpoint("user")
MESSAGE_TYPES = (
    "text", "tool_call", "tool_result", "thought", "error", "task", "attention", "system",
    "participant", "action", "guidelines",
)  # fmt: skip
TYPE_PARAMS = ("message_type", "message_types", "exclude_message_types")


@human
async def register_agent(ctx: Ctx) -> Response:
    """POST /me/agents/register."""
    body = await ctx.body("agent")
    name = require_str(body, "name")
    description = require_str(body, "description")
    agent, key = await ctx.db.run(Store.create_agent, ctx.principal.id, name, description)
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
async def list_agents(ctx: Ctx) -> Response:
    """GET /me/agents."""
    page, size = ctx.page()
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


async def _me_room(ctx: Ctx, room: dict) -> dict:
    parts = await ctx.db.run(Store.participants, room["id"])
    return shapes.me_chat_room(room, parts)


@human
async def list_chats(ctx: Ctx) -> Response:
    """GET /me/chats."""
    page, size = ctx.page()
    rooms, total = await ctx.db.run(Store.rooms_of, ctx.principal.id, page, size)
    items = [await _me_room(ctx, r) for r in rooms]
    return data(items, metadata=offset_meta(page, size, total))


@human
async def create_chat(ctx: Ctx) -> Response:
    """POST /me/chats."""
    room = await ops.create_room(ctx)
    return data(await _me_room(ctx, room), 201)


@human
async def get_chat(ctx: Ctx) -> Response:
    """GET /me/chats/{chat_id}."""
    room = await ctx.db.run(Store.member_room, ctx.params["chat_id"], ctx.principal.id)
    return data(await _me_room(ctx, room))


def _bad_query(name: str, message: str) -> StoreError:
    return StoreError(422, "validation_error", message, {name: ["is invalid"]})


def _types(name: str, raw: str) -> tuple[str, ...]:
    """Parse a comma-joined type list; blanks, spaces and unknown types are refused."""
    values = tuple(raw.split(",")) if name != "message_type" else (raw,)
    for value in values:
        if value not in MESSAGE_TYPES:
            raise _bad_query(name, f"{name}: unknown message type {value!r}")
    return values


def _since(raw: str) -> str:
    """Parse an ISO 8601 time (naive means UTC) into the store's timestamp form."""
    try:
        when = datetime.fromisoformat(raw.strip().replace("Z", "+00:00"))
    except ValueError:
        raise _bad_query("since", "since must be an ISO 8601 date-time") from None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return when.astimezone(UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")


def _message_filter(ctx: Ctx) -> MessageFilter:
    """Read ``message_type`` / ``message_types`` / ``exclude_message_types`` and ``since``."""
    q = ctx.request.query_params
    given = [n for n in TYPE_PARAMS if q.get(n)]
    if len(given) > 1:
        raise _bad_query(given[1], "use at most one of " + ", ".join(TYPE_PARAMS))
    since = q.get("since") or None
    if since is not None and q.get("cursor"):
        raise _bad_query("since", "since and cursor cannot be combined")
    exclude = given == ["exclude_message_types"]
    types = _types(given[0], q[given[0]]) if given else ()
    return MessageFilter(
        types=() if exclude else types,
        exclude=types if exclude else (),
        since=_since(since) if since else None,
    )


@human
async def list_messages(ctx: Ctx) -> Response:
    """GET /me/chats/{chat_id}/messages (every room message; type and ``since`` filters)."""
    rid = ctx.params["chat_id"]
    limit = ctx.int_q("limit", None, 1, 100) or ctx.int_q("page_size", 20, 1, 100) or 20
    cursor = ctx.int_q("cursor", None, 0)
    where = _message_filter(ctx)
    await ctx.db.run(Store.member_room, rid, ctx.principal.id)
    items, more = await ctx.db.run(Store.room_messages, rid, cursor, limit, where)
    total = await ctx.db.run(Store.count_messages, rid, where)
    meta = {**cursor_meta(items, more, limit), "total_count": total}
    return data([shapes.message(m) for m in items], metadata=meta)


@human
async def post_message(ctx: Ctx) -> Response:
    """POST /me/chats/{chat_id}/messages."""
    return data(await ops.post_message(ctx, ctx.params["chat_id"], require_mention=False), 201)


@human
async def list_participants(ctx: Ctx) -> Response:
    """GET /me/chats/{chat_id}/participants."""
    rid = ctx.params["chat_id"]
    page, size = ctx.page()
    await ctx.db.run(Store.member_room, rid, ctx.principal.id)
    parts = await ctx.db.run(Store.participants, rid)
    kind = ctx.request.query_params.get("participant_type")
    if kind:
        parts = [p for p in parts if p["type"] == kind]
    return offset_page(ctx, parts, page, size, shapes.participant)


@human
async def add_participant(ctx: Ctx) -> Response:
    """POST /me/chats/{chat_id}/participants."""
    return data(await ops.add_participant(ctx, ctx.params["chat_id"]), 201)


@human
async def remove_participant(ctx: Ctx) -> Response:
    """DELETE /me/chats/{chat_id}/participants/{id}."""
    return data(await ops.remove_participant(ctx, ctx.params["chat_id"], ctx.params["pid"]))


@human
async def profile(ctx: Ctx) -> Response:
    """GET /me/profile."""
    return data(shapes.user_details(await ctx.db.run(Store.user, ctx.principal.id)))


@human
async def update_profile(ctx: Ctx) -> Response:
    """PUT /me/profile."""
    body = await ctx.body("user")
    first, last = body.get("first_name"), body.get("last_name")
    for field, value in (("first_name", first), ("last_name", last)):
        if value is not None and not isinstance(value, str):
            raise StoreError(422, "validation_error", f"{field} must be a string")
    if not first and last is None:
        raise StoreError(
            422, "validation_error", "At least one field (first_name or last_name) must be provided"
        )
    user = await ctx.db.run(Store.update_user_name, ctx.principal.id, first, last)
    return data(shapes.user_details(user))


@human
async def delete_agent(ctx: Ctx) -> Response:
    """DELETE /me/agents/{id}."""
    agent = await ctx.db.run(Store.delete_agent, ctx.principal.id, ctx.params["agent_id"])
    await ctx.hub.disconnect(agent["id"])  # out of its rooms: its sockets must not hear them
    return data(
        {
            "id": agent["id"],
            "name": agent["name"],
            "description": agent["description"],
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
