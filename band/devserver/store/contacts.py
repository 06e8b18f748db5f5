"""Contacts and contact requests (functions over ``Store``; run them via ``AsyncStore.run``).

Tables (store.py migration 2): ``contact_requests`` and ``contacts``. A contact is stored as
two rows, one per direction, so each side lists and removes it independently of the other.
"""

from __future__ import annotations

import uuid

from .db import Store, StoreError, now
from .rows import ContactRecord, ContactRequestRecord, Entity, record

SENT_STATUSES = ("pending", "approved", "rejected", "cancelled", "expired", "all")
ACTIONS = ("approve", "reject", "cancel")


def resolve_handle(store: Store, handle: str) -> Entity:
    """Resolve ``@user`` or ``@user/agent`` (``@`` optional) to an entity, else 404."""
    h = handle.strip().lstrip("@")
    if not h:
        raise StoreError(400, "bad_request", "handle can't be blank")
    row = store.db.execute("SELECT id FROM agents WHERE handle=?", (h,)).fetchone()
    if row is None:
        row = store.db.execute("SELECT id FROM users WHERE handle=?", (h,)).fetchone()
    ent = store.entity(row[0]) if row is not None else None
    if ent is None:
        raise StoreError(404, "not_found", f"no user or agent with handle @{h}")
    return ent


def is_contact(store: Store, owner_id: str, other_id: str) -> bool:
    """Whether ``other_id`` is a contact of ``owner_id``."""
    return store.exists(
        "SELECT 1 FROM contacts WHERE owner_id=? AND contact_id=?", (owner_id, other_id)
    )


def _request(store: Store, request_id: str) -> ContactRequestRecord | None:
    row = store.db.execute("SELECT * FROM contact_requests WHERE id=?", (request_id,)).fetchone()
    if row is None:
        return None
    parties = store.entity(row["requester_id"]), store.entity(row["recipient_id"])
    return record(ContactRequestRecord, row, requester=parties[0], recipient=parties[1])


def _found(store: Store, request_id: str) -> ContactRequestRecord:
    """The request ``request_id`` known to exist (404 should it be gone)."""
    req = _request(store, request_id)
    if req is None:
        raise StoreError(404, "not_found", "contact request not found")
    return req


def _link(store: Store, req: ContactRequestRecord, ts: str) -> None:
    """Store the contact both ways (each side lists and removes its own row)."""
    sides = (req.requester_id, req.requester_type), (req.recipient_id, req.recipient_type)
    for (owner, _), (other, kind) in (sides, sides[::-1]):
        store.db.execute(
            "INSERT OR IGNORE INTO contacts (id, owner_id, contact_id, contact_type, inserted_at) "
            "VALUES (?,?,?,?,?)",
            (str(uuid.uuid4()), owner, other, kind, ts),
        )


def _set_status(store: Store, req: ContactRequestRecord, status: str) -> ContactRequestRecord:
    ts = now()
    store.db.execute(
        "UPDATE contact_requests SET status=?, responded_at=? WHERE id=?", (status, ts, req.id)
    )
    if status == "approved":
        _link(store, req, ts)
    return _found(store, req.id)


