"""Human bulk deletions of agents and rooms, and the jobs that record them."""

from __future__ import annotations

from starlette.responses import Response
from starlette.routing import Route

from . import shapes, store_bulk, writes
from .bodies import BulkIdsBody
from .http import Ctx, data, endpoint
from .inputs import accepts
from .rows import BulkFailure
from .store import Store, StoreError

human = endpoint("user")


async def _ids(ctx: Ctx) -> list[str]:
    return list(dict.fromkeys(ctx.body(BulkIdsBody).ids))


@human
@accepts(body=BulkIdsBody)
async def bulk_delete_agents(ctx: Ctx) -> Response:
    """POST /me/agents/bulk-delete."""
    ids, failed = await _ids(ctx), []
    for aid in ids:
        try:
            await ctx.db.run(Store.delete_agent, ctx.principal.id, aid)
        except StoreError as exc:
            failed.append(BulkFailure(id=aid, reason=exc.code))
            continue
        await ctx.fanout.disconnect(aid)
    job = await ctx.db.run(store_bulk.save_job, ctx.principal.id, "agents", ids, failed)
    return data(job, 202)


@human
@accepts(body=BulkIdsBody)
async def bulk_delete_chats(ctx: Ctx) -> Response:
    """POST /me/chats/bulk-delete; members see room_deleted / room_removed."""
    ids, failed = await _ids(ctx), []
    for rid in ids:
        room = await ctx.db.run(Store.room, rid)
        try:
            agents = await ctx.db.run(store_bulk.delete_room, ctx.principal.id, rid)
        except StoreError as exc:
            failed.append(BulkFailure(id=rid, reason=exc.code))
            continue
        assert room is not None  # delete_room raises not_found for a missing room
        left = ctx.fanout.leave_room(rid)  # a deleted room pushes nothing more to anyone
        await writes.push(ctx, f"room_participants:{rid}", "room_deleted", {"id": rid})
        await ctx.fanout.send_to(left, f"room_participants:{rid}", "room_deleted", {"id": rid})
        for aid in agents:
            await writes.push(ctx, f"agent_rooms:{aid}", "room_removed", shapes.chat_room(room))
    job = await ctx.db.run(store_bulk.save_job, ctx.principal.id, "chats", ids, failed)
    return data(job, 202)


@human
async def get_job(ctx: Ctx) -> Response:
    """GET /me/bulk-deletions/{id}."""
    return data(await ctx.db.run(store_bulk.job, ctx.principal.id, ctx.params["job_id"]))


routes = [
    Route("/api/v1/me/agents/bulk-delete", bulk_delete_agents, methods=["POST"]),
    Route("/api/v1/me/chats/bulk-delete", bulk_delete_chats, methods=["POST"]),
    Route("/api/v1/me/bulk-deletions/{job_id}", get_job, methods=["GET"]),
]
