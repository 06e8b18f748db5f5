"""Memory routes: agent ``/agent/memories...`` and human ``/me/memories...``.

System/type/segment/scope/status values are checked against the band_sdk_core memory enums;
the type-for-system rule is ``band_sdk_core.validate_memory_type_for_system``.
"""

from __future__ import annotations

import math
from typing import Any

from starlette.responses import Response
from starlette.routing import Route

from band_sdk_core import (
    MemoryListScope,
    MemorySegment,
    MemoryStatus,
    MemoryStoreScope,
    MemorySystem,
    MemoryType,
    validate_memory_type_for_system,
)

from . import store_memories as sm
from .http import Ctx, data, endpoint, opt_str, require_str
from .store import StoreError

agent = endpoint("agent")
human = endpoint("user")
ORG_MESSAGE = "organization scope requires the agent's owner to belong to an organization"
ENUMS: dict[str, Any] = {
    "system": MemorySystem,
    "type": MemoryType,
    "segment": MemorySegment,
    "status": MemoryStatus,
}


def _invalid(field: str, message: str) -> StoreError:
    return StoreError(422, "validation_error", message, {field: [message]})


def _enum(field: str, value: Any, *, required: bool) -> str | None:
    if value is None or value == "":
        if required:
            raise _invalid(field, f"{field} can't be blank")
        return None
    if not isinstance(value, str) or ENUMS[field].from_wire_name(value) is None:
        raise _invalid(field, f"{field} is invalid")
    return value


def _scope(value: Any, *, listing: bool) -> str | None:
    """``agent`` plus the band_sdk_core store/list scope wire names."""
    if value is None or value == "":
        return None if listing else "agent"
    enum = MemoryListScope if listing else MemoryStoreScope
    if value != "agent" and (not isinstance(value, str) or enum.from_wire_name(value) is None):
        raise _invalid("scope", "scope is invalid")
    return str(value)


def _org_refused() -> StoreError:
    return StoreError(422, "org_scope_requires_organization", ORG_MESSAGE)


def _metadata(value: Any) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise _invalid("metadata", "metadata must be an object")
    for key in ("tags", "references"):
        items = value.get(key)
        if items is not None and (
            not isinstance(items, list) or not all(isinstance(i, str) for i in items)
        ):
            raise _invalid(f"metadata.{key}", f"{key} must be a list of strings")
    return value


def agent_memory(mem: dict[str, Any]) -> dict[str, Any]:
    """AgentMemory."""
    keys = ("id", "content", "system", "type", "segment", "scope", "inserted_at", "status",
            "subject_id", "source_agent_id", "organization_id", "thought", "metadata")  # fmt: skip
    return {k: mem[k] for k in keys}


def user_memory(mem: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    """UserMemory."""
    return {
        **agent_memory(mem),
        "updated_at": mem["updated_at"],
        "chat_room_id": mem["chat_room_id"],
        "chat_room_title": None,
        "chat_room_type": None,
        "chat_room_status": None,
        **extra,
    }


def _filters(ctx: Ctx, *extra: str) -> dict[str, Any]:
    q = ctx.request.query_params
    out: dict[str, Any] = {
        "system": _enum("system", q.get("system"), required=False),
        "type": _enum("type", q.get("type"), required=False),
        "segment": _enum("segment", q.get("segment"), required=False),
        "status": _enum("status", q.get("status"), required=False),
        "scope": _scope(q.get("scope"), listing=True),
        "content_query": q.get("content_query") or None,
        "subject_id": q.get("subject_id") or None,
    }
    for name in extra:
        out[name] = q.get(name) or None
    return out


def _paginate(ctx: Ctx, rows: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], dict]:
    """Cursor (``cursor``/``limit``) or offset (``page``/``page_size``) pagination."""
    limit = ctx.int_q("limit", None, 1, 100)
    page_size = ctx.int_q("page_size", None, 1, 50)
    page = ctx.int_q("page", None)
    cursor = ctx.int_q("cursor", None, 0)
    total = len(rows)
    if limit is None and (page is not None or page_size is not None):
        size = page_size or 20
        number = page or 1
        chunk = rows[(number - 1) * size : number * size]
        more = number * size < total
    else:
        size = limit or page_size or 20
        number = 1
        after = [r for r in rows if cursor is None or r["_seq"] > cursor]
        chunk = after[:size]
        more = len(after) > size
    meta = {
        "has_more": more,
        "limit": size,
        "next_cursor": str(chunk[-1]["_seq"]) if more and chunk else None,
        "page": number,
        "page_size": size,
        "total_count": total,
        "total_pages": math.ceil(total / size) if total else 0,
    }
    return chunk, meta


# -- agent API --------------------------------------------------------------------


@agent
async def agent_list(ctx: Ctx) -> Response:
    """GET /agent/memories (``memory_scope=me``: the agent's own memories)."""
    memory_scope = ctx.request.query_params.get("memory_scope") or "me"
    if memory_scope not in ("me", "org"):
        raise _invalid("memory_scope", "memory_scope is invalid")
    filters = _filters(ctx)
    if memory_scope == "org":
        raise _org_refused()
    rows = await ctx.db.run(sm.agent_list, ctx.principal.id, filters)
    chunk, meta = _paginate(ctx, rows)
    return data([agent_memory(m) for m in chunk], meta=meta, metadata=meta)