def create_request(
    store: Store, requester_id: str, handle: str, message: str | None
) -> ContactRequestRecord:
    """Send a contact request; auto-approve when the other side already asked.

    Returns the request (status ``pending`` or ``approved``).
    """
    me = store.entity(requester_id)
    if me is None:
        raise StoreError(404, "not_found", "requester not found")
    other = resolve_handle(store, handle)
    if other.id == requester_id:
        raise StoreError(400, "bad_request", "you cannot add yourself as a contact")
    if is_contact(store, requester_id, other.id):
        raise StoreError(409, "conflict", f"@{other.handle} is already a contact")
    pending = store.db.execute(
        "SELECT id, requester_id FROM contact_requests WHERE status='pending' AND "
        "((requester_id=? AND recipient_id=?) OR (requester_id=? AND recipient_id=?))",
        (requester_id, other.id, other.id, requester_id),
    ).fetchone()
    if pending is not None and pending["requester_id"] == requester_id:
        raise StoreError(409, "conflict", f"a request to @{other.handle} is already pending")
    if pending is not None:
        return _set_status(store, _found(store, pending["id"]), "approved")
    rid = str(uuid.uuid4())
    store.db.execute(
        "INSERT INTO contact_requests (id, requester_id, requester_type, recipient_id, "
        "recipient_type, status, message, inserted_at) VALUES (?,?,?,?,?,?,?,?)",
        (rid, requester_id, me.type, other.id, other.type, "pending", message, now()),
    )
    return _found(store, rid)


def respond(
    store: Store, pid: str, action: str, handle: str | None, request_id: str | None
) -> ContactRequestRecord:
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
        req = get_request(store, pid, request_id)
        own = req.recipient_id if action != "cancel" else req.requester_id
        if own != pid:
            side = "recipient" if action != "cancel" else "requester"
            raise StoreError(403, "forbidden", f"only the {side} can {action} this request")
        if req.status != "pending":
            raise StoreError(409, "conflict", f"contact request is already {req.status}")
    elif handle:
        other = resolve_handle(store, handle)
        row = store.db.execute(
            f"SELECT id FROM contact_requests WHERE {mine}=? AND {theirs}=? AND status='pending' "
            "ORDER BY seq DESC LIMIT 1",
            (pid, other.id),
        ).fetchone()
        if row is None:
            raise StoreError(404, "not_found", f"no pending contact request with @{other.handle}")
        req = _found(store, row[0])
    else:
        raise StoreError(400, "bad_request", "Either handle or request_id must be provided")
    status = {"approve": "approved", "reject": "rejected", "cancel": "cancelled"}[action]
    return _set_status(store, req, status)


def list_requests(
    store: Store, pid: str, direction: str, status: str | None, page: int, page_size: int
) -> tuple[list[ContactRequestRecord], int]:
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
    return [_found(store, r[0]) for r in rows], int(total)


def get_request(store: Store, pid: str, request_id: str) -> ContactRequestRecord:
    """Return a request ``pid`` is a party to, else 404."""
    req = _request(store, request_id)
    if req is None or pid not in (req.requester_id, req.recipient_id):
        raise StoreError(404, "not_found", "contact request not found")
    return req


def list_contacts(
    store: Store, pid: str, page: int, page_size: int
) -> tuple[list[ContactRecord], int]:
    """Page of ``pid``'s contacts (row + ``entity``), oldest first."""
    total = store.db.execute("SELECT COUNT(*) FROM contacts WHERE owner_id=?", (pid,)).fetchone()
    rows = store.db.execute(
        "SELECT * FROM contacts WHERE owner_id=? ORDER BY seq LIMIT ? OFFSET ?",
        (pid, page_size, (page - 1) * page_size),
    ).fetchall()
    out = [record(ContactRecord, r, entity=store.entity(r["contact_id"])) for r in rows]
    return out, int(total[0])


def remove_contact(
    store: Store, pid: str, handle: str | None, contact_id: str | None
) -> tuple[str, str]:
    """Remove a contact in both directions; return the removed party's (id, type).

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
        other_id = resolve_handle(store, handle).id
        if not is_contact(store, pid, other_id):
            raise StoreError(404, "not_found", f"@{handle.lstrip('@')} is not a contact")
    else:
        raise StoreError(400, "bad_request", "Either handle or contact_id must be provided")
    store.db.execute(
        "DELETE FROM contacts WHERE (owner_id=? AND contact_id=?) OR (owner_id=? AND contact_id=?)",
        (pid, other_id, other_id, pid),
    )
    other = store.entity(other_id)
    return other_id, other.type if other else "Agent"
