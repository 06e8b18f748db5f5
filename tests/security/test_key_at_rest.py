"""The local person's key is not stored in band dev's database: only its hash (like every
agent's), the key itself in an owner-only file beside the database, so a copied database file
hands out no key. Every login path still finds it (``band dev``, the CLI's ``--db``, the web
view's ``/dev/session``)."""

from __future__ import annotations

import sqlite3
import stat
from pathlib import Path

from band.cli import main
from band.devserver.app import create_app
from band.devserver.store.db import Store, hash_key
from band.devserver.store.local_key import key_file
from band.devserver.web.view import session


def _db_bytes(db: Path) -> bytes:
    """Everything SQLite keeps of ``db``: the file and its write-ahead log and shared memory."""
    return b"".join(
        p.read_bytes() for p in db.parent.iterdir() if p.name.startswith(db.name + "-") or p == db
    )


def test_no_key_is_readable_from_the_database_files(tmp_path: Path) -> None:
    db = tmp_path / "dev.sqlite3"
    app = create_app(db)
    person = str(app.state.user_key)
    store = Store(db)
    user = store.user_by_key(person)
    assert user is not None
    _, agent_key = store.create_agent(user.id, "Bot", "d")
    store.close()
    files = _db_bytes(db)
    for key in (person, agent_key):
        assert key.encode() not in files
    assert hash_key(person).encode() in files  # what authenticates the person
    kept = key_file(db)
    assert kept is not None and kept.read_text().strip() == person
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600
    app.state.directory.close()


def test_every_login_path_finds_the_kept_key(tmp_path: Path, capsys: object) -> None:
    db = tmp_path / "dev.sqlite3"
    first = create_app(db)
    key = str(first.state.user_key)
    first.state.directory.close()
    again = create_app(db)  # band dev on the same database: the same person, the same key
    assert again.state.user_key == key
    assert again.state.user_id == first.state.user_id
    again.state.directory.close()
    store = Store(db)  # what the CLI's --db reads (band rooms, band send, band dev agent create)
    assert store.local_user_key() == key
    store.close()
    # the CLI reads the key from --db and tries the server (unreachable here: exit 1, not 2)
    assert main(["rooms", "--db", str(db), "--url", "http://127.0.0.1:1"]) == 1
    assert session is not None  # the web view's login serves app.state.user_key (tests/web)


def test_a_key_stored_in_clear_by_an_older_band_dev_is_moved_out(tmp_path: Path) -> None:
    db = tmp_path / "dev.sqlite3"
    old = Store(db)
    user, key = old.ensure_local_user()
    # what an older band dev left: the key in clear in settings, no key file
    old.db.execute("INSERT INTO settings (key, value) VALUES ('local_user_key', ?)", (key,))
    old.db.execute("DELETE FROM settings WHERE key='local_user_id'")
    old.close()
    kept = key_file(db)
    assert kept is not None
    kept.unlink()
    assert key.encode() in _db_bytes(db)
    store = Store(db)
    assert store.local_user_key() == key
    again, same = store.ensure_local_user()
    assert (again.id, same) == (user.id, key)
    store.close()
    assert kept.read_text().strip() == key
    assert key.encode() not in _db_bytes(db)
    raw = sqlite3.connect(db)
    assert key not in "\n".join(raw.iterdump())
    raw.close()


def test_a_lost_key_file_gives_the_same_person_a_new_key(tmp_path: Path) -> None:
    db = tmp_path / "dev.sqlite3"
    store = Store(db)
    user, key = store.ensure_local_user()
    store.close()
    kept = key_file(db)
    assert kept is not None
    kept.unlink()
    store = Store(db)
    again, new = store.ensure_local_user()
    assert again.id == user.id and new != key
    assert store.authenticate(key) is None
    assert store.authenticate(new) is not None
    store.close()
    assert kept.read_text().strip() == new