@agent
async def agent_create(ctx: Ctx) -> Response:
    """POST /agent/memories (``{"memory": {...}}``)."""
    body = await ctx.body("memory")
    content = require_str(body, "content")
    system = _enum("system", body.get("system"), required=True)
    mtype = _enum("type", body.get("type"), required=True)
    segment = _enum("segment", body.get("segment"), required=True)
    try:
        validate_memory_type_for_system(system or "", mtype or "")
    except ValueError as exc:
        raise _invalid("type", str(exc)) from None
    thought = require_str(body, "thought", blank_ok=True)
    subject_id = opt_str(body, "subject_id")
    scope = _scope(body.get("scope"), listing=False)
    if body.get("scope") in (None, "") and subject_id:
        scope = "subject"  # a subject_id without a scope defaults to subject scope
    if scope == "subject" and not subject_id:
        raise _invalid("subject_id", "subject scope requires a subject_id")
    if scope == "organization":
        raise _org_refused()
    fields = {
        "content": content,
        "system": system,
        "type": mtype,
        "segment": segment,
        "thought": thought,
        "scope": scope,
        "subject_id": subject_id,
        "metadata": _metadata(body.get("metadata")),
    }
    mem = await ctx.db.run(sm.create, ctx.principal.id, fields)
    return data(agent_memory(mem), 201)


async def _agent_memory(ctx: Ctx, *, write: bool) -> dict[str, Any]:
    mem = await ctx.db.run(sm.get, ctx.params["memory_id"])
    if mem is None or not sm.visible_to_agent(mem, ctx.principal.id):
        raise StoreError(404, "not_found", "memory not found")
    if write and mem["source_agent_id"] != ctx.principal.id:
        raise StoreError(403, "forbidden", "only the source agent may change this memory")
    return mem


@agent
async def agent_get(ctx: Ctx) -> Response:
    """GET /agent/memories/{id}."""
    return data(agent_memory(await _agent_memory(ctx, write=False)))


@agent
async def agent_supersede(ctx: Ctx) -> Response:
    """POST /agent/memories/{id}/supersede."""
    mem = await _agent_memory(ctx, write=True)
    return data(agent_memory(await ctx.db.run(sm.set_status, mem["id"], "superseded")))


@agent
async def agent_archive(ctx: Ctx) -> Response:
    """POST /agent/memories/{id}/archive."""
    mem = await _agent_memory(ctx, write=True)
    return data(agent_memory(await ctx.db.run(sm.set_status, mem["id"], "archived")))


# -- human API --------------------------------------------------------------------


async def _user_view(ctx: Ctx, mem: dict[str, Any]) -> dict[str, Any]:
    return user_memory(mem, await ctx.db.run(sm.names, mem))


async def _user_memory(ctx: Ctx) -> dict[str, Any]:
    mem = await ctx.db.run(sm.get, ctx.params["memory_id"])
    if mem is None or not sm.visible_to_user(mem, ctx.principal.id):
        raise StoreError(404, "not_found", "memory not found")
    return mem


@human
async def me_list(ctx: Ctx) -> Response:
    """GET /me/memories."""
    filters = _filters(ctx, "chat_room_id", "source_agent_id")
    rows = await ctx.db.run(sm.user_list, ctx.principal.id, filters)
    chunk, meta = _paginate(ctx, rows)
    items = [await _user_view(ctx, m) for m in chunk]
    return data(items, meta=meta, metadata=meta)


@human
async def me_get(ctx: Ctx) -> Response:
    """GET /me/memories/{id}."""
    return data(await _user_view(ctx, await _user_memory(ctx)))


async def _me_status(ctx: Ctx, status: str) -> Response:
    mem = await _user_memory(ctx)
    if status == "active" and mem["status"] != "archived":
        raise StoreError(
            422,
            "validation_error",
            "only an archived memory can be restored",
            {"status": [f"is {mem['status']}, expected archived"]},
        )
    return data(await _user_view(ctx, await ctx.db.run(sm.set_status, mem["id"], status)))


@human
async def me_supersede(ctx: Ctx) -> Response:
    """POST /me/memories/{id}/supersede."""
    return await _me_status(ctx, "superseded")


@human
async def me_archive(ctx: Ctx) -> Response:
    """POST /me/memories/{id}/archive."""
    return await _me_status(ctx, "archived")


@human
async def me_restore(ctx: Ctx) -> Response:
    """POST /me/memories/{id}/restore (only from archived, else 422)."""
    return await _me_status(ctx, "active")


@human
async def me_delete(ctx: Ctx) -> Response:
    """DELETE /me/memories/{id} (hard delete)."""
    mem = await _user_memory(ctx)
    await ctx.db.run(sm.delete, mem["id"])
    return data({"id": mem["id"], "status": "deleted"})


A = "/api/v1/agent/memories"
H = "/api/v1/me/memories"
routes = [
    Route(A, agent_list, methods=["GET"]),
    Route(A, agent_create, methods=["POST"]),
    Route(A + "/{memory_id}", agent_get, methods=["GET"]),
    Route(A + "/{memory_id}/supersede", agent_supersede, methods=["POST"]),
    Route(A + "/{memory_id}/archive", agent_archive, methods=["POST"]),
    Route(H, me_list, methods=["GET"]),
    Route(H + "/{memory_id}", me_get, methods=["GET"]),
    Route(H + "/{memory_id}", me_delete, methods=["DELETE"]),
    Route(H + "/{memory_id}/supersede", me_supersede, methods=["POST"]),
    Route(H + "/{memory_id}/archive", me_archive, methods=["POST"]),
    Route(H + "/{memory_id}/restore", me_restore, methods=["POST"]),
]
