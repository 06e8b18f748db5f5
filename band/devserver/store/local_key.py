"""The local person's key, kept beside band dev's database in an owner-only file of its own.

The database holds only the key's hash (``users.key_hash``, as for every agent) and the local
person's id, so a database file copied or attached to a bug report hands out no key. ``band dev``
writes the file when it makes (or is given) the key; the CLI reads it through ``--db``; the web
view's login gets the key from the running server (``GET /dev/session``, loopback only).
"""

from __future__ import annotations

from pathlib import Path

from band.private_files import write_private

#: ``.band/dev.sqlite3`` keeps its person's key in ``.band/dev.sqlite3.user-key``
SUFFIX = ".user-key"


def key_file(db_path: str | Path) -> Path | None:
    """Where the local person's key of the database at ``db_path`` is kept (None: in memory)."""
    if str(db_path) == ":memory:":
        return None
    path = Path(db_path)
    return path.with_name(path.name + SUFFIX)


def read_key(db_path: str | Path) -> str | None:
    """The key kept beside ``db_path``, if any."""
    path = key_file(db_path)
    try:
        text = path.read_text(encoding="utf-8").strip() if path else ""
    except FileNotFoundError:
        return None
    return text or None


def keep_key(db_path: str | Path, key: str) -> None:
    """Keep ``key`` beside ``db_path`` (owner-only; nothing for an in-memory database)."""
    path = key_file(db_path)
    if path is not None and read_key(db_path) != key:
        write_private(path, key + "\n")
