"""Room task board persistence (tasks, assignments, task history, room goal board).

Every function takes the ``Store`` first so it can run through ``AsyncStore.run``.
Tables come from schema migration 3 in ``store.py``.
"""

from __future__ import annotations

import uuid
from datetime import datetime

import msgspec

from band.core.wire import Board, JsonObject, Task, TaskActor, TaskAssignment, TaskEvent

from .db import Store, StoreError, dump_json, load_json, now
from .rows import AssignmentRow, BoardRow, EventRow, TaskRow, record

TASK_STATUSES = ("pending", "in_progress", "blocked", "in_review", "failed", "completed")
TASK_STATES = ("active", "cancelled", "superseded", "archived")
LIST_STATES = (*TASK_STATES, "all")
SET_STATES = ("cancelled", "archived", "active")
HISTORY_EMBED = 100


def _invalid(field: str, message: str) -> StoreError:
    return StoreError(422, "validation_error", message, {field: ["is invalid"]})


def actor(store: Store, pid: str) -> TaskActor:
    """TaskActor for a user or agent id."""
    ent = store.entity(pid)
    if ent is None:  # an identity since deleted
        return TaskActor(id=pid, name="unknown", type="User", handle=None)
    return TaskActor(id=pid, name=ent.name, type=ent.type, handle=ent.handle)


def _event(store: Store, row: EventRow) -> TaskEvent:
    return TaskEvent(
        actor=actor(store, row.actor_id),
        at=row.at,
        event=row.event,
        payload=load_json(row.payload),
    )


def _history(store: Store, sql: str, key: str) -> tuple[list[TaskEvent], bool]:
    """The last ``HISTORY_EMBED`` events of ``sql`` (newest first, by ``key``), oldest first,
    and whether older ones were left out."""
    rows = store.db.execute(sql, (key, HISTORY_EMBED + 1)).fetchall()
    events = [_event(store, record(EventRow, r)) for r in reversed(rows[:HISTORY_EMBED])]
    return events, len(rows) > HISTORY_EMBED


def _log(store: Store, tid: str, pid: str, event: str, payload: JsonObject) -> None:
    store.db.execute(
        "INSERT INTO task_events (task_id, actor_id, event, payload, at) VALUES (?,?,?,?,?)",
        (tid, pid, event, dump_json(payload), now()),
    )


def overall_status(statuses: list[str]) -> str:
    """Roll the assignees' statuses up into one task status."""
    if not statuses:
        return "pending"
    if all(s == "completed" for s in statuses):
        return "completed"
    for s in ("failed", "blocked", "in_progress", "in_review"):
        if s in statuses:
            return s
    return "pending" if "pending" in statuses else "completed"


class BoardTask(Task):
    """A task as band dev answers it: band-sdk 6.0.1's ``Task`` (what the SDK decodes) plus
    when its overall status first left pending and when it became completed (null until
    then), which band-client-rest 0.0.51's ``Task`` carries."""

    started_at: datetime | None = None
    completed_at: datetime | None = None


def _milestones(store: Store, tid: str) -> tuple[str | None, str | None]:
    """When the task's overall status first left pending, and when it last became completed
    (None while it is not completed), replayed from its ``status_changed`` history."""
    statuses: dict[str, str] = {}
    started = completed = None
    for at, payload in store.db.execute(
        "SELECT at, payload FROM task_events WHERE task_id=? AND event='status_changed' "
        "ORDER BY seq",
        (tid,),
    ):
        change = load_json(payload)
        statuses[str(change.get("assignee_id"))] = str(change.get("to"))
        overall = overall_status(list(statuses.values()))
        if started is None and overall != "pending":
            started = at
        if overall == "completed":
            completed = completed or at
        else:
            completed = None
    return started, completed


def render(store: Store, row: TaskRow, include_history: bool = False) -> BoardTask:
    """Task shape (spec 2.5) for a ``tasks`` row."""
    rows = [
        record(AssignmentRow, a)
        for a in store.db.execute(
            "SELECT * FROM task_assignments WHERE task_id=? ORDER BY inserted_at", (row.id,)
        )
    ]
    assignments = [a.as_wire(TaskAssignment, assignee=actor(store, a.assignee_id)) for a in rows]
    started, completed = _milestones(store, row.id)
    history: list[TaskEvent] | msgspec.UnsetType = msgspec.UNSET
    truncated: bool | msgspec.UnsetType = msgspec.UNSET
    if include_history:
        sql = "SELECT * FROM task_events WHERE task_id=? ORDER BY seq DESC LIMIT ?"
        history, truncated = _history(store, sql, row.id)
    return row.as_wire(
        BoardTask,
        chat_room_id=row.room_id,
        overall_status=overall_status([a.status for a in rows]),
        created_by=actor(store, row.created_by),
        assignments=assignments,
        started_at=msgspec.convert(started, datetime | None),
        completed_at=msgspec.convert(completed, datetime | None),
        history=history,
        history_truncated=truncated,
    )


