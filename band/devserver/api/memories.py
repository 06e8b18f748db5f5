"""Memory routes: agent ``/agent/memories...`` and human ``/me/memories...``.

System/type/segment/scope/status values are the band_sdk_core memory enums' wire names
(declared in ``bodies`` / ``queries``); the type-for-system rule is
``band_sdk_core.validate_memory_type_for_system``.
"""

from __future__ import annotations

import math

from starlette.responses import Response

from band.core import wire
from band.core.wire import AgentMemory, JsonObject, ListAgentMemoriesResponseMetadata
from band_sdk_core import validate_memory_type_for_system

from ..contract.bodies import MemoryBody
from ..contract.queries import AgentMemoriesQuery, MemoryFilters, MyMemoriesQuery
from ..contract.views import UserMemory
from ..store import memories as sm
from ..store.db import StoreError
from ..store.rows import MemoryRecord
from .http import Ctx, bound, data
from .operations import NO_BODY, Operation, declare

SUBJECT_UNKNOWN = "subject_id is not someone this agent shares a room or a contact with"
ORG_MESSAGE = "organization scope requires the agent's owner to belong to an organization"


def _invalid(field: str, message: str) -> StoreError:
    return StoreError(422, "validation_error", message, {field: [message]})


def _org_refused() -> StoreError:
    return StoreError(422, "org_scope_requires_organization", ORG_MESSAGE)


def agent_memory(mem: MemoryRecord) -> AgentMemory:
    """AgentMemory."""
    return mem.as_wire(AgentMemory)


def user_memory(mem: MemoryRecord, names: dict[str, str | None]) -> UserMemory:
    """UserMemory: ``names`` holds source_agent_name, subject_name and subject_type."""
    return mem.as_wire(
        UserMemory,
        source_agent_name=names["source_agent_name"],
        subject_name=names["subject_name"],
        subject_type=names["subject_type"],
    )


def _filters(q: MemoryFilters, *extra: str) -> sm.Filters:
    names = ("system", "type", "segment", "status", "scope", "content_query", "subject_id")
    return {name: getattr(q, name) for name in (*names, *extra)}


def _paginate(
    q: MemoryFilters, rows: list[MemoryRecord]
) -> tuple[list[MemoryRecord], ListAgentMemoriesResponseMetadata]:
    """Cursor (``cursor``/``limit``) or offset (``page``/``page_size``) pagination."""
    limit, page_size, page, cursor = q.limit, q.page_size, q.page, q.cursor
    total = len(rows)
    if limit is None and (page is not None or page_size is not None):
        size = page_size or 20
        number = page or 1
        chunk = rows[(number - 1) * size : number * size]
        more = number * size < total
    else:
        size = limit or page_size or 20
        number = 1
        after = [r for r in rows if cursor is None or r.seq > cursor]
        chunk = after[:size]
        more = len(after) > size
    meta = ListAgentMemoriesResponseMetadata(
        has_more=more,
        limit=size,
        next_cursor=str(chunk[-1].seq) if more and chunk else None,
        page=number,
        page_size=size,
        total_count=total,
        total_pages=math.ceil(total / size) if total else 0,
    )
    return chunk, meta


# -- agent API --------------------------------------------------------------------


async def agent_list(ctx: Ctx) -> Response:
    """GET /agent/memories (``memory_scope=me``: the agent's own memories)."""
    q = ctx.query(AgentMemoriesQuery)
    if q.memory_scope == "org":
        raise _org_refused()
    rows = await ctx.db.run(sm.agent_list, ctx.principal.id, _filters(q))
    chunk, meta = _paginate(q, rows)
    return data([agent_memory(m) for m in chunk], meta=meta, metadata=meta)


async def agent_create(ctx: Ctx) -> Response:
    """POST /agent/memories (``{"memory": {...}}``)."""
    new = ctx.body(MemoryBody).memory
    try:
        validate_memory_type_for_system(new.system, new.type)
    except ValueError as exc:
        raise _invalid("type", str(exc)) from None
    scope = new.scope or ("subject" if new.subject_id else "agent")  # subject_id implies it
    if scope == "subject" and not new.subject_id:
        raise _invalid("subject_id", "subject scope requires a subject_id")
    if scope == "organization":
        raise _org_refused()
    # least privilege: no memory about someone the agent shares no room and no contact with
    # (the same answer whether or not the id names anyone, so it discloses no one)
    if new.subject_id and not await ctx.db.run(sm.knows, ctx.principal.id, new.subject_id):
        raise StoreError(403, "forbidden", SUBJECT_UNKNOWN, {"subject_id": [SUBJECT_UNKNOWN]})
    fields = {
        "content": new.content,
        "system": new.system,
        "type": new.type,
        "segment": new.segment,
        "thought": new.thought,
        "scope": scope,
        "subject_id": new.subject_id,
        "metadata": new.metadata or {},
    }
    mem = await ctx.db.run(sm.create, ctx.principal.id, fields)
    return data(agent_memory(mem), 201)


