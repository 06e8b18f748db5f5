"""Bulk deletions of agents and rooms (table ``bulk_deletions`` from migration 4)."""

from __future__ import annotations

import uuid

import msgspec

from .rows import BulkFailure, BulkJob
from .store import Store, StoreError, now


def delete_room(store: Store, owner_id: str, rid: str) -> list[str]:
    """Close room ``rid`` (owner only) and drop its members; return the agents that were in it."""
    if store.role(rid, owner_id) != "owner":
        raise StoreError(404, "not_found", "room not found")
    rows = store.db.execute(
        "SELECT participant_id FROM participants WHERE room_id=? AND type='Agent'", (rid,)
    ).fetchall()
    store.db.execute("DELETE FROM participants WHERE room_id=?", (rid,))
    store.db.execute("UPDATE rooms SET status='deleted', updated_at=? WHERE id=?", (now(), rid))
    return [r[0] for r in rows]


def save_job(
    store: Store, owner_id: str, kind: str, ids: list[str], failed: list[BulkFailure]
) -> BulkJob:
    """Record a finished bulk deletion and return it."""
    ts = now()
    job = BulkJob(
        id=str(uuid.uuid4()),
        kind=kind,
        status="completed",
        total=len(ids),
        deleted=len(ids) - len(failed),
        failed=failed,
        inserted_at=ts,
        completed_at=ts,
    )
    store.db.execute(
        "INSERT INTO bulk_deletions VALUES (?,?,?)",
        (job.id, owner_id, msgspec.json.encode(job).decode()),
    )
    return job


def job(store: Store, owner_id: str, job_id: str) -> BulkJob:
    """Return a bulk deletion of ``owner_id``."""
    row = store.db.execute(
        "SELECT body FROM bulk_deletions WHERE id=? AND owner_id=?", (job_id, owner_id)
    ).fetchone()
    if row is None:
        raise StoreError(404, "not_found", "bulk deletion not found")
    return msgspec.json.decode(row[0], type=BulkJob)
