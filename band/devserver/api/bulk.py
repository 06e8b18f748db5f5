"""Human bulk deletions of agents and rooms, and the jobs that record them.

band dev runs a job at once, inside the request, so every job it answers is ``completed``
with one result per id, in the order the request gave them (a repeated id is reported once).
"""

from __future__ import annotations

from starlette.responses import Response

from ..contract import shapes
from ..contract.bodies import BulkAgentsBody, BulkIdsBody
from ..store import bulk as store_bulk
from ..store.bulk import BulkDeletionJob
from ..store.db import Store, StoreError, now
from ..store.rows import BulkFailure
from . import writes
from .http import Ctx, data
from .operations import Operation, declare


def _failure(item: str, exc: StoreError) -> BulkFailure:
    return BulkFailure(id=item, code=exc.code, message=exc.message)


async def bulk_delete_agents(ctx: Ctx) -> Response:
    """POST /me/agents/bulk-delete (``force`` deletes execution history, as the single delete)."""
    body, started = ctx.body(BulkAgentsBody), now()
    ids, failed = list(dict.fromkeys(body.ids)), []
    for aid in ids:
        try:
            await ctx.db.run(Store.delete_agent, ctx.principal.id, aid, body.force)
        except StoreError as exc:
            failed.append(_failure(aid, exc))
            continue
        await ctx.fanout.disconnect(aid)
    job = await ctx.db.run(
        store_bulk.save_job, ctx.principal.id, "agent", ids, failed, body.force, started
    )
    return data(job, 202)


async def bulk_delete_chats(ctx: Ctx) -> Response:
    """POST /me/chats/bulk-delete; members see room_deleted / room_removed."""
    ids, failed, started = list(dict.fromkeys(ctx.body(BulkIdsBody).ids)), [], now()
    for rid in ids:
        room = await ctx.db.run(Store.room, rid)
        try:
            agents = await ctx.db.run(store_bulk.delete_room, ctx.principal.id, rid)
        except StoreError as exc:
            failed.append(_failure(rid, exc))
            continue
        assert room is not None  # delete_room raises not_found for a missing room
        left = ctx.fanout.leave_room(rid)  # a deleted room pushes nothing more to anyone
        await writes.push(ctx, f"room_participants:{rid}", "room_deleted", {"id": rid})
        await ctx.fanout.send_to(left, f"room_participants:{rid}", "room_deleted", {"id": rid})
        for aid in agents:
            await writes.push(ctx, f"agent_rooms:{aid}", "room_removed", shapes.chat_room(room))
    job = await ctx.db.run(
        store_bulk.save_job, ctx.principal.id, "chat", ids, failed, False, started
    )
    return data(job, 202)


async def get_job(ctx: Ctx) -> Response:
    """GET /me/bulk-deletions/{id}."""
    return data(await ctx.db.run(store_bulk.job, ctx.principal.id, ctx.params["job_id"]))


routes = declare(
    Operation(
        "POST",
        "/api/v1/me/agents/bulk-delete",
        bulk_delete_agents,
        rule="self",
        answer=(202, BulkDeletionJob),
        body=BulkAgentsBody,
    ),
    Operation(
        "POST",
        "/api/v1/me/chats/bulk-delete",
        bulk_delete_chats,
        rule="self",
        answer=(202, BulkDeletionJob),
        body=BulkIdsBody,
    ),
    Operation(
        "GET",
        "/api/v1/me/bulk-deletions/{job_id}",
        get_job,
        rule="self",
        answer=(200, BulkDeletionJob),
    ),
)
