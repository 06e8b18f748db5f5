"""Bulk deletions of agents and rooms (table ``bulk_deletions`` from migration 4)."""

from __future__ import annotations

import uuid
from typing import Any

import msgspec

from band.core.wire import WireModel

from .db import Store, StoreError, now
from .rows import BulkFailure


class BulkDeletionItemError(WireModel):
    """Why one id of a bulk deletion failed."""

    code: str  # not_found | forbidden | execution_history_exists | delete_failed | not_attempted
    message: str


class BulkDeletionItem(WireModel):
    """One id of a bulk deletion, in the order the request gave it."""

    id: str
    status: str  # pending | succeeded | failed
    error: BulkDeletionItemError | None = None


class BulkDeletionJob(WireModel):
    """A bulk deletion of chats or agents (band dev runs it at once: always ``completed``)."""

    id: str
    resource_type: str  # chat | agent
    status: str
    force: bool
    total: int
    processed: int
    succeeded: int
    failed: int
    results: list[BulkDeletionItem]
    inserted_at: str
    started_at: str | None = None
    completed_at: str | None = None


def delete_room(store: Store, owner_id: str, rid: str) -> list[str]:
    """Close room ``rid`` (owner only) and drop its members; return the agents that were in it."""
    role = store.role(rid, owner_id)
    if role is None:  # not a participant: the room's existence is not disclosed
        raise StoreError(404, "not_found", "room not found")
    if role != "owner":
        raise StoreError(403, "forbidden", "only the room's owner may delete it")
    rows = store.db.execute(
        "SELECT participant_id FROM participants WHERE room_id=? AND type='Agent'", (rid,)
    ).fetchall()
    store.db.execute("DELETE FROM participants WHERE room_id=?", (rid,))
    store.db.execute("UPDATE rooms SET status='deleted', updated_at=? WHERE id=?", (now(), rid))
    return [r[0] for r in rows]


def save_job(
    store: Store,
    owner_id: str,
    resource_type: str,
    ids: list[str],
    failed: list[BulkFailure],
    force: bool,
    started_at: str,
) -> BulkDeletionJob:
    """Record a finished bulk deletion (results in the order of ``ids``) and return it."""
    why = {f.id: BulkDeletionItemError(code=f.code, message=f.message) for f in failed}
    results = [
        BulkDeletionItem(id=i, status="failed" if i in why else "succeeded", error=why.get(i))
        for i in ids
    ]
    job = BulkDeletionJob(
        id=str(uuid.uuid4()),
        resource_type=resource_type,
        status="completed",
        force=force,
        total=len(ids),
        processed=len(ids),
        succeeded=len(ids) - len(why),
        failed=len(why),
        results=results,
        inserted_at=started_at,
        started_at=started_at,
        completed_at=now(),
    )
    store.db.execute(
        "INSERT INTO bulk_deletions VALUES (?,?,?)",
        (job.id, owner_id, msgspec.json.encode(job).decode()),
    )
    return job


def _upgrade(body: dict[str, Any]) -> dict[str, Any]:
    """A job stored before the BulkDeletionJob shape (``kind``, ``deleted``, ``failed: [..]``)."""
    if "kind" not in body:
        return body
    why = {f["id"]: f["reason"] for f in body.get("failed", [])}
    ids = list(why)
    return {
        "id": body["id"],
        "resource_type": "agent" if body["kind"] == "agents" else "chat",
        "status": body["status"],
        "force": False,
        "total": body["total"],
        "processed": body["total"],
        "succeeded": body["deleted"],
        "failed": len(why),
        # the old shape kept only the failures; the deleted ids were not recorded
        "results": [
            {"id": i, "status": "failed", "error": {"code": why[i], "message": why[i]}} for i in ids
        ],
        "inserted_at": body["inserted_at"],
        "completed_at": body.get("completed_at"),
    }


def job(store: Store, owner_id: str, job_id: str) -> BulkDeletionJob:
    """Return a bulk deletion of ``owner_id``."""
    row = store.db.execute(
        "SELECT body FROM bulk_deletions WHERE id=? AND owner_id=?", (job_id, owner_id)
    ).fetchone()
    if row is None:
        raise StoreError(404, "not_found", "bulk deletion not found")
    return msgspec.convert(_upgrade(msgspec.json.decode(row[0])), BulkDeletionJob)