async def _agent_memory(ctx: Ctx, *, write: bool) -> MemoryRecord:
    mem = await ctx.db.run(sm.get, ctx.params["memory_id"])
    if mem is None or not sm.visible_to_agent(mem, ctx.principal.id):
        raise StoreError(404, "not_found", "memory not found")
    if write and mem.source_agent_id != ctx.principal.id:
        raise StoreError(403, "forbidden", "only the source agent may change this memory")
    return mem


async def agent_get(ctx: Ctx) -> Response:
    """GET /agent/memories/{id}."""
    return data(agent_memory(await _agent_memory(ctx, write=False)))


async def _agent_status(ctx: Ctx, status: str) -> Response:
    mem = await _agent_memory(ctx, write=True)
    return data(agent_memory(await ctx.db.run(sm.set_status, mem.id, status)))


agent_supersede = bound(
    _agent_status, "agent_supersede", "POST /agent/memories/{id}/supersede.", "superseded"
)
agent_archive = bound(
    _agent_status, "agent_archive", "POST /agent/memories/{id}/archive.", "archived"
)


# -- human API --------------------------------------------------------------------


async def _user_view(ctx: Ctx, mem: MemoryRecord) -> UserMemory:
    return user_memory(mem, await ctx.db.run(sm.names, mem))


async def _user_memory(ctx: Ctx) -> MemoryRecord:
    mem = await ctx.db.run(sm.get, ctx.params["memory_id"])
    if mem is None or not sm.visible_to_user(mem, ctx.principal.id):
        raise StoreError(404, "not_found", "memory not found")
    return mem


async def me_list(ctx: Ctx) -> Response:
    """GET /me/memories."""
    q = ctx.query(MyMemoriesQuery)
    rows = await ctx.db.run(sm.user_list, ctx.principal.id, _filters(q, *q.OWN_FILTERS))
    chunk, meta = _paginate(q, rows)
    items = [await _user_view(ctx, m) for m in chunk]
    return data(items, meta=meta, metadata=meta)


async def me_get(ctx: Ctx) -> Response:
    """GET /me/memories/{id}."""
    return data(await _user_view(ctx, await _user_memory(ctx)))


async def _me_status(ctx: Ctx, status: str) -> Response:
    mem = await _user_memory(ctx)
    if status == "active" and mem.status != "archived":
        raise StoreError(
            422,
            "validation_error",
            "only an archived memory can be restored",
            {"status": [f"is {mem.status}, expected archived"]},
        )
    return data(await _user_view(ctx, await ctx.db.run(sm.set_status, mem.id, status)))


me_supersede = bound(_me_status, "me_supersede", "POST /me/memories/{id}/supersede.", "superseded")
me_archive = bound(_me_status, "me_archive", "POST /me/memories/{id}/archive.", "archived")
me_restore = bound(
    _me_status,
    "me_restore",
    "POST /me/memories/{id}/restore (only from archived, else 422).",
    "active",
)


async def me_delete(ctx: Ctx) -> Response:
    """DELETE /me/memories/{id} (hard delete)."""
    mem = await _user_memory(ctx)
    await ctx.db.run(sm.delete, mem.id)
    return data({"id": mem.id, "status": "deleted"})


A = "/api/v1/agent/memories"
H = "/api/v1/me/memories"
routes = declare(
    Operation(
        "GET",
        A,
        agent_list,
        rule="self",
        answer=(200, list[wire.AgentMemory]),
        query=AgentMemoriesQuery,
    ),
    Operation(
        "POST", A, agent_create, rule="self", answer=(201, wire.AgentMemory), body=MemoryBody
    ),
    Operation("GET", A + "/{memory_id}", agent_get, rule="self", answer=(200, wire.AgentMemory)),
    Operation(
        "POST",
        A + "/{memory_id}/supersede",
        agent_supersede,
        rule="self",
        answer=(200, wire.AgentMemory),
        body=NO_BODY,
    ),
    Operation(
        "POST",
        A + "/{memory_id}/archive",
        agent_archive,
        rule="self",
        answer=(200, wire.AgentMemory),
        body=NO_BODY,
    ),
    Operation(
        "GET", H, me_list, rule="self", answer=(200, list[UserMemory]), query=MyMemoriesQuery
    ),
    Operation("GET", H + "/{memory_id}", me_get, rule="self", answer=(200, UserMemory)),
    Operation("DELETE", H + "/{memory_id}", me_delete, rule="self", answer=(200, JsonObject)),
    Operation(
        "POST",
        H + "/{memory_id}/supersede",
        me_supersede,
        rule="self",
        answer=(200, UserMemory),
        body=NO_BODY,
    ),
    Operation(
        "POST",
        H + "/{memory_id}/archive",
        me_archive,
        rule="self",
        answer=(200, UserMemory),
        body=NO_BODY,
    ),
    Operation(
        "POST",
        H + "/{memory_id}/restore",
        me_restore,
        rule="self",
        answer=(200, UserMemory),
        body=NO_BODY,
    ),
)