def _find(store: Store, rid: str, ref: str) -> TaskRow:
    ref = ref.strip().lstrip("#")
    # a board number: ASCII digits only (str.isdigit also accepts e.g. "²") and small enough
    # for SQLite's 64-bit integers; a larger number names no task (404), never an overflow
    if ref.isascii() and ref.isdigit() and len(ref) <= 18:
        row = store.db.execute(
            "SELECT * FROM tasks WHERE room_id=? AND number=?", (rid, int(ref))
        ).fetchone()
    else:
        row = store.db.execute(
            "SELECT * FROM tasks WHERE room_id=? AND id=?", (rid, ref)
        ).fetchone()
    if row is None:
        raise StoreError(404, "not_found", "task not found")
    return record(TaskRow, row)


def list_tasks(
    store: Store, rid: str, state: str, cursor: int | None, limit: int
) -> tuple[list[Task], bool, int | None]:
    """Return (tasks, has_more, next_cursor) in board-number order after ``cursor``."""
    sql, args = "SELECT * FROM tasks WHERE room_id=? AND number>?", [rid, cursor or 0]
    if state != "all":
        sql += " AND state=?"
        args.append(state)
    rows = store.db.execute(sql + " ORDER BY number LIMIT ?", (*args, limit + 1)).fetchall()
    more = len(rows) > limit
    page = [record(TaskRow, r) for r in rows[:limit]]
    return [render(store, t) for t in page], more, (page[-1].number if more and page else None)


def create_task(
    store: Store, rid: str, pid: str, subject: str, detail: str, supersedes: str | None
) -> Task:
    """Create a task (optionally superseding an active one) and log its history."""
    old = _find(store, rid, supersedes) if supersedes else None
    if old is not None and old.state != "active":
        raise _invalid("supersedes_id", "only an active task can be superseded")
    tid, ts = str(uuid.uuid4()), now()
    store.db.execute("BEGIN")
    try:
        number = store.db.execute(
            "SELECT COALESCE(MAX(number), 0) + 1 FROM tasks WHERE room_id=?", (rid,)
        ).fetchone()[0]
        store.db.execute(
            "INSERT INTO tasks VALUES (?,?,?,?,?,?,?,?,?,?)",
            (tid, rid, number, subject, detail, "active", pid, None, ts, ts),
        )
        payload: JsonObject = {"subject": subject, "detail": detail}
        if old is not None:
            payload["supersedes_id"] = old.id
            store.db.execute(
                "UPDATE tasks SET state='superseded', superseded_by_id=?, updated_at=? WHERE id=?",
                (tid, ts, old.id),
            )
            _log(
                store,
                old.id,
                pid,
                "superseded",
                {"from": "active", "to": "superseded", "superseded_by_id": tid},
            )
        _log(store, tid, pid, "created", payload)
        store.db.execute("COMMIT")
    except Exception:
        store.db.execute("ROLLBACK")
        raise
    return get_task(store, rid, tid)


def get_task(store: Store, rid: str, ref: str, include_history: bool = False) -> Task:
    """Return one task in any state."""
    return render(store, _find(store, rid, ref), include_history)


def _set_state(store: Store, row: TaskRow, pid: str, state: str) -> None:
    current = row.state
    if current == state:
        return
    if current == "superseded":
        raise _invalid("state", "a superseded task cannot change state")
    event = {"cancelled": "cancelled", "archived": "archived", "active": "unarchived"}[state]
    store.db.execute("UPDATE tasks SET state=?, updated_at=? WHERE id=?", (state, now(), row.id))
    _log(store, row.id, pid, event, {"from": current, "to": state})


