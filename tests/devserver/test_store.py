"""Store-level tests: schema versioning, hashed keys, local user persistence."""

from __future__ import annotations

import re
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

import msgspec
import pytest

from band.devserver.api.agent import settle
from band.devserver.api.writes import message_logged
from band.devserver.store.db import SCHEMA_VERSION, Store, StoreError, hash_key, now
from band.devserver.store.files import put_file
from band.devserver.store.principal import Principal


def test_schema_version_and_idempotent_migrate(tmp_path: Path) -> None:
    db = tmp_path / "dev.sqlite3"
    store = Store(db)
    assert store.schema_version() == SCHEMA_VERSION
    store.migrate()
    assert store.schema_version() == SCHEMA_VERSION
    store.close()
    assert Store(db).schema_version() == SCHEMA_VERSION


def test_a_new_database_is_one_log_line_an_upgrade_one_per_step(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """band dev's first lines on a fresh database were one per migration (eight)."""
    from band.devserver.store.db import MIGRATIONS

    caplog.set_level("INFO", logger="band.devserver.store.db")
    Store(tmp_path / "new.sqlite3").close()
    assert caplog.messages == [f"created a new database (schema version {SCHEMA_VERSION})"]
    caplog.clear()
    Store(tmp_path / "new.sqlite3").close()  # up to date: nothing to say
    assert caplog.messages == []
    old = sqlite3.connect(tmp_path / "old.sqlite3")  # as the version before the last left it
    old.execute("CREATE TABLE schema_version (version INTEGER NOT NULL)")
    for version in range(1, SCHEMA_VERSION):
        old.executescript(MIGRATIONS[version])
        old.execute("INSERT INTO schema_version (version) VALUES (?)", (version,))
    old.commit()
    old.close()
    Store(tmp_path / "old.sqlite3").close()
    assert caplog.messages == [f"upgraded the database to schema version {SCHEMA_VERSION}"]


def test_keys_are_hashed(tmp_path: Path) -> None:
    db = tmp_path / "dev.sqlite3"
    store = Store(db)
    user, ukey = store.ensure_local_user()
    assert ukey.startswith("band_u_")
    agent, akey = store.create_agent(user.id, "Echo Bot", "echoes")
    assert akey.startswith("band_a_")
    assert agent.handle == "local/echo-bot"
    store.close()
    raw = sqlite3.connect(db)
    hashes = {
        r[0] for r in raw.execute("SELECT key_hash FROM agents UNION SELECT key_hash FROM users")
    }
    assert hashes == {hash_key(ukey), hash_key(akey)}
    dump = "\n".join(raw.iterdump())
    assert akey not in dump


def test_local_user_key_is_kept(tmp_path: Path) -> None:
    db = tmp_path / "dev.sqlite3"
    first = Store(db)
    _, key = first.ensure_local_user()
    first.close()
    again = Store(db)
    user, key2 = again.ensure_local_user()
    assert key2 == key
    assert again.authenticate(key).id == user.id  # type: ignore[union-attr]
    _, given = again.ensure_local_user("band_u_given")
    assert given == "band_u_given"
    assert again.authenticate("band_u_given") is not None


def test_handles_are_unique() -> None:
    store = Store(":memory:")
    user, _ = store.ensure_local_user()
    a, _ = store.create_agent(user.id, "Bot", "d")
    b, _ = store.create_agent(user.id, "Bot", "d")
    assert a.handle != b.handle


def test_room_listing_follows_every_membership_change(tmp_path: Path) -> None:
    store = Store(tmp_path / "dev.sqlite3")
    user, _ = store.ensure_local_user()
    agent, _ = store.create_agent(user.id, "Bot", "d")
    person = store.authenticate(store.local_user_key() or "")
    assert person is not None
    rooms = [store.create_room(person, f"r{i}", None).id for i in range(7)]
    for rid in rooms[:5]:
        store.add_participant(rid, user.id, agent.id, "member")

    def listing(size: int = 2) -> list[str]:
        ids, page = [], 1
        while True:
            rows, total = store.rooms_of(agent.id, page, size)
            assert total == len(store.room_ids_of(agent.id))
            if not rows:
                return ids
            ids += [r.id for r in rows]
            page += 1

    assert listing() == rooms[:5]  # creation order, across pages
    store.add_participant(rooms[6], user.id, agent.id, "member")
    store.remove_participant(rooms[1], agent.id)
    assert listing() == [rooms[0], *rooms[2:5], rooms[6]]
    store.db.execute(  # any path that writes memberships, raw SQL included
        "INSERT INTO participants VALUES (?, ?, 'Agent', 'member', ?)",
        (rooms[5], agent.id, "2020-01-01T00:00:00Z"),
    )
    assert listing(3) == [rooms[0], *rooms[2:7]]
    store.db.execute("BEGIN")  # a membership written and rolled back is never listed
    store.db.execute("DELETE FROM participants WHERE participant_id=?", (agent.id,))
    assert listing() == []
    store.db.execute("ROLLBACK")
    assert listing() == [rooms[0], *rooms[2:7]]
    store.db.execute("UPDATE rooms SET title='renamed' WHERE id=?", (rooms[0],))
    assert store.rooms_of(agent.id, 1, 1)[0][0].title == "renamed"  # rows are read fresh


def test_room_rows_and_keys_follow_every_write(tmp_path: Path) -> None:
    store = Store(tmp_path / "dev.sqlite3")
    user, ukey = store.ensure_local_user()
    agent, akey = store.create_agent(user.id, "Bot", "d")
    person = store.authenticate(ukey)
    assert person is not None and person.name == user.name
    rid = store.create_room(person, "first", None).id

    def field(name: str) -> object:
        room = store.room(rid)
        assert room is not None
        return getattr(room, name)

    assert field("title") == "first"
    store.rename_room(rid, "second")
    assert field("title") == "second"
    store.db.execute("UPDATE rooms SET status='deleted' WHERE id=?", (rid,))  # raw SQL too
    assert field("status") == "deleted"
    store.db.execute("BEGIN")  # a row written and rolled back is never read again
    store.db.execute("UPDATE rooms SET title='rolled back' WHERE id=?", (rid,))
    assert field("title") == "rolled back"
    store.db.execute("ROLLBACK")
    assert field("title") == "second"
    store.db.execute("DELETE FROM room_creators WHERE room_id=?", (rid,))
    store.db.execute("DELETE FROM participants WHERE room_id=?", (rid,))
    store.db.execute("DELETE FROM rooms WHERE id=?", (rid,))
    assert store.room(rid) is None

    assert store.authenticate(akey) == store.authenticate(akey)
    assert store.agent(agent.id) == agent and (store.entity(user.id) or agent).name == user.name
    store.update_user_name(user.id, "Renamed", "")
    renamed = store.authenticate(ukey)
    assert renamed is not None and renamed.name == "Renamed"
    assert (store.entity(user.id) or agent).name == "Renamed"
    store.delete_agent(user.id, agent.id)
    assert store.authenticate(akey) is None  # a deleted agent's key is refused at once
    assert store.agent(agent.id) is None and store.entity(agent.id) is None
    assert store.authenticate("band_a_unknown") is None


def test_a_new_message_is_what_reading_it_back_gives(tmp_path: Path) -> None:
    store = Store(tmp_path / "dev.sqlite3")
    user, ukey = store.ensure_local_user()
    agent, akey = store.create_agent(user.id, "Bot", "d")
    other, _ = store.create_agent(user.id, "Other", "d")
    person, bot = store.authenticate(ukey), store.authenticate(akey)
    assert person is not None and bot is not None
    rid = store.create_room(person, "r", None).id
    for aid in (agent.id, other.id):
        store.add_participant(rid, user.id, aid, "member")
    everyone = [{"id": i} for i in (other.id, user.id, agent.id)]
    mentions = store.resolve_mentions(rid, everyone)
    fid = put_file(store, rid, bot.id, "a.txt", "text/plain", b"hello", None).id
    for sender, extra, files in (
        (person, None, []),  # delivered to both agents (in agent id order)
        (bot, {"k": [1, "two"]}, []),  # to the other agent and the person, never to itself
        (bot, None, [fid]),  # with a file
    ):
        made = store.create_message(rid, sender, "hi", "text", mentions, extra, files)
        again = store.message(made.id)
        assert made == again
        assert msgspec.json.encode(made) == msgspec.json.encode(again)  # keys in the same order


def _two_agents_room(store: Store, *, join: bool = True) -> tuple[Principal, str, str, str]:
    """A room of the local person and (``join``) two of their agents: (person, room id, agent
    id, other agent id)."""
    user, ukey = store.ensure_local_user()
    agent, _ = store.create_agent(user.id, "Bot", "d")
    other, _ = store.create_agent(user.id, "Other", "d")
    person = store.authenticate(ukey)
    assert person is not None
    rid = store.create_room(person, "r", None).id
    for aid in (agent.id, other.id) if join else ():
        store.add_participant(rid, user.id, aid, "member")
    return person, rid, agent.id, other.id


def test_a_rooms_participants_follow_every_membership_change(tmp_path: Path) -> None:
    store = Store(tmp_path / "dev.sqlite3")
    person, rid, aid, other = _two_agents_room(store, join=False)
    uid = person.id

    def roster() -> list[tuple[str, str]]:
        return [(m.id, m.role) for m in store.participants(rid)]

    assert roster() == [(uid, "owner")]
    store.add_participant(rid, uid, aid, "member")
    assert roster() == [(uid, "owner"), (aid, "member")]
    store.db.execute(  # raw SQL too
        "UPDATE participants SET role='admin' WHERE room_id=? AND participant_id=?",
        (rid, aid),
    )
    assert roster() == [(uid, "owner"), (aid, "admin")]
    store.db.execute("BEGIN")  # a membership written and rolled back is never listed
    store.add_participant(rid, uid, other, "member")
    assert roster()[-1] == (other, "member")
    store.db.execute("ROLLBACK")
    assert roster() == [(uid, "owner"), (aid, "admin")]
    store.remove_participant(rid, aid)
    assert roster() == [(uid, "owner")]
    store.update_user_name(uid, "Renamed", "")  # identities are read fresh
    assert store.participants(rid)[0].name == "Renamed"


def test_a_marked_message_reads_back_as_a_listing_reads_it(tmp_path: Path) -> None:
    """``message`` (one statement) gives what the listings' per-row reads give, attempts and
    files included."""
    store = Store(tmp_path / "dev.sqlite3")
    person, rid, aid, other = _two_agents_room(store)
    mentions = store.resolve_mentions(rid, [{"id": aid}, {"id": other}])
    fid = put_file(store, rid, person.id, "a.txt", "text/plain", b"hello", None).id
    plain = store.create_message(rid, person, "one", "text", mentions)
    filed = store.create_message(rid, person, "two", "text", mentions, None, [fid])
    for mid in (plain.id, filed.id):
        assert store.mark_processing(rid, mid, aid) == ("processing", 1)
        assert store.mark_done(rid, mid, aid, "boom") == ("failed", 1)
        assert store.mark_processing(rid, mid, aid) == ("processing", 2)
        assert store.mark_processing(rid, mid, aid) == ("processing", 2)  # kept, not a third
        assert store.mark_done(rid, mid, aid, None) == ("processed", 2)
        assert store.mark_processing(rid, mid, other) == ("processing", 1)
    listed, _ = store.room_messages(rid, None, 10)
    for shown in listed:
        again = store.message(shown.id)
        assert again == shown
        assert msgspec.json.encode(again) == msgspec.json.encode(shown)
    status = listed[0].metadata["delivery_status"]
    assert list(status) == sorted((aid, other))
    assert [(a["number"], a["status"], a["error"]) for a in status[aid]["attempts"]] == [
        (1, "failed", "boom"),
        (2, "success", None),
    ]
    assert status[other]["attempts"][0]["ended_at"] is None
    assert [a.id for a in listed[0].attachments] == [fid] and listed[1].attachments == []
    assert store.message("no such message") is None


def test_marks_refuse_what_they_refused(tmp_path: Path) -> None:
    """A mark of another room's message is a 404; settling without a live attempt a 422; a
    message delivered to nobody gets its first attempt."""
    store = Store(tmp_path / "dev.sqlite3")
    person, rid, aid, other = _two_agents_room(store)
    elsewhere = store.create_room(person, "elsewhere", None).id
    mid = store.create_message(
        rid, person, "hi", "text", store.resolve_mentions(rid, [{"id": aid}])
    ).id
    for mark in (
        lambda: store.mark_processing(elsewhere, mid, aid),
        lambda: store.mark_done(elsewhere, mid, aid, None),
        lambda: store.mark_processing(rid, "no such message", aid),
    ):
        with pytest.raises(StoreError) as refused:
            mark()
        assert refused.value.status == 404
    with pytest.raises(StoreError) as refused:
        store.mark_done(rid, mid, aid, None)
    assert refused.value.status == 422 and "/processing_attempt" in (refused.value.details or {})
    assert store.mark_processing(rid, mid, other) == ("processing", 1)  # no delivery row yet
    assert store.mark_done(rid, mid, other, None) == ("processed", 1)
    assert store.mark_processing(rid, mid, other) == ("processing", 2)
    attempts = store.db.execute("SELECT COUNT(*) FROM attempts WHERE agent_id=?", (aid,))
    assert attempts.fetchone()[0] == 0  # nothing of the refused marks was written


def test_a_mark_commits_with_its_pushed_event_or_not_at_all(tmp_path: Path) -> None:
    """The mark and the ``message_updated`` event recording it are one transaction."""
    store = Store(tmp_path / "dev.sqlite3")
    person, rid, aid, _ = _two_agents_room(store)
    mid = store.create_message(
        rid, person, "hi", "text", store.resolve_mentions(rid, [{"id": aid}])
    ).id
    status, attempt, msg, payload = settle(store, rid, mid, aid, "processing", None)
    assert (status, attempt) == ("processing", 1)
    logged = store.db.execute("SELECT event, payload FROM events ORDER BY seq DESC").fetchone()
    assert logged["event"] == "message_updated"
    assert logged["payload"].encode() == bytes(payload)  # the JSON pushed is the JSON logged
    assert msgspec.json.decode(bytes(payload))["metadata"]["delivery_status"][aid]["status"] == (
        "processing"
    )
    assert msg == store.message(mid)
    store.db.execute(  # the event cannot be recorded: the mark is not kept either
        "CREATE TEMP TRIGGER refuse_events BEFORE INSERT ON main.events "
        "BEGIN SELECT RAISE(ABORT, 'refused'); END"
    )
    with pytest.raises(sqlite3.IntegrityError):
        settle(store, rid, mid, aid, "processed", None)
    assert not store.db.in_transaction
    again = store.message(mid)
    assert again is not None and again.metadata["delivery_status"][aid]["status"] == "processing"
    with pytest.raises(sqlite3.IntegrityError):  # a new message and its event alike
        message_logged(
            store, "message_created", lambda s: s.create_message(rid, person, "x", "text", [])
        )
    assert [m.content for m in store.room_messages(rid, None, 10)[0]] == [f"@[[{aid}]] hi"]


def test_transactions_nest_into_the_outermost() -> None:
    store = Store(":memory:")
    with pytest.raises(RuntimeError), store.transaction():
        store.db.execute("INSERT INTO settings VALUES ('a', '1')")
        with store.transaction():  # joins: its end commits nothing
            store.db.execute("INSERT INTO settings VALUES ('b', '2')")
        assert store.db.in_transaction
        raise RuntimeError("the outer block fails")
    assert (
        store.db.execute("SELECT COUNT(*) FROM settings WHERE key IN ('a', 'b')").fetchone()[0] == 0
    )
    with store.transaction():
        store.db.execute("INSERT INTO settings VALUES ('a', '1')")
    assert not store.db.in_transaction
    assert store.db.execute("SELECT value FROM settings WHERE key='a'").fetchone()[0] == "1"


def test_a_commit_that_fails_rolls_back() -> None:
    """A COMMIT refused (here a foreign key checked at commit) leaves no transaction open and
    nothing written; the next block commits as usual."""
    store = Store(":memory:")
    with pytest.raises(sqlite3.IntegrityError), store.transaction():
        store.db.execute("PRAGMA defer_foreign_keys = ON")
        store.db.execute("INSERT INTO participants VALUES ('no room', 'p', 'User', 'owner', 'x')")
    assert not store.db.in_transaction
    assert store.db.execute("SELECT COUNT(*) FROM participants").fetchone()[0] == 0
    with store.transaction():
        store.db.execute("INSERT INTO settings VALUES ('a', '1')")
    assert not store.db.in_transaction


def test_now_is_iso_8601_utc_to_the_microsecond() -> None:
    before = datetime.now(UTC)
    stamps = [now() for _ in range(1000)]
    after = datetime.now(UTC)
    assert stamps == sorted(stamps)
    for stamp in (stamps[0], stamps[-1]):
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z", stamp), stamp
        when = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
        assert before <= when <= after


def test_a_messages_addressees_are_known_once_it_commits(tmp_path: Path) -> None:
    """Who a message is from and to is kept when its transaction commits (a mark reads it
    without SQL), never for one rolled back."""
    store = Store(tmp_path / "dev.sqlite3")
    person, rid, aid, other = _two_agents_room(store)
    mentions = store.resolve_mentions(rid, [{"id": aid}])
    statements: list[str] = []
    store.db.set_trace_callback(statements.append)
    mid = store.create_message(rid, person, "hi", "text", mentions).id
    del statements[:]
    assert store.addressees(mid) == (rid, person.id, frozenset({aid}))
    assert statements == []  # kept when the message committed
    with pytest.raises(RuntimeError), store.transaction():
        gone = store.create_message(rid, person, "rolled back", "text", mentions).id
        raise RuntimeError("the block fails")
    store.db.execute("BEGIN")  # a transaction begun outside ``transaction()``: nothing kept
    raw = store.create_message(rid, person, "raw", "text", mentions).id
    store.db.execute("ROLLBACK")
    store.db.set_trace_callback(None)
    assert store.addressees(gone) is None and store.addressees(raw) is None
    fresh = Store(tmp_path / "dev.sqlite3")  # another process: read from the tables
    assert fresh.addressees(mid) == (rid, person.id, frozenset({aid}))
    assert fresh.addressees("no such message") is None
    both = fresh.resolve_mentions(rid, [{"id": aid}, {"id": other}])
    reply = fresh.create_message(rid, person, "to both", "text", both).id
    assert fresh.addressees(reply) == (rid, person.id, frozenset({aid, other}))
