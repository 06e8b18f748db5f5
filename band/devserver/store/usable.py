"""Whether a path can be band dev's database, checked before anything touches it.

band dev tightens its database file to owner-only, switches it to a write-ahead log and applies
its schema: none of that may happen to a directory, to another program's SQLite file or to a
database a newer band dev wrote (whose schema this one would misread).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

__all__ = ["SQLITE_HEADER", "UnusableDatabase", "refuse_unusable"]

#: the first 16 bytes of every SQLite 3 database file
SQLITE_HEADER = b"SQLite format 3\x00"


class UnusableDatabase(sqlite3.DatabaseError):
    """The path given as band dev's database can't be one; the message says why and what to do.

    A ``sqlite3.DatabaseError``: code that caught SQLite's own errors on opening catches it too.
    """


def refuse_unusable(path: Path, schema_version: int) -> None:
    """Raise :class:`UnusableDatabase` unless ``path`` is missing, empty or band dev's own
    database at ``schema_version`` or older; reads only, so a refused file is left as it was."""
    if path.is_dir():
        raise UnusableDatabase(
            f"{path} is a directory; band dev's database is a file: "
            f"give its path, e.g. {path / 'dev.sqlite3'}"
        )
    try:
        with path.open("rb") as file:
            header = file.read(len(SQLITE_HEADER))
    except FileNotFoundError:
        return
    except OSError as exc:
        raise UnusableDatabase(f"cannot read {path}: {exc.strerror or exc}") from None
    if not header:
        return  # an empty file is an empty database to SQLite
    if header != SQLITE_HEADER:
        raise UnusableDatabase(f"{path} is not a SQLite database; band dev left it as it is")
    tables, version = _read_schema(path)
    # a schema_version table without rows is what a refused migration 1 left in a foreign file
    others = tables - {"schema_version"}
    if others and version is None:
        shown = ", ".join(sorted(others)[:5]) + (", ..." if len(others) > 5 else "")
        raise UnusableDatabase(
            f"{path} is another program's SQLite database (tables: {shown}), not band dev's; "
            "band dev left it as it is: give a new path for band dev's own"
        )
    if version is not None and version > schema_version:
        raise UnusableDatabase(
            f"{path} was written by a newer band dev (schema version {version}; this one knows "
            f"up to {schema_version}): upgrade band-open-sdk, or give another path"
        )


def _read_schema(path: Path) -> tuple[set[str], int | None]:
    """The database's table names and its highest applied band dev migration (reads only)."""
    try:
        # not ``mode=ro``: a read-only connection to a database in WAL mode leaves -wal and -shm
        # files behind, which a read-write one (the last to close) removes; it writes nothing
        db = sqlite3.connect(path)
    except sqlite3.Error as exc:
        raise UnusableDatabase(f"cannot open {path} as SQLite: {exc}") from None
    try:
        rows = db.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()
        tables = {str(name) for (name,) in rows}
        if "schema_version" not in tables:
            return tables, None
        (version,) = db.execute("SELECT MAX(version) FROM schema_version").fetchone()
        return tables, None if version is None else int(version)
    except sqlite3.Error as exc:
        raise UnusableDatabase(f"cannot read {path} as SQLite: {exc}") from None
    finally:
        db.close()
