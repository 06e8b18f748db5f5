"""Contacts and contact requests (functions over ``Store``; run them via ``AsyncStore.run``).

Tables (store.py migration 2): ``contact_requests`` and ``contacts``. A contact is stored as
two rows, one per direction, so each side lists and removes it independently of the other.
"""

from __future__ import annotations

import uuid
from typing import Any

import msgspec

from .store import Store, StoreError, now

SENT_STATUSES = ("pending", "approved", "rejected", "cancelled", "expired", "all")
ACTIONS = ("approve", "reject", "cancel")


def public_entity(store: Store, pid: str) -> dict[str, Any] | None:
    """Return ``{id, type, name, handle, description, email, owner_id}`` (no secrets)."""
    ent = store.entity(pid)
    return None if ent is None else msgspec.structs.asdict(ent)


def resolve_handle(store: Store, handle: str) -> dict[str, Any]:
    """Resolve ``@user`` or ``@user/agent`` (``@`` optional) to an entity, else 404."""
    h = handle.strip().lstrip("@")
    if not h:
        raise StoreError(400, "bad_request", "handle can't be blank")
    row = store.db.execute("SELECT id FROM agents WHERE handle=?", (h,)).fetchone()
    if row is None:
        row = store.db.execute("SELECT id FROM users WHERE handle=?", (h,)).fetchone()
    if row is None:
        raise StoreError(404, "not_found", f"no user or agent with handle @{h}")
    return public_entity(store, row[0])  # type: ignore[return-value]


def is_contact(store: Store, owner_id: str, other_id: str) -> bool:
    """Whether ``other_id`` is a contact of ``owner_id``."""
    row = store.db.execute(
        "SELECT 1 FROM contacts WHERE owner_id=? AND contact_id=?", (owner_id, other_id)
    ).fetchone()
    return row is not None


def _request(store: Store, request_id: str) -> dict[str, Any] | None:
    row = store.db.execute("SELECT * FROM contact_requests WHERE id=?", (request_id,)).fetchone()
    if row is None:
        return None
    req = dict(row)
    req["requester"] = public_entity(store, req["requester_id"]) or {"id": req["requester_id"]}
    req["recipient"] = public_entity(store, req["recipient_id"]) or {"id": req["recipient_id"]}
    return req


def _link(store: Store, a: dict[str, Any], b: dict[str, Any], ts: str) -> None:
    for owner, other in ((a, b), (b, a)):
        store.db.execute(
            "INSERT OR IGNORE INTO contacts (id, owner_id, contact_id, contact_type, inserted_at) "
            "VALUES (?,?,?,?,?)",
            (str(uuid.uuid4()), owner["id"], other["id"], other["type"], ts),
        )


def _set_status(store: Store, req: dict[str, Any], status: str) -> dict[str, Any]:
    ts = now()
    store.db.execute(
        "UPDATE contact_requests SET status=?, responded_at=? WHERE id=?", (status, ts, req["id"])
    )
    if status == "approved":
        _link(store, req["requester"], req["recipient"], ts)
    return _request(store, req["id"])  # type: ignore[return-value]


def create_request(
    store: Store, requester_id: str, handle: str, message: str | None
) -> dict[str, Any]:
    """Send a contact request; auto-approve when the other side already asked.

    Returns the request (status ``pending`` or ``approved``).
    """
    me = public_entity(store, requester_id)
    if me is None:
        raise StoreError(404, "not_found", "requester not found")
    other = resolve_handle(store, handle)
    if other["id"] == requester_id:
        raise StoreError(400, "bad_request", "you cannot add yourself as a contact")
    if is_contact(store, requester_id, other["id"]):
        raise StoreError(409, "conflict", f"@{other['handle']} is already a contact")
    pending = store.db.execute(
        "SELECT id, requester_id FROM contact_requests WHERE status='pending' AND "
        "((requester_id=? AND recipient_id=?) OR (requester_id=? AND recipient_id=?))",
        (requester_id, other["id"], other["id"], requester_id),
    ).fetchone()
    if pending is not None and pending["requester_id"] == requester_id:
        raise StoreError(409, "conflict", f"a request to @{other['handle']} is already pending")
    if pending is not None:
        return _set_status(store, _request(store, pending["id"]), "approved")  # type: ignore[arg-type]
    rid = str(uuid.uuid4())
    store.db.execute(
        "INSERT INTO contact_requests (id, requester_id, requester_type, recipient_id, "
        "recipient_type, status, message, inserted_at) VALUES (?,?,?,?,?,?,?,?)",
        (rid, requester_id, me["type"], other["id"], other["type"], "pending", message, now()),
    )
    return _request(store, rid)  # type: ignore[return-value]


