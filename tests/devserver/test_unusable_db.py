"""A path that can't be band dev's database is refused in one line, and left as it was.

Before: ``band dev --db DIR`` tightened the directory to 0600 (no one could enter it) and then
died in a traceback; another program's SQLite file got band dev's ``schema_version`` table and
a write-ahead log before a traceback; a database a newer band dev wrote was served with a schema
this one misreads.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import stat
from collections.abc import Callable
from pathlib import Path

import pytest

from band.devserver.store.db import SCHEMA_VERSION, Store
from band.devserver.store.usable import UnusableDatabase

from .test_cli import _free_port, band_cli


def _directory(tmp_path: Path) -> Path:
    path = tmp_path / "data"
    path.mkdir(mode=0o755)
    os.chmod(path, 0o755)
    return path


def _text_file(tmp_path: Path) -> Path:
    path = tmp_path / "notes.txt"
    path.write_text("not a database\n")
    return path


def _foreign(tmp_path: Path) -> Path:
    path = tmp_path / "app.sqlite3"
    db = sqlite3.connect(path)
    db.executescript(
        "CREATE TABLE users (x); CREATE TABLE messages (a, b); INSERT INTO users VALUES (1)"
    )
    db.commit()
    db.close()
    os.chmod(path, 0o644)
    return path


def _newer(tmp_path: Path) -> Path:
    path = tmp_path / "newer.sqlite3"
    Store(path).db.close()
    db = sqlite3.connect(path)
    db.execute("INSERT INTO schema_version (version) VALUES (?)", (SCHEMA_VERSION + 1,))
    db.commit()
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    return path


CASES: dict[str, tuple[Callable[[Path], Path], str]] = {
    "directory": (_directory, "is a directory; band dev's database is a file: give its path"),
    "text file": (_text_file, "is not a SQLite database; band dev left it as it is"),
    "another program's": (
        _foreign,
        "is another program's SQLite database (tables: messages, users), not band dev's",
    ),
    "a newer band dev's": (
        _newer,
        f"was written by a newer band dev (schema version {SCHEMA_VERSION + 1}; "
        f"this one knows up to {SCHEMA_VERSION}): upgrade band-open-sdk",
    ),
}


def _state(path: Path) -> tuple[int, str, list[str]]:
    """What refusing must not change: the mode, the bytes, and the files beside it."""
    mode = stat.S_IMODE(path.stat().st_mode)
    digest = "" if path.is_dir() else hashlib.sha256(path.read_bytes()).hexdigest()
    return mode, digest, sorted(p.name for p in path.parent.iterdir())


@pytest.mark.parametrize("case", list(CASES))
def test_the_store_refuses_and_touches_nothing(tmp_path: Path, case: str) -> None:
    make, message = CASES[case]
    path = make(tmp_path)
    before = _state(path)
    with pytest.raises(UnusableDatabase) as refused:
        Store(path)
    assert message in str(refused.value) and str(path) in str(refused.value)
    assert _state(path) == before


@pytest.mark.parametrize("case", list(CASES))
def test_band_dev_refuses_in_one_line(tmp_path: Path, case: str) -> None:
    make, message = CASES[case]
    path = make(tmp_path)
    before = _state(path)
    proc = band_cli("dev", "--port", str(_free_port()), "--db", str(path))
    assert proc.returncode == 2 and proc.stdout == "", proc.stderr
    assert proc.stderr.startswith(f"error: {path} ") and message in proc.stderr
    assert proc.stderr.count("\n") == 1, proc.stderr
    assert _state(path) == before


def test_user_create_refuses_another_programs_database(tmp_path: Path) -> None:
    path = _foreign(tmp_path)
    before = _state(path)
    proc = band_cli("dev", "user", "create", "Ann", "--db", str(path))
    assert proc.returncode == 2 and message_of(proc.stderr) == (
        f"{path} is another program's SQLite database (tables: messages, users), not band "
        "dev's; band dev left it as it is: give a new path for band dev's own"
    )
    assert _state(path) == before


def message_of(stderr: str) -> str:
    """The one ``error:`` line's message."""
    (line,) = stderr.splitlines()
    assert line.startswith("error: "), stderr
    return line.removeprefix("error: ")


def test_an_empty_file_and_band_devs_own_database_open(tmp_path: Path) -> None:
    empty = tmp_path / "empty.sqlite3"
    empty.touch()
    assert Store(empty).schema_version() == SCHEMA_VERSION
    Store(tmp_path / "own.sqlite3").db.close()
    assert Store(tmp_path / "own.sqlite3").schema_version() == SCHEMA_VERSION
