"""What the human API's room reads add to a room: who may list it, its activity and counts.

Every function takes the ``Store`` first so it can run through ``AsyncStore.run``.
"""

from __future__ import annotations

from typing import Any

import msgspec

from .db import MessageFilter, Store, StoreError
from .rows import MessageRecord
from .tasks import TASK_STATUSES, overall_status

#: the message types that are chat content (they move ``last_message_at``): text and the
#: event types agents post; system, participant, action and guidelines rows do not
CONTENT_TYPES = ("text", "tool_call", "tool_result", "thought", "error", "task", "attention")
#: the types ``message_counts`` counts (those the message list's ``message_type`` accepts)
COUNTED_TYPES = (*CONTENT_TYPES, "system", "participant")
_CONTENT = ",".join(f"'{t}'" for t in CONTENT_TYPES)
_COUNTED = ",".join(f"'{t}'" for t in COUNTED_TYPES)


class Listed(msgspec.Struct, frozen=True, kw_only=True):
    """A room a person may list, with what listing it needs (the filters' and the sorts'
    fields): their own role in it (None when only an agent of theirs is in it) and the agents
    they own that participate, by id. The room's row is read for a listed page alone
    (``Store.rooms_in_order``): a person in thousands of rooms pays for the rows it shows."""

    id: str
    status: str
    type: str
    inserted_at: str
    updated_at: str
    role: str | None
    via_agent_ids: list[str]


def listable(store: Store, uid: str, agent_rooms: bool) -> list[Listed]:
    """The rooms ``uid`` participates in, plus (``agent_rooms``) those an agent of theirs is in
    (the store keeps it until a membership or room changes: do not change the list)."""
    return store.listing((uid, agent_rooms), lambda: _listable(store, uid, agent_rooms))


def _listable(store: Store, uid: str, agent_rooms: bool) -> list[Listed]:
    """``listable``, read from the database."""
    roles = dict(
        store.db.execute("SELECT room_id, role FROM participants WHERE participant_id=?", (uid,))
    )
    agents: dict[str, list[str]] = {}
    for rid, aid in store.db.execute(
        "SELECT p.room_id, p.participant_id FROM participants p JOIN agents a "
        "ON a.id=p.participant_id WHERE a.owner_id=? ORDER BY p.participant_id",
        (uid,),
    ):
        agents.setdefault(rid, []).append(aid)
    wanted = set(roles) | (set(agents) if agent_rooms else set())
    if not wanted:
        return []
    marks = ",".join("?" * len(wanted))
    rows = store.db.execute(
        f"SELECT id, status, type, inserted_at, updated_at FROM rooms WHERE id IN ({marks})",
        sorted(wanted),
    )
    return [
        Listed(
            id=rid,
            status=status,
            type=kind,
            inserted_at=inserted,
            updated_at=updated,
            role=roles.get(rid),
            via_agent_ids=agents.get(rid, []),
        )
        for rid, status, kind, inserted, updated in rows
    ]


def can_read(store: Store, rid: str, uid: str) -> bool:
    """Whether ``uid`` may read room ``rid``: a participant, or the owner of an agent in it."""
    if store.role(rid, uid) is not None:
        return True
    return store.exists(
        "SELECT 1 FROM participants p JOIN agents a ON a.id=p.participant_id "
        "WHERE p.room_id=? AND a.owner_id=? LIMIT 1",
        (rid, uid),
    )


def last_message(store: Store, rid: str) -> MessageRecord | None:
    """The room's newest chat-content message."""
    row = store.db.execute(
        f"SELECT * FROM messages WHERE room_id=? AND message_type IN ({_CONTENT}) "
        "ORDER BY seq DESC LIMIT 1",
        (rid,),
    ).fetchone()
    return store._shape(row) if row else None


def last_message_at(store: Store, rid: str) -> str | None:
    """When the room's newest chat-content message was posted."""
    row = store.db.execute(
        f"SELECT inserted_at FROM messages WHERE room_id=? AND message_type IN ({_CONTENT}) "
        "ORDER BY seq DESC LIMIT 1",
        (rid,),
    ).fetchone()
    return str(row[0]) if row else None


def task_counts(store: Store, rid: str) -> dict[str, int]:
    """The room's active tasks by overall status, every status present (zeros included)."""
    counts = dict.fromkeys(TASK_STATUSES, 0)
    by_task: dict[str, list[str]] = {}
    for tid, status in store.db.execute(
        "SELECT t.id, a.status FROM tasks t LEFT JOIN task_assignments a ON a.task_id=t.id "
        "WHERE t.room_id=? AND t.state='active'",
        (rid,),
    ):
        by_task.setdefault(tid, [])
        if status is not None:
            by_task[tid].append(status)
    for statuses in by_task.values():
        counts[overall_status(statuses)] += 1
    return counts


def message_counts(store: Store, rid: str) -> dict[str, int]:
    """The room's messages per type (types with none are left out)."""
    rows = store.db.execute(
        f"SELECT message_type, COUNT(*) FROM messages WHERE room_id=? "
        f"AND message_type IN ({_COUNTED}) GROUP BY message_type",
        (rid,),
    )
    return {str(t): int(n) for t, n in rows}


class Anchored(msgspec.Struct, frozen=True, kw_only=True):
    """An anchored read of a room's messages and its edges."""

    items: list[MessageRecord]
    has_more: bool
    has_older: bool | None = None
    has_newer: bool | None = None


def anchored(
    store: Store, rid: str, anchor: str, mid: str, limit: int, where: MessageFilter
) -> Anchored:
    """Read room ``rid``'s messages relative to message ``mid``: ``after`` it (oldest first),
    ``before`` it (newest first) or ``around`` it (newest first, ``mid`` included when it
    passes ``where``; a side that runs out leaves its share to the other)."""
    row = store.db.execute("SELECT seq FROM messages WHERE id=? AND room_id=?", (mid, rid))
    found = row.fetchone()
    if found is None:
        raise StoreError(404, "not_found", "message not found in this chat room")
    seq = int(found[0])
    cond, args = where.sql()

    def side(op: str, order: str, n: int) -> list[Any]:
        return store.db.execute(
            f"SELECT * FROM messages WHERE room_id=? AND seq {op} ? {cond} "
            f"ORDER BY seq {order} LIMIT ?",
            (rid, seq, *args, n),
        ).fetchall()

    if anchor == "after":
        rows = side(">", "ASC", limit + 1)
        return Anchored(items=store._shape_all(rows[:limit]), has_more=len(rows) > limit)
    if anchor == "before":
        rows = side("<", "DESC", limit + 1)
        return Anchored(items=store._shape_all(rows[:limit]), has_more=len(rows) > limit)
    newer, older = side(">=", "ASC", limit + 1), side("<", "DESC", limit + 1)
    take_older = min(len(older), limit // 2)
    take_newer = min(len(newer), limit - take_older)
    take_older = min(len(older), limit - take_newer)  # the newer side ran out: older fills
    rows = [*reversed(newer[:take_newer]), *older[:take_older]]
    return Anchored(
        items=store._shape_all(rows),
        has_more=len(older) > take_older,
        has_older=len(older) > take_older,
        has_newer=len(newer) > take_newer,
    )