def respond(
    store: Store, pid: str, action: str, handle: str | None, request_id: str | None
) -> dict[str, Any]:
    """Approve/reject a received pending request or cancel a sent one; return it."""
    if action not in ACTIONS:
        raise StoreError(
            422,
            "validation_error",
            "action must be approve, reject or cancel",
            {"action": ["invalid"]},
        )
    mine, theirs = ("recipient_id", "requester_id")
    if action == "cancel":
        mine, theirs = theirs, mine
    if request_id:
        req = _request(store, request_id)
        if req is None or pid not in (req["requester_id"], req["recipient_id"]):
            raise StoreError(404, "not_found", "contact request not found")
        if req[mine] != pid:
            side = "recipient" if action != "cancel" else "requester"
            raise StoreError(403, "forbidden", f"only the {side} can {action} this request")
        if req["status"] != "pending":
            raise StoreError(409, "conflict", f"contact request is already {req['status']}")
    elif handle:
        other = resolve_handle(store, handle)
        row = store.db.execute(
            f"SELECT id FROM contact_requests WHERE {mine}=? AND {theirs}=? AND status='pending' "
            "ORDER BY seq DESC LIMIT 1",
            (pid, other["id"]),
        ).fetchone()
        if row is None:
            raise StoreError(
                404, "not_found", f"no pending contact request with @{other['handle']}"
            )
        found = _request(store, row[0])
        assert found is not None
        req = found
    else:
        raise StoreError(400, "bad_request", "Either handle or request_id must be provided")
    status = {"approve": "approved", "reject": "rejected", "cancel": "cancelled"}[action]
    return _set_status(store, req, status)


def list_requests(
    store: Store, pid: str, direction: str, status: str | None, page: int, page_size: int
) -> tuple[list[dict[str, Any]], int]:
    """Page of received (``direction='received'``) or sent requests, newest first."""
    col = "recipient_id" if direction == "received" else "requester_id"
    where, args = f"{col}=?", [pid]
    if status and status != "all":
        where += " AND status=?"
        args.append(status)
    total = store.db.execute(
        f"SELECT COUNT(*) FROM contact_requests WHERE {where}", args
    ).fetchone()[0]
    rows = store.db.execute(
        f"SELECT id FROM contact_requests WHERE {where} ORDER BY seq DESC LIMIT ? OFFSET ?",
        [*args, page_size, (page - 1) * page_size],
    ).fetchall()
    return [_request(store, r[0]) for r in rows], int(total)  # type: ignore[misc]


def get_request(store: Store, pid: str, request_id: str) -> dict[str, Any]:
    """Return a request ``pid`` is a party to, else 404."""
    req = _request(store, request_id)
    if req is None or pid not in (req["requester_id"], req["recipient_id"]):
        raise StoreError(404, "not_found", "contact request not found")
    return req


def list_contacts(
    store: Store, pid: str, page: int, page_size: int
) -> tuple[list[dict[str, Any]], int]:
    """Page of ``pid``'s contacts (row + ``entity``), oldest first."""
    total = store.db.execute("SELECT COUNT(*) FROM contacts WHERE owner_id=?", (pid,)).fetchone()
    rows = store.db.execute(
        "SELECT * FROM contacts WHERE owner_id=? ORDER BY seq LIMIT ? OFFSET ?",
        (pid, page_size, (page - 1) * page_size),
    ).fetchall()
    out = []
    for r in rows:
        row = dict(r)
        row["entity"] = public_entity(store, row["contact_id"]) or {
            "id": row["contact_id"],
            "type": row["contact_type"],
            "name": None,
            "handle": None,
            "description": None,
        }
        out.append(row)
    return out, int(total[0])


def remove_contact(
    store: Store, pid: str, handle: str | None, contact_id: str | None
) -> dict[str, Any]:
    """Remove a contact in both directions; return the removed entity.

    ``contact_id`` may be the contact's user/agent id or the contact row id.
    """
    if contact_id:
        row = store.db.execute(
            "SELECT contact_id FROM contacts WHERE owner_id=? AND (contact_id=? OR id=?)",
            (pid, contact_id, contact_id),
        ).fetchone()
        if row is None:
            raise StoreError(404, "not_found", "contact not found")
        other_id = row[0]
    elif handle:
        other_id = resolve_handle(store, handle)["id"]
        if not is_contact(store, pid, other_id):
            raise StoreError(404, "not_found", f"@{handle.lstrip('@')} is not a contact")
    else:
        raise StoreError(400, "bad_request", "Either handle or contact_id must be provided")
    store.db.execute(
        "DELETE FROM contacts WHERE (owner_id=? AND contact_id=?) OR (owner_id=? AND contact_id=?)",
        (pid, other_id, other_id, pid),
    )
    return public_entity(store, other_id) or {"id": other_id, "type": "Agent"}