def _work(store: Store, row: TaskRow, pid: str, fields: JsonObject) -> None:
    tid, ts = row.id, now()
    text = {"subject": row.subject, "detail": row.detail}
    edits = {k: fields[k] for k in text if k in fields}
    changed = {k: v for k, v in edits.items() if text[k] != v}
    if changed:
        sets = ", ".join(f"{k}=?" for k in changed)
        store.db.execute(
            f"UPDATE tasks SET {sets}, updated_at=? WHERE id=?", (*changed.values(), ts, tid)
        )
        _log(
            store,
            tid,
            pid,
            "edited",
            {"from": {k: text[k] for k in changed}, "to": changed},
        )
    own: JsonObject = {
        k: fields[k] for k in ("status", "active_form", "linked_native_id") if k in fields
    }
    if own:
        cur = store.db.execute(
            "SELECT * FROM task_assignments WHERE task_id=? AND assignee_id=?", (tid, pid)
        ).fetchone()
        mine = record(AssignmentRow, cur) if cur else None
        before: JsonObject = (
            {
                "status": mine.status,
                "active_form": mine.active_form,
                "linked_native_id": mine.linked_native_id,
            }
            if mine
            else {"status": None, "active_form": "", "linked_native_id": ""}
        )
        after: JsonObject = {**before, **own}
        if after["status"] is None:
            after["status"] = "pending"
        store.db.execute(
            "INSERT INTO task_assignments VALUES (?,?,?,?,?,?,?) "
            "ON CONFLICT(task_id, assignee_id) DO UPDATE SET status=excluded.status, "
            "active_form=excluded.active_form, linked_native_id=excluded.linked_native_id, "
            "updated_at=excluded.updated_at",
            (tid, pid, after["status"], after["active_form"], after["linked_native_id"], ts, ts),
        )
        store.db.execute("UPDATE tasks SET updated_at=? WHERE id=?", (ts, tid))
        if "status" in own and before["status"] != own["status"]:
            _log(
                store,
                tid,
                pid,
                "status_changed",
                {"assignee_id": pid, "from": before["status"], "to": own["status"]},
            )
    if "comment" in fields:
        store.db.execute("UPDATE tasks SET updated_at=? WHERE id=?", (ts, tid))
        _log(store, tid, pid, "commented", {"comment": fields["comment"]})


def update_task(store: Store, rid: str, ref: str, pid: str, fields: JsonObject) -> Task:
    """Apply an update; work fields need an active task (a restore applies first)."""
    row = _find(store, rid, ref)
    tid = row.id
    state = fields.get("state")
    work = {k: v for k, v in fields.items() if k != "state"}
    store.db.execute("BEGIN")
    try:
        if state == "active":
            _set_state(store, row, pid, state)
            row = _find(store, rid, tid)
        if work:
            if row.state != "active":
                raise _invalid("state", "task is not active")
            _work(store, row, pid, work)
        if state is not None and state != "active":
            _set_state(store, _find(store, rid, tid), pid, state)
        store.db.execute("COMMIT")
    except Exception:
        store.db.execute("ROLLBACK")
        raise
    return get_task(store, rid, tid)


def task_history(
    store: Store, rid: str, ref: str, cursor: int | None, limit: int
) -> tuple[list[TaskEvent], bool, int | None]:
    """Return (events, has_more, next_cursor), oldest first."""
    tid = _find(store, rid, ref).id
    rows = store.db.execute(
        "SELECT * FROM task_events WHERE task_id=? AND seq>? ORDER BY seq LIMIT ?",
        (tid, cursor or 0, limit + 1),
    ).fetchall()
    more = len(rows) > limit
    page = [record(EventRow, r) for r in rows[:limit]]
    return [_event(store, r) for r in page], more, (page[-1].seq if more and page else None)


def _board(store: Store, rid: str) -> BoardRow | None:
    row = store.db.execute("SELECT * FROM boards WHERE room_id=?", (rid,)).fetchone()
    return record(BoardRow, row) if row else None


def get_board(store: Store, rid: str, include_history: bool = False) -> Board:
    """Board shape; a default board (null goal) when none was set."""
    row = _board(store, rid)
    board = Board(chat_room_id=rid, history=msgspec.UNSET, history_truncated=msgspec.UNSET)
    if row is not None:
        board = msgspec.structs.replace(
            board,
            goal_title=row.goal_title,
            goal_summary=row.goal_summary,
            created_by=actor(store, row.created_by),
            updated_by=actor(store, row.updated_by),
            inserted_at=row.inserted_at,
            updated_at=row.updated_at,
        )
    if include_history:
        sql = "SELECT * FROM board_events WHERE room_id=? ORDER BY seq DESC LIMIT ?"
        history, truncated = _history(store, sql, rid)
        board = msgspec.structs.replace(board, history=history, history_truncated=truncated)
    return board


def put_board(store: Store, rid: str, pid: str, fields: JsonObject) -> Board:
    """Upsert the room goal (only the sent fields change) and log goal_set / goal_edited."""
    row = _board(store, rid)
    ts = now()
    if row is None:
        store.db.execute(
            "INSERT INTO boards VALUES (?,?,?,?,?,?,?)",
            (rid, fields.get("goal_title"), fields.get("goal_summary"), pid, pid, ts, ts),
        )
        event, payload = "goal_set", {"to": fields}
    else:
        sets = ", ".join(f"{k}=?" for k in fields)
        store.db.execute(
            f"UPDATE boards SET {sets}, updated_by=?, updated_at=? WHERE room_id=?",
            (*fields.values(), pid, ts, rid),
        )
        goal = {"goal_title": row.goal_title, "goal_summary": row.goal_summary}
        event, payload = "goal_edited", {"from": {k: goal[k] for k in fields}, "to": fields}
    store.db.execute(
        "INSERT INTO board_events (room_id, actor_id, event, payload, at) VALUES (?,?,?,?,?)",
        (rid, pid, event, dump_json(payload), ts),
    )
    return get_board(store, rid)
