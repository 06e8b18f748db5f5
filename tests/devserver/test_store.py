"""Store-level tests: schema versioning, hashed keys, local user persistence."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import msgspec

from band.devserver.store.db import SCHEMA_VERSION, Store, hash_key
from band.devserver.store.files import put_file


def test_schema_version_and_idempotent_migrate(tmp_path: Path) -> None:
    db = tmp_path / "dev.sqlite3"
    store = Store(db)
    assert store.schema_version() == SCHEMA_VERSION
    store.migrate()
    assert store.schema_version() == SCHEMA_VERSION
    store.close()
    assert Store(db).schema_version() == SCHEMA_VERSION


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


def test_a_rooms_participants_follow_every_membership_change(tmp_path: Path) -> None:
    store = Store(tmp_path / "dev.sqlite3")
    user, ukey = store.ensure_local_user()
    agent, _ = store.create_agent(user.id, "Bot", "d")
    other, _ = store.create_agent(user.id, "Other", "d")
    person = store.authenticate(ukey)
    assert person is not None
    rid = store.create_room(person, "r", None).id

    def roster() -> list[tuple[str, str]]:
        return [(m.id, m.role) for m in store.participants(rid)]

    assert roster() == [(user.id, "owner")]
    store.add_participant(rid, user.id, agent.id, "member")
    assert roster() == [(user.id, "owner"), (agent.id, "member")]
    store.db.execute(  # raw SQL too
        "UPDATE participants SET role='admin' WHERE room_id=? AND participant_id=?",
        (rid, agent.id),
    )
    assert roster() == [(user.id, "owner"), (agent.id, "admin")]
    store.db.execute("BEGIN")  # a membership written and rolled back is never listed
    store.add_participant(rid, user.id, other.id, "member")
    assert roster()[-1] == (other.id, "member")
    store.db.execute("ROLLBACK")
    assert roster() == [(user.id, "owner"), (agent.id, "admin")]
    store.remove_participant(rid, agent.id)
    assert roster() == [(user.id, "owner")]
    store.update_user_name(user.id, "Renamed", "")  # identities are read fresh
    assert store.participants(rid)[0].name == "Renamed"
