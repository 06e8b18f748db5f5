"""Agent memories (functions over ``Store``; run them via ``AsyncStore.run``).

Table ``memories`` (store.py migration 2). ``owner_id`` is the user owning the source agent;
the local platform has no organisations, so organisation scope is always refused.
"""

from __future__ import annotations

import sqlite3
import uuid

from band.core.wire import JsonObject

from .db import Store, StoreError, dump_json, load_json, now
from .rows import MemoryRecord, record

#: The list filters by name (a value None or empty filters nothing).
Filters = dict[str, str | None]

STATUSES = ("active", "superseded", "archived")


def _shape(row: sqlite3.Row) -> MemoryRecord:
    return record(MemoryRecord, row, metadata=load_json(row["metadata"]))


def create(store: Store, agent_id: str, fields: JsonObject) -> MemoryRecord:
    """Insert a memory written by ``agent_id`` (fields already validated)."""
    agent = store.agent(agent_id)
    if agent is None:
        raise StoreError(404, "not_found", "agent not found")
    mid, ts = str(uuid.uuid4()), now()
    store.db.execute(
        "INSERT INTO memories (id, content, system, type, segment, scope, status, thought, "
        "subject_id, source_agent_id, owner_id, organization_id, chat_room_id, metadata, "
        "inserted_at, updated_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
        (mid, fields["content"], fields["system"], fields["type"], fields["segment"],
         fields["scope"], "active", fields.get("thought"), fields.get("subject_id"), agent_id,
         agent.owner_id, None, None, dump_json(fields.get("metadata") or {}), ts, ts),
    )  # fmt: skip
    return _get(store, mid)


def get(store: Store, mid: str) -> MemoryRecord | None:
    """Return one memory row (any status) or None."""
    row = store.db.execute("SELECT * FROM memories WHERE id=?", (mid,)).fetchone()
    return _shape(row) if row else None


def _get(store: Store, mid: str) -> MemoryRecord:
    """The memory ``mid`` that was just written (404 should it be gone)."""
    mem = get(store, mid)
    if mem is None:
        raise StoreError(404, "not_found", "memory not found")
    return mem


def visible_to_agent(mem: MemoryRecord, agent_id: str) -> bool:
    """An agent sees memories it wrote and memories about it."""
    return agent_id in (mem.source_agent_id, mem.subject_id)


def visible_to_user(mem: MemoryRecord, user_id: str) -> bool:
    """A person sees memories of the agents they own and memories about them."""
    return user_id in (mem.owner_id, mem.subject_id)


def query(store: Store, where: list[str], args: list[str], filters: Filters) -> list[MemoryRecord]:
    """All memories matching ``where`` plus the common filters, oldest first."""
    conds, params = list(where), list(args)
    for col in ("system", "type", "segment", "subject_id", "source_agent_id", "chat_room_id"):
        value = filters.get(col)
        if value:
            conds.append(f"{col}=?")
            params.append(value)
    scope = filters.get("scope")
    if scope and scope != "all":
        conds.append("scope=?")
        params.append(scope)
    status = filters.get("status") or "active"
    if status != "all":
        conds.append("status=?")
        params.append(status)
    text = filters.get("content_query")
    if text:
        conds.append("content LIKE ? ESCAPE '\\'")
        q = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        params.append(f"%{q}%")
    sql = "SELECT * FROM memories WHERE " + " AND ".join(conds or ["1=1"]) + " ORDER BY seq"
    return [_shape(r) for r in store.db.execute(sql, params)]


def agent_list(store: Store, agent_id: str, filters: Filters) -> list[MemoryRecord]:
    """The calling agent's own memories (``memory_scope=me``) matching ``filters``."""
    return query(store, ["source_agent_id=?"], [agent_id], filters)


def user_list(store: Store, user_id: str, filters: Filters) -> list[MemoryRecord]:
    """Memories a person may see matching ``filters``."""
    return query(store, ["(owner_id=? OR subject_id=?)"], [user_id, user_id], filters)


def set_status(store: Store, mid: str, status: str) -> MemoryRecord:
    """Change a memory's status."""
    store.db.execute("UPDATE memories SET status=?, updated_at=? WHERE id=?", (status, now(), mid))
    return _get(store, mid)


def delete(store: Store, mid: str) -> None:
    """Hard-delete a memory."""
    store.db.execute("DELETE FROM memories WHERE id=?", (mid,))


def names(store: Store, mem: MemoryRecord) -> dict[str, str | None]:
    """Extra fields of the UserMemory view (source agent / subject names)."""
    src = store.agent(mem.source_agent_id) if mem.source_agent_id else None
    subj = store.entity(mem.subject_id) if mem.subject_id else None
    return {
        "source_agent_name": src.name if src else None,
        "subject_name": subj.name if subj else None,
        "subject_type": subj.type.lower() if subj else None,  # the model's values: user/agent
    }


def knows(store: Store, agent_id: str, subject_id: str) -> bool:
    """Whether agent ``agent_id`` may keep a subject memory about ``subject_id``: itself, one
    of its peers (its owner, sibling agents, contacts) or someone it shares a room with."""
    if subject_id == agent_id or subject_id in store.peer_ids(agent_id):
        return True
    return store.exists(
        "SELECT 1 FROM participants a JOIN participants b ON a.room_id=b.room_id "
        "WHERE a.participant_id=? AND b.participant_id=? LIMIT 1",
        (agent_id, subject_id),
    )
