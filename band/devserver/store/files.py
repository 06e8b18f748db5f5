"""Room file persistence: bytes stored in SQLite (table ``files`` from migration 3)."""

from __future__ import annotations

import hashlib
import uuid

from band.core.wire import Attachment

from .db import Store, StoreError, attachment, now
from .rows import FileRow, record

MAX_FILE_BYTES = 25 * 1024 * 1024


def put_file(
    store: Store,
    rid: str,
    pid: str,
    name: str,
    content_type: str,
    blob: bytes,
    claimed_sha256: str | None,
) -> Attachment:
    """Store ``blob`` in room ``rid``; the same bytes in the same room dedupe to one record."""
    digest = hashlib.sha256(blob).hexdigest()
    if claimed_sha256 is not None and claimed_sha256 != digest:
        raise StoreError(
            422,
            "validation_error",
            "x-file-sha256 does not match the uploaded bytes",
            {"x-file-sha256": ["does not match the body"]},
        )
    row = store.db.execute(
        "SELECT * FROM files WHERE room_id=? AND sha256=?", (rid, digest)
    ).fetchone()
    if row is None:
        fid = str(uuid.uuid4())
        store.db.execute(
            "INSERT INTO files VALUES (?,?,?,?,?,?,?,?,?)",
            (fid, rid, name, content_type, len(blob), digest, blob, pid, now()),
        )
        row = store.db.execute("SELECT * FROM files WHERE id=?", (fid,)).fetchone()
    return attachment(row)


def get_file(store: Store, rid: str, fid: str) -> FileRow:
    """Return the file row (with ``data``) of room ``rid``, else 404."""
    row = store.db.execute("SELECT * FROM files WHERE room_id=? AND id=?", (rid, fid)).fetchone()
    if row is None:
        raise StoreError(404, "not_found", "file not found")
    return record(FileRow, row)


def room_file_ids(store: Store, rid: str, ids: list[str]) -> set[str]:
    """Return which of ``ids`` name files in room ``rid`` (for attachment validation)."""
    if not ids:
        return set()
    marks = ",".join("?" * len(ids))
    rows = store.db.execute(
        f"SELECT id FROM files WHERE room_id=? AND id IN ({marks})", (rid, *ids)
    )
    return {r[0] for r in rows}
