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


def _listed(live: Live, **params: object) -> list[tuple[str, str | None]]:
    """(id, title) of every room ``GET /me/chats`` pages through (offset paging, 2 a page),
    asserted equal to what a cursor walk gives."""
    out: list[tuple[str, str | None]] = []
    page = 1
    while True:
        q = {"page": page, "page_size": 2, **params}
        body = live.human("GET", "/api/v1/me/chats", params=q).json()
        out += [(r["id"], r["title"]) for r in body["data"]]
        if page >= body["metadata"]["total_pages"]:
            break
        page += 1
    walked: list[tuple[str, str | None]] = []
    cursor = None
    while True:
        q = {"limit": 2, **params, **({"cursor": cursor} if cursor else {})}
        body = live.human("GET", "/api/v1/me/chats", params=q).json()
        walked += [(r["id"], r["title"]) for r in body["data"]]
        cursor = body["metadata"]["next_cursor"]
        if not cursor:
            break
    assert walked == out
    return out


def test_the_room_listing_follows_rooms_members_renames_and_deletes(live: Live) -> None:
    """The person's listing is kept between requests: each change shows in the next one."""
    _, _, key = live.register("Lister")
    mine = room_with(live, title="mine")
    before = _listed(live, sort_by="updated_at", order="asc")
    assert before[-1] == (mine, "mine")
    # a room of the agent's alone: listed with include=agent_rooms once it exists
    r = live.agent(key, "POST", "/api/v1/agent/chats", json={"chat": {"title": "theirs"}})
    theirs = r.json()["data"]["id"]
    assert (theirs, "theirs") not in _listed(live)
    assert (theirs, "theirs") in _listed(live, include="agent_rooms")
    # a new room of the person's, and a rename that moves a room last by updated_at
    other = room_with(live, title="other")
    assert _listed(live, sort_by="updated_at", order="asc")[-1] == (other, "other")
    r = live.human("PATCH", f"/api/v1/me/chats/{mine}", json={"chat": {"title": "renamed"}})
    assert r.is_success, r.text
    assert _listed(live, sort_by="updated_at", order="asc")[-1] == (mine, "renamed")
    # the agent adds the person to its room, then removes them
    me, theirs_url = _me(live), f"/api/v1/agent/chats/{theirs}/participants"
    r = live.agent(key, "POST", theirs_url, json={"participant": {"participant_id": me}})
    assert r.is_success, r.text
    assert (theirs, "theirs") in _listed(live)
    assert live.agent(key, "DELETE", f"{theirs_url}/{me}").is_success
    assert (theirs, "theirs") not in _listed(live)
    # and a room is deleted
    r = live.human("POST", "/api/v1/me/chats/bulk-delete", json={"ids": [mine]})
    assert r.status_code == 202, r.text
    assert mine not in {rid for rid, _ in _listed(live)}


def _me(live: Live) -> str:
    return str(live.human("GET", "/api/v1/me/profile").json()["data"]["id"])
