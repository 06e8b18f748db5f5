"""band dev's membership (role) cache agrees with the database after every kind of change."""

from __future__ import annotations

from pathlib import Path

from bandtest.platform import Live, room_with

from band.devserver.store.db import Store


def _store(live: Live) -> Store:
    return live.app.state.directory.store  # type: ignore[no-any-return]


def _agrees(store: Store, rid: str, pid: str) -> str | None:
    """The cached role of ``pid`` in ``rid``, asserted equal to the database's."""
    row = store.db.execute(
        "SELECT role FROM participants WHERE room_id=? AND participant_id=?", (rid, pid)
    ).fetchone()
    cached = store.role(rid, pid)
    assert cached == (row[0] if row else None)
    return cached


def test_cache_follows_adds_removes_and_deletes(live: Live) -> None:
    """Cached before and after each change: human add/remove, agent join, bulk delete."""
    store = _store(live)
    aid, _, key = live.register("Cached")
    other, _, _ = live.register("Other")
    rid = room_with(live, aid)
    assert _agrees(store, rid, other) is None  # a cached miss
    body = {"participant": {"participant_id": other}}
    assert live.agent(key, "POST", f"/api/v1/agent/chats/{rid}/participants", json=body).is_success
    assert _agrees(store, rid, other) is not None  # the miss did not outlive the add
    assert live.human("DELETE", f"/api/v1/me/chats/{rid}/participants/{other}").is_success
    assert _agrees(store, rid, other) is None
    assert _agrees(store, rid, aid) is not None
    r = live.human("POST", "/api/v1/me/chats/bulk-delete", json={"ids": [rid]})
    assert r.status_code == 202, r.text
    assert _agrees(store, rid, aid) is None
    # the removed member is refused, not served from a stale entry
    assert live.agent(key, "GET", f"/api/v1/agent/chats/{rid}").status_code == 404


def test_cache_starts_over_after_a_restart(tmp_path: Path) -> None:
    """A new process on the same file: no stale entries, the triggers watch again."""
    db = tmp_path / "dev.sqlite3"
    first = Store(db)
    first.db.execute(
        "INSERT INTO rooms (id, title, type, status, inserted_at, updated_at) "
        "VALUES ('r', 't', 'group', 'active', 'x', 'x')"
    )
    first.db.execute("INSERT INTO participants VALUES ('r', 'p', 'agent', 'member', 'x')")
    assert first.role("r", "p") == "member"
    first.close()
    second = Store(db)
    assert second.role("r", "p") == "member"
    second.db.execute("DELETE FROM participants WHERE room_id='r' AND participant_id='p'")
    assert second.role("r", "p") is None
    second.close()
