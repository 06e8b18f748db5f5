"""SQLite persistence for the local Band platform (synchronous; run off the event loop)."""

from __future__ import annotations

import hashlib
import json
import logging
import re
import secrets
import sqlite3
import time
import uuid
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal, NamedTuple, TypeVar

import msgspec

from band.core.wire import Attachment, JsonObject
from band.private_files import PRIVATE_FILE, private_dir, private_file, tighten

from .local_key import keep_key, read_key
from .principal import Principal
from .rows import AgentRow, Entity, Member, MessageRecord, PeerRow, RoomRow, UserRow, record
from .usable import refuse_unusable

log = logging.getLogger(__name__)

R = TypeVar("R")
K = TypeVar("K")
V = TypeVar("V")

MIGRATIONS: dict[int, str] = {
    1: """
    CREATE TABLE users (
        id TEXT PRIMARY KEY, handle TEXT UNIQUE NOT NULL, name TEXT NOT NULL,
        email TEXT NOT NULL, key_hash TEXT UNIQUE NOT NULL,
        inserted_at TEXT NOT NULL, updated_at TEXT NOT NULL);
    CREATE TABLE agents (
        id TEXT PRIMARY KEY, name TEXT NOT NULL, handle TEXT UNIQUE NOT NULL,
        description TEXT NOT NULL, owner_id TEXT NOT NULL REFERENCES users(id),
        key_hash TEXT UNIQUE NOT NULL, inserted_at TEXT NOT NULL, updated_at TEXT NOT NULL);
    CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    CREATE TABLE rooms (
        id TEXT PRIMARY KEY, title TEXT, task_id TEXT, type TEXT NOT NULL,
        status TEXT NOT NULL, inserted_at TEXT NOT NULL, updated_at TEXT NOT NULL);
    CREATE TABLE participants (
        room_id TEXT NOT NULL REFERENCES rooms(id), participant_id TEXT NOT NULL,
        type TEXT NOT NULL, role TEXT NOT NULL, inserted_at TEXT NOT NULL,
        PRIMARY KEY (room_id, participant_id));
    CREATE TABLE messages (
        seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT UNIQUE NOT NULL,
        room_id TEXT NOT NULL REFERENCES rooms(id), content TEXT NOT NULL,
        message_type TEXT NOT NULL, sender_id TEXT NOT NULL, sender_type TEXT NOT NULL,
        sender_name TEXT, metadata TEXT NOT NULL, inserted_at TEXT NOT NULL,
        updated_at TEXT NOT NULL);
    CREATE INDEX messages_room ON messages(room_id, seq);
    CREATE TABLE mentions (
        message_id TEXT NOT NULL REFERENCES messages(id), participant_id TEXT NOT NULL,
        PRIMARY KEY (message_id, participant_id));
    CREATE TABLE deliveries (
        message_id TEXT NOT NULL REFERENCES messages(id), agent_id TEXT NOT NULL,
        status TEXT NOT NULL, current_attempt INTEGER NOT NULL DEFAULT 0,
        processed_at TEXT, PRIMARY KEY (message_id, agent_id));
    CREATE TABLE attempts (
        message_id TEXT NOT NULL, agent_id TEXT NOT NULL, number INTEGER NOT NULL,
        status TEXT NOT NULL, started_at TEXT NOT NULL, ended_at TEXT, error TEXT,
        PRIMARY KEY (message_id, agent_id, number));
    CREATE TABLE events (
        seq INTEGER PRIMARY KEY AUTOINCREMENT, topic TEXT NOT NULL, event TEXT NOT NULL,
        payload TEXT NOT NULL, inserted_at TEXT NOT NULL);
    """,
    2: """
    CREATE TABLE contact_requests (
        seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT UNIQUE NOT NULL,
        requester_id TEXT NOT NULL, requester_type TEXT NOT NULL,
        recipient_id TEXT NOT NULL, recipient_type TEXT NOT NULL,
        status TEXT NOT NULL, message TEXT, inserted_at TEXT NOT NULL, responded_at TEXT);
    CREATE INDEX contact_requests_recipient ON contact_requests(recipient_id, status);
    CREATE INDEX contact_requests_requester ON contact_requests(requester_id, status);
    CREATE TABLE contacts (
        seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT UNIQUE NOT NULL,
        owner_id TEXT NOT NULL, contact_id TEXT NOT NULL, contact_type TEXT NOT NULL,
        inserted_at TEXT NOT NULL, UNIQUE (owner_id, contact_id));
    CREATE TABLE memories (
        seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT UNIQUE NOT NULL,
        content TEXT NOT NULL, system TEXT NOT NULL, type TEXT NOT NULL,
        segment TEXT NOT NULL, scope TEXT NOT NULL, status TEXT NOT NULL, thought TEXT,
        subject_id TEXT, source_agent_id TEXT, owner_id TEXT NOT NULL,
        organization_id TEXT, chat_room_id TEXT, metadata TEXT NOT NULL,
        inserted_at TEXT NOT NULL, updated_at TEXT NOT NULL);
    CREATE INDEX memories_owner ON memories(owner_id, seq);
    """,
    3: """
    CREATE TABLE tasks (
        id TEXT PRIMARY KEY, room_id TEXT NOT NULL REFERENCES rooms(id),
        number INTEGER NOT NULL, subject TEXT NOT NULL, detail TEXT NOT NULL,
        state TEXT NOT NULL, created_by TEXT NOT NULL, superseded_by_id TEXT,
        inserted_at TEXT NOT NULL, updated_at TEXT NOT NULL, UNIQUE (room_id, number));
    CREATE TABLE task_assignments (
        task_id TEXT NOT NULL REFERENCES tasks(id), assignee_id TEXT NOT NULL,
        status TEXT NOT NULL, active_form TEXT NOT NULL, linked_native_id TEXT NOT NULL,
        inserted_at TEXT NOT NULL, updated_at TEXT NOT NULL,
        PRIMARY KEY (task_id, assignee_id));
    CREATE TABLE task_events (
        seq INTEGER PRIMARY KEY AUTOINCREMENT, task_id TEXT NOT NULL REFERENCES tasks(id),
        actor_id TEXT NOT NULL, event TEXT NOT NULL, payload TEXT NOT NULL, at TEXT NOT NULL);
    CREATE INDEX task_events_task ON task_events(task_id, seq);
    CREATE TABLE boards (
        room_id TEXT PRIMARY KEY REFERENCES rooms(id), goal_title TEXT, goal_summary TEXT,
        created_by TEXT NOT NULL, updated_by TEXT NOT NULL,
        inserted_at TEXT NOT NULL, updated_at TEXT NOT NULL);
    CREATE TABLE board_events (
        seq INTEGER PRIMARY KEY AUTOINCREMENT, room_id TEXT NOT NULL REFERENCES rooms(id),
        actor_id TEXT NOT NULL, event TEXT NOT NULL, payload TEXT NOT NULL, at TEXT NOT NULL);
    CREATE TABLE files (
        id TEXT PRIMARY KEY, room_id TEXT NOT NULL REFERENCES rooms(id), name TEXT NOT NULL,
        content_type TEXT NOT NULL, bytes INTEGER NOT NULL, sha256 TEXT NOT NULL,
        data BLOB NOT NULL, uploader_id TEXT NOT NULL, inserted_at TEXT NOT NULL,
        UNIQUE (room_id, sha256));
    """,
    4: """
    CREATE TABLE bulk_deletions (
        id TEXT PRIMARY KEY, owner_id TEXT NOT NULL, body TEXT NOT NULL);
    """,
    5: """
    CREATE TABLE message_attachments (
        message_id TEXT NOT NULL REFERENCES messages(id),
        file_id TEXT NOT NULL REFERENCES files(id), position INTEGER NOT NULL,
        PRIMARY KEY (message_id, file_id));
    """,
    # who created each room (the authorization model never lets the creator be removed);
    # rooms made before it get their first participant, which create_room made their owner
    6: """
    CREATE TABLE room_creators (
        room_id TEXT PRIMARY KEY REFERENCES rooms(id), creator_id TEXT NOT NULL);
    INSERT INTO room_creators SELECT p.room_id, p.participant_id FROM participants p
        WHERE p.rowid = (SELECT MIN(q.rowid) FROM participants q WHERE q.room_id = p.room_id);
    """,
    # delegation: the consents a person gives their non-own agents, and the token exchanges
    7: """
    CREATE TABLE delegation_consents (
        id TEXT PRIMARY KEY, user_id TEXT NOT NULL, agent_id TEXT NOT NULL,
        audiences TEXT NOT NULL, inserted_at TEXT NOT NULL, updated_at TEXT NOT NULL,
        UNIQUE (user_id, agent_id));
    CREATE TABLE delegation_exchanges (
        message_id TEXT NOT NULL, agent_id TEXT NOT NULL, audience TEXT NOT NULL,
        at TEXT NOT NULL);
    """,
    # an agent's open deliveries: its next message is found among them, not by a walk over
    # every processed message of the room (81 ms a call at 20,000 answered messages)
    8: """
    CREATE INDEX deliveries_open ON deliveries(agent_id) WHERE status != 'processed';
    """,
}
SCHEMA_VERSION = max(MIGRATIONS)
#: ``agent_messages``' statuses short of processed: a condition on an open delivery ``d``
_OPEN_STATUSES: dict[str | None, str] = {
    None: "",
    "pending": "AND d.status IN ('delivered','failed')",
    "processing": "AND d.status = 'processing'",
    "failed": "AND d.status = 'failed'",
}
#: its other statuses: a condition on the room's messages and their deliveries ``d``, if any
_CLOSED_STATUSES: dict[str | None, str] = {"all": "1=1", "processed": "d.status = 'processed'"}
#: ``context``'s rows: what the agent sent, and the text messages that mention it
_CONTEXT = (
    "FROM messages m WHERE m.room_id=? AND (m.sender_id=? OR (m.message_type='text' AND "
    "EXISTS (SELECT 1 FROM mentions x WHERE x.message_id=m.id AND x.participant_id=?)))"
)
#: above every message's ``seq`` (SQLite integers are signed 64-bit)
MAX_SEQ = 2**63 - 1


@dataclass(frozen=True)
class MessageFilter:
    """Human message-list filters: message types to keep or drop, and a lower time bound."""

    types: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    since: str | None = None  # same ISO 8601 form as ``now()``, so strings compare as times

    def sql(self) -> tuple[str, list[Any]]:
        """Return an ``AND ...`` condition over ``messages`` and its arguments."""
        cond, args = "", []
        for values, op in ((self.types, "IN"), (self.exclude, "NOT IN")):
            if values:
                cond += f" AND message_type {op} ({','.join('?' * len(values))})"
                args += list(values)
        if self.since is not None:
            cond += " AND inserted_at > ?"
            args.append(self.since)
        return cond, args


class StoreError(Exception):
    """A domain error that maps onto the REST error envelope."""

    def __init__(
        self, status: int, code: str, message: str, details: dict[str, Any] | None = None
    ) -> None:
        super().__init__(message)
        self.status, self.code, self.message, self.details = status, code, message, details


#: Agents, then people, as ``Entity`` rows (``where`` filters both tables alike).
ENTITIES = (
    "SELECT id, 'Agent' AS type, name, handle, description, NULL AS email, owner_id "
    "FROM agents {where} UNION ALL "
    "SELECT id, 'User', name, handle, NULL, email, NULL FROM users {where}"
)

#: Memberships the role cache holds before it starts over.
MAX_CACHED_ROLES = 200_000
#: Participants whose ordered room list is cached before the cache starts over.
MAX_CACHED_ROOM_LISTS = 10_000
#: People whose room listings (``Store.listing``, a row per room each) are cached before the
#: cache starts over.
MAX_CACHED_LISTINGS = 64
#: Rows (rooms, agents, people) and known API keys each cache holds before it starts over.
MAX_CACHED_ROWS = 100_000
#: Messages whose addressees are cached before the cache starts over (the recent ones are
#: the ones marked).
MAX_CACHED_MESSAGES = 10_000


class Addressees(NamedTuple):
    """Who a message is from and to: what marking it is checked against."""

    room_id: str
    sender_id: str
    mentioned: frozenset[str]


#: the last second ``now`` formatted: (its Unix time, its ISO 8601 text up to the seconds)
_second: tuple[int, str] = (0, "1970-01-01T00:00:00")


def now() -> str:
    """Return the current UTC time as ISO 8601 (``2026-12-07T05:00:00.123456Z``)."""
    global _second
    micros = time.time_ns() // 1000  # the clock ``datetime.now`` reads, to the microsecond
    sec = micros // 1_000_000
    seen, text = _second
    if sec != seen:  # a second's date and time are formatted once, not on every write
        text = datetime.fromtimestamp(sec, UTC).strftime("%Y-%m-%dT%H:%M:%S")
        _second = (sec, text)
    return f"{text}.{micros - sec * 1_000_000:06d}Z"


#: ``json.dumps(value, allow_nan=False)``'s encoder, made once (``dumps`` makes one per call
#: when given an option)
_ENCODER = json.JSONEncoder(allow_nan=False)


def dump_json(value: Any) -> str:
    """Serialize a value for storage; what could not be served again (NaN, Infinity) is refused."""
    try:
        return _ENCODER.encode(value)
    except (ValueError, TypeError, RecursionError):
        raise StoreError(422, "validation_error", "value cannot be stored as JSON") from None


def load_json(text: str) -> Any:
    """Parse stored JSON; a non-finite number stored by an older version reads as null."""
    try:  # what ``dump_json`` wrote: msgspec reads it to the same values, faster
        return msgspec.json.decode(text)
    except msgspec.DecodeError:  # NaN or Infinity (an older version's), which msgspec refuses
        return json.loads(text, parse_constant=lambda _name: None)


def private_db_dir(path: Path) -> None:
    """Create the directory of the database ``path`` owner-only; an existing one is tightened
    only when it is ``.band`` (band dev's own), not a directory the user made."""
    private_dir(path.parent, ours=path.parent.name == ".band")


def _private_db(path: Path) -> None:
    """The DB holds people's and agents' data: its directory and files are owner-only.

    SQLite creates a new file 0644 less the umask and gives its -wal and -shm files the DB
    file's mode, so the DB file is created 0600 first; existing files are tightened.
    """
    private_db_dir(path)
    private_file(path)
    for suffix in ("-wal", "-shm", "-journal"):
        tighten(f"{path}{suffix}", PRIVATE_FILE)


def hash_key(key: str) -> str:
    """Return the sha256 hex digest of an API key."""
    return hashlib.sha256(key.encode()).hexdigest()


def new_key(prefix: str) -> str:
    """Generate a fresh API key with the given prefix (``band_u_`` / ``band_a_``)."""
    return prefix + secrets.token_urlsafe(32)


def slug(text: str) -> str:
    """Turn a name into a handle fragment."""
    return re.sub(r"[^a-z0-9_-]+", "-", text.lower()).strip("-") or "agent"


class Transaction:
    """One write transaction around a ``with`` block: committed when it ends, rolled back when
    it raises. Inside another, the block joins it (the outermost commits): a write and the
    pushed event recording it commit together. One per connection (its thread's only)."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db
        self._owned: list[bool] = []  # per open block: whether it began the transaction
        self._committed: list[Callable[[], None]] = []  # to run once it commits

    def __enter__(self) -> None:
        owned = not self.db.in_transaction
        if owned:
            self.db.execute("BEGIN")
        self._owned.append(owned)

    def __exit__(self, kind: type[BaseException] | None, *_: object) -> None:
        if not self._owned.pop():
            return
        hooks, self._committed = self._committed, []
        if kind is not None:
            self._rollback()
            return
        try:
            self.db.execute("COMMIT")
        except BaseException:  # a COMMIT that fails (busy, a deferred constraint) stays open
            self._rollback()
            raise
        for hook in hooks:
            hook()

    def _rollback(self) -> None:
        if self.db.in_transaction:  # some errors roll the transaction back themselves
            self.db.execute("ROLLBACK")

    def after_commit(self, hook: Callable[[], None]) -> None:
        """Run ``hook`` once the transaction this block is in commits (never when it rolls
        back; not at all in a transaction begun outside these blocks, whose end is unseen)."""
        if self._owned and self._owned[0]:
            self._committed.append(hook)


class Store:
    """All database access; every method is synchronous and must run on one thread."""

    def __init__(self, db_path: str | Path) -> None:
        path = str(db_path)
        if path != ":memory:":
            refuse_unusable(Path(path), SCHEMA_VERSION)  # before anything touches the file
            _private_db(Path(path))
        self.db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self.db.row_factory = sqlite3.Row
        self.db.execute("PRAGMA foreign_keys = ON")
        self._transaction = Transaction(self.db)
        if path != ":memory:":
            # a write-ahead log: each autocommitted write appends to it instead of rewriting a
            # rollback journal; NORMAL syncs at checkpoints (a crash may lose the last writes,
            # never corrupt the file), which is right for a development platform
            self.db.execute("PRAGMA journal_mode = WAL")
            self.db.execute("PRAGMA synchronous = NORMAL")
            _private_db(Path(path))  # the -wal and -shm files WAL mode just created
        self.migrate()
        self.path = path
        self._local_key: str | None = None  # the local person's key, once known
        self._move_clear_key()
        self._roles: dict[tuple[str, str], str | None] = {}  # (room, participant) -> role
        self._room_lists: dict[str, list[str]] = {}  # participant -> room ids, listing order
        #: (person, with their agents' rooms) -> the rooms they may list (``rooms.listable``)
        self._listings: dict[tuple[str, bool], list[Any]] = {}
        self._rosters: dict[str, list[tuple[str, str]]] = {}  # room -> (participant, role)
        self._members: dict[str, list[Member]] = {}  # room -> its participants with identity
        self._rooms: dict[str, RoomRow] = {}  # room id -> its row
        self._principals: dict[str, Principal] = {}  # key digest -> whose key it is
        self._agents: dict[str, AgentRow] = {}  # agent id -> its row
        self._entities: dict[str, Entity] = {}  # person or agent id -> its row
        # message id -> (room, sender, the ids it mentions): a message's never change
        self._addressees: dict[str, Addressees] = {}
        self._watch_memberships()
        self._watch_rows()

    def _watch_memberships(self) -> None:
        """Keep the membership caches right: every write to ``participants`` drops its entries.

        Temporary triggers (this connection only, gone on restart) see every path that changes
        a membership, the human, agent and bulk APIs and cascades alike.
        """
        self.db.create_function("band_forget_role", 2, self._forget_role, deterministic=False)
        for op, row in (("INSERT", "NEW"), ("DELETE", "OLD"), ("UPDATE", "OLD")):
            self.db.execute(
                f"CREATE TEMP TRIGGER IF NOT EXISTS band_roles_{op.lower()} AFTER {op} ON "
                f"main.participants BEGIN SELECT band_forget_role({row}.room_id, "
                f"{row}.participant_id); END"
            )
        # an UPDATE may move a row to another room or participant: forget the new key too
        self.db.execute(
            "CREATE TEMP TRIGGER IF NOT EXISTS band_roles_update_new AFTER UPDATE ON "
            "main.participants BEGIN SELECT band_forget_role(NEW.room_id, NEW.participant_id); END"
        )

    def _watch_rows(self) -> None:
        """Keep the room and identity caches right the same way: any write to ``rooms`` drops
        that room's row, any write to ``agents`` or ``users`` every cached key, agent and entity
        (they change rarely; every request reads them)."""
        self.db.create_function("band_forget_room", 1, self._forget_room, deterministic=False)
        self.db.create_function("band_forget_ids", 0, self._forget_identities, deterministic=False)
        for op, row in (("INSERT", "NEW"), ("DELETE", "OLD"), ("UPDATE", "OLD")):
            self.db.execute(
                f"CREATE TEMP TRIGGER IF NOT EXISTS band_rooms_{op.lower()} AFTER {op} ON "
                f"main.rooms BEGIN SELECT band_forget_room({row}.id); END"
            )
            for table in ("agents", "users"):
                self.db.execute(
                    f"CREATE TEMP TRIGGER IF NOT EXISTS band_{table}_{op.lower()} AFTER {op} ON "
                    f"main.{table} BEGIN SELECT band_forget_ids(); END"
                )
        self.db.execute(
            "CREATE TEMP TRIGGER IF NOT EXISTS band_rooms_update_new AFTER UPDATE ON "
            "main.rooms BEGIN SELECT band_forget_room(NEW.id); END"
        )

    def _forget_room(self, rid: str) -> None:
        self._rooms.pop(rid, None)
        self._listings.clear()

    def _forget_identities(self) -> None:
        self._listings.clear()  # an agent's owner is part of who lists its rooms
        self._principals.clear()
        self._agents.clear()
        self._entities.clear()
        self._members.clear()

    def _cached(self, cache: dict[str, R], key: str, read: Callable[[], R | None]) -> R | None:
        """``cache[key]``, else ``read()``, kept in ``cache`` when found (a miss is not kept).

        Only committed state is kept: a transaction in progress may still roll back.
        """
        hit = cache.get(key)
        if hit is not None:
            return hit
        value = read()
        if value is not None:
            self._keep(cache, key, value, MAX_CACHED_ROWS)
        return value

    def _keep(self, cache: dict[K, V], key: K, value: V, most: int) -> None:
        """``cache[key] = value`` (``cache`` starts over at ``most`` entries), unless a
        transaction is in progress: only committed state is cached, it may still roll back."""
        if not self.db.in_transaction:
            if len(cache) >= most:
                cache.clear()
            cache[key] = value

    def _forget_role(self, rid: str, pid: str) -> None:
        self._listings.clear()  # the person's, or that of an agent's owner
        self._roles.pop((rid, pid), None)
        self._room_lists.pop(pid, None)
        self._rosters.pop(rid, None)
        self._members.pop(rid, None)

    def close(self) -> None:
        """Close the connection."""
        self.db.close()

    def transaction(self) -> Transaction:
        """``with store.transaction():`` one write transaction around the block (see
        ``Transaction``)."""
        return self._transaction

    def exists(self, sql: str, params: tuple[Any, ...] = ()) -> bool:
        """Whether the query ``sql`` (a ``SELECT 1 ...``) finds a row."""
        return self.db.execute(sql, params).fetchone() is not None

    def migrate(self) -> None:
        """Apply pending schema migrations, tracked in ``schema_version``."""
        self.db.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
        row = self.db.execute("SELECT MAX(version) FROM schema_version").fetchone()
        current = row[0] or 0
        for version in sorted(v for v in MIGRATIONS if v > current):
            with self.transaction():
                for stmt in MIGRATIONS[version].split(";"):
                    if stmt.strip():
                        self.db.execute(stmt)
                self.db.execute("INSERT INTO schema_version (version) VALUES (?)", (version,))
            if current:  # a new database's steps are not news: one line says it was made
                log.info("upgraded the database to schema version %d", version)
        if not current:
            log.info("created a new database (schema version %d)", SCHEMA_VERSION)

    def schema_version(self) -> int:
        """Return the applied schema version."""
        return int(self.db.execute("SELECT MAX(version) FROM schema_version").fetchone()[0])

    # -- identities -------------------------------------------------------

    def ensure_local_user(self, key: str | None = None) -> tuple[UserRow, str]:
        """Return the local person and its key, creating them once.

        The key is kept beside the database (``local_key``), never in it. Without ``key`` the
        kept one is used; when that is gone the local person gets a new key (its rooms and
        agents stay); a ``key`` nobody has yet makes a new local person, as before.
        """
        key = key or self._local_key or read_key(self.path)
        user = self.user_by_key(key) if key else None
        if user is None and key is None:
            key = new_key("band_u_")
            local = self._setting("local_user_id")
            if local is not None:  # the kept key was lost: the same person, a new key
                self.db.execute("UPDATE users SET key_hash=? WHERE id=?", (hash_key(key), local))
                user = self.user_by_key(key)
        if user is None:
            assert key is not None
            user = self._create_user("Local Person", "local", key)
        assert key is not None
        self.db.execute(
            "INSERT OR REPLACE INTO settings (key, value) VALUES ('local_user_id', ?)", (user.id,)
        )
        keep_key(self.path, key)
        self._local_key = key
        return user, key

    def local_user_key(self) -> str | None:
        """Return the local person's key: this store's, else the one kept beside the DB."""
        return self._local_key or read_key(self.path)

    def _setting(self, name: str) -> str | None:
        row = self.db.execute("SELECT value FROM settings WHERE key=?", (name,)).fetchone()
        return row[0] if row else None

    def _move_clear_key(self) -> None:
        """Move a key an older band dev stored in clear out of the DB (into the key file), and
        overwrite it where it was (``secure_delete``, the log checkpointed and truncated)."""
        legacy = self._setting("local_user_key")
        if legacy is None:
            return
        user = self.user_by_key(legacy)
        if user is not None:
            self.db.execute(
                "INSERT OR REPLACE INTO settings (key, value) VALUES ('local_user_id', ?)",
                (user.id,),
            )
        if read_key(self.path) is None:
            keep_key(self.path, legacy)
        self._local_key = legacy
        self.db.execute("PRAGMA secure_delete = ON")
        self.db.execute("DELETE FROM settings WHERE key='local_user_key'")
        self.db.execute("PRAGMA secure_delete = OFF")
        if self.path != ":memory:":
            self.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        log.info("moved the local person's key out of the database, beside it")

    def create_user(self, name: str, handle: str, key: str) -> JsonObject:
        """Insert a human user; return its row as a plain dict (``band user add`` prints it,
        ``band.testing`` reads it)."""
        row: JsonObject = msgspec.to_builtins(self._create_user(name, handle, key))
        return row

    def _create_user(self, name: str, handle: str, key: str) -> UserRow:
        uid, ts = str(uuid.uuid4()), now()
        handle = self._free_handle("users", handle, "")
        email, key_hash = f"{handle}@localhost", hash_key(key)
        self.db.execute(
            "INSERT INTO users VALUES (?,?,?,?,?,?,?)", (uid, handle, name, email, key_hash, ts, ts)
        )
        return UserRow(
            id=uid, handle=handle, name=name, email=email, key_hash=key_hash,
            inserted_at=ts, updated_at=ts,
        )  # fmt: skip

    def _free_handle(self, table: Literal["users", "agents"], base: str, sep: str) -> str:
        """``base``, or the first of ``base{sep}2``, ``base{sep}3``... not taken in ``table``."""
        taken = f"SELECT 1 FROM {table} WHERE handle=?"
        handle, n = base, 1
        while self.exists(taken, (handle,)):
            n += 1
            handle = f"{base}{sep}{n}"
        return handle

    def user(self, uid: str) -> UserRow | None:
        """Return a user row."""
        row = self.db.execute("SELECT * FROM users WHERE id=?", (uid,)).fetchone()
        return record(UserRow, row) if row else None

    def user_by_key(self, key: str) -> UserRow | None:
        """Return the user owning ``key``."""
        row = self.db.execute("SELECT * FROM users WHERE key_hash=?", (hash_key(key),)).fetchone()
        return record(UserRow, row) if row else None

    def create_agent(self, owner_id: str, name: str, description: str) -> tuple[AgentRow, str]:
        """Register an agent for ``owner_id``; return (agent, api_key)."""
        owner = self.user(owner_id)
        if owner is None:
            raise StoreError(404, "not_found", "owner not found")
        aid, ts, key = str(uuid.uuid4()), now(), new_key("band_a_")
        handle = self._free_handle("agents", f"{owner.handle}/{slug(name)}", "-")
        agent = AgentRow(
            id=aid, name=name, handle=handle, description=description, owner_id=owner_id,
            key_hash=hash_key(key), inserted_at=ts, updated_at=ts,
        )  # fmt: skip
        self.db.execute(
            "INSERT INTO agents VALUES (?,?,?,?,?,?,?,?)",
            (aid, name, handle, description, owner_id, agent.key_hash, ts, ts),
        )
        return agent, key

    def agent(self, aid: str) -> AgentRow | None:
        """Return an agent row (cached; triggers keep it right)."""
        return self._cached(self._agents, aid, lambda: self._agent(aid))

    def _agent(self, aid: str) -> AgentRow | None:
        row = self.db.execute("SELECT * FROM agents WHERE id=?", (aid,)).fetchone()
        return record(AgentRow, row) if row else None

    def delete_agent(self, owner_id: str, aid: str, force: bool = False) -> tuple[AgentRow, int]:
        """Delete an agent of ``owner_id`` and its room memberships; return it and how many
        executions were deleted with it.

        An agent's executions are its processing attempts (``attempts``): the audit trail of
        what it worked on. As on Band, an agent that has any is refused (422
        ``execution_history_exists``) unless ``force`` deletes them first.
        """
        agent = self.agent(aid)
        if agent is None or agent.owner_id != owner_id:
            raise StoreError(404, "not_found", "agent not found")
        (executions,) = self.db.execute(
            "SELECT COUNT(*) FROM attempts WHERE agent_id=?", (aid,)
        ).fetchone()
        if executions and not force:
            raise StoreError(
                422,
                "execution_history_exists",
                f"agent has execution history ({executions} executions); "
                "delete it with force=true to remove the history too",
            )
        self.db.execute("DELETE FROM attempts WHERE agent_id=?", (aid,))
        self.db.execute("DELETE FROM participants WHERE participant_id=?", (aid,))
        self.db.execute("DELETE FROM agents WHERE id=?", (aid,))
        return agent, int(executions)

    def update_user_name(self, uid: str, first: str | None, last: str | None) -> UserRow:
        """Change a person's first and/or last name."""
        user = self.user(uid)
        if user is None:
            raise StoreError(404, "not_found", "user not found")
        old_first, _, old_last = user.name.partition(" ")
        name = " ".join(p for p in (first or old_first, old_last if last is None else last) if p)
        ts = now()
        self.db.execute("UPDATE users SET name=?, updated_at=? WHERE id=?", (name, ts, uid))
        return msgspec.structs.replace(user, name=name, updated_at=ts)

    def agents_of(self, owner_id: str) -> list[AgentRow]:
        """Return the agents owned by a user."""
        rows = self.db.execute(
            "SELECT * FROM agents WHERE owner_id=? ORDER BY inserted_at", (owner_id,)
        )
        return [record(AgentRow, r) for r in rows]

    def authenticate(self, key: str) -> Principal | None:
        """Resolve an API key to a principal (known keys cached; triggers keep it right; an
        unknown key is not kept, so a stranger's guesses hold no memory)."""
        digest = hash_key(key)
        return self._cached(self._principals, digest, lambda: self._principal(digest))

    def _principal(self, digest: str) -> Principal | None:
        row = self.db.execute("SELECT id, name FROM agents WHERE key_hash=?", (digest,)).fetchone()
        if row:
            return Principal("agent", row["id"], row["name"])
        row = self.db.execute("SELECT id, name FROM users WHERE key_hash=?", (digest,)).fetchone()
        return Principal("user", row["id"], row["name"]) if row else None

    def entity(self, pid: str) -> Entity | None:
        """Return the person or agent with id ``pid`` (cached; triggers keep it right)."""
        return self._cached(self._entities, pid, lambda: self._entity(pid))

    def _entity(self, pid: str) -> Entity | None:
        row = self.db.execute(ENTITIES.format(where="WHERE id=?"), (pid, pid)).fetchone()
        return record(Entity, row) if row else None

    # -- rooms & participants --------------------------------------------

    def create_room(self, creator: Principal, title: str | None, task_id: str | None) -> RoomRow:
        """Create a room with the creator as owner."""
        rid, ts = str(uuid.uuid4()), now()
        self.db.execute(
            "INSERT INTO rooms VALUES (?,?,?,?,?,?,?)",
            (rid, title, task_id, "direct", "active", ts, ts),
        )
        kind = "Agent" if creator.kind == "agent" else "User"
        self.db.execute(
            "INSERT INTO participants VALUES (?,?,?,?,?)", (rid, creator.id, kind, "owner", ts)
        )
        self.db.execute("INSERT INTO room_creators VALUES (?,?)", (rid, creator.id))
        return RoomRow(
            id=rid, title=title, task_id=task_id, type="direct", status="active",
            inserted_at=ts, updated_at=ts,
        )  # fmt: skip

    def rename_room(self, rid: str, title: str) -> RoomRow:
        """Set a room's title (a room that does not exist is a 404)."""
        self.db.execute("UPDATE rooms SET title=?, updated_at=? WHERE id=?", (title, now(), rid))
        room = self.room(rid)
        if room is None:
            raise StoreError(404, "not_found", "chat room not found")
        return room

    def room(self, rid: str) -> RoomRow | None:
        """Return a room row (cached; triggers keep it right)."""
        return self._cached(self._rooms, rid, lambda: self._room(rid))

    def _room(self, rid: str) -> RoomRow | None:
        row = self.db.execute("SELECT * FROM rooms WHERE id=?", (rid,)).fetchone()
        return record(RoomRow, row) if row else None

    def role(self, rid: str, pid: str) -> str | None:
        """Return the role of ``pid`` in room ``rid`` or None (cached; triggers keep it right)."""
        key = (rid, pid)
        if key in self._roles:
            return self._roles[key]
        row = self.db.execute(
            "SELECT role FROM participants WHERE room_id=? AND participant_id=?", (rid, pid)
        ).fetchone()
        role: str | None = row[0] if row else None
        self._keep(self._roles, key, role, MAX_CACHED_ROLES)
        return role

    def member_room(self, rid: str, pid: str) -> RoomRow:
        """Return the room if ``pid`` participates in it, else raise 404."""
        room = self.room(rid)
        if room is None or self.role(rid, pid) is None:
            raise StoreError(404, "not_found", "chat room not found")
        return room

    def rooms_of(self, pid: str, page: int, page_size: int) -> tuple[list[RoomRow], int]:
        """Return a page of rooms ``pid`` participates in and the total count."""
        ids = self._room_list(pid)
        return self.rooms_in_order(ids[(page - 1) * page_size : page * page_size]), len(ids)

    def listing(self, key: tuple[str, bool], read: Callable[[], list[Any]]) -> list[Any]:
        """A person's room listing (``rooms.listable``: ``key`` is the person and whether their
        agents' rooms count), kept until a write to rooms, participants, agents or users.

        Reading it costs a row per room: a person in thousands of rooms paid that for every
        page, and a whole listing for each of its pages.
        """
        hit = self._listings.get(key)
        if hit is None:
            hit = read()
            self._keep(self._listings, key, hit, MAX_CACHED_LISTINGS)
        return hit

    def rooms_in_order(self, ids: list[str]) -> list[RoomRow]:
        """The rows of rooms ``ids``, in that order (one listed page; a room gone meanwhile is
        left out)."""
        if not ids:
            return []
        marks = ",".join("?" * len(ids))
        rows = {
            r["id"]: record(RoomRow, r)
            for r in self.db.execute(f"SELECT * FROM rooms WHERE id IN ({marks})", ids)
        }
        return [rows[rid] for rid in ids if rid in rows]

    def _room_list(self, pid: str) -> list[str]:
        """The ids of ``pid``'s rooms in listing order (cached; triggers keep it right).

        Sorting every room of the participant for each page made a listing of n rooms cost
        O(n) per page; rooms keep their ``inserted_at``, so only a membership change (which
        the ``participants`` triggers report) changes the order.
        """
        ids = self._room_lists.get(pid)
        if ids is not None:
            return ids
        ids = [r[0] for r in self.db.execute(
            "SELECT r.id FROM rooms r JOIN participants p ON p.room_id=r.id "
            "WHERE p.participant_id=? ORDER BY r.inserted_at, r.id",
            (pid,),
        )]  # fmt: skip
        self._keep(self._room_lists, pid, ids, MAX_CACHED_ROOM_LISTS)
        return ids

    def room_ids_of(self, pid: str) -> set[str]:
        """Return every room id ``pid`` participates in."""
        rows = self.db.execute("SELECT room_id FROM participants WHERE participant_id=?", (pid,))
        return {r[0] for r in rows}

    def participants(self, rid: str) -> list[Member]:
        """Return the room's participants with their identity (an identity gone is skipped;
        cached: the roster's and the identities' triggers drop it)."""
        members = self._members.get(rid)
        if members is None:
            members = []
            for pid, role in self._roster(rid):
                ent = self.entity(pid)
                if ent is not None:
                    members.append(_member(ent, role))
            self._keep(self._members, rid, members, MAX_CACHED_ROOM_LISTS)
        return list(members)  # the caller's own list (the members are immutable)

    def _roster(self, rid: str) -> list[tuple[str, str]]:
        """(participant id, role) of the room's participants in joining order (cached; the
        ``participants`` triggers drop it on any change of the room's memberships)."""
        roster = self._rosters.get(rid)
        if roster is not None:
            return roster
        roster = [(r[0], r[1]) for r in self.db.execute(
            "SELECT participant_id, role FROM participants WHERE room_id=? ORDER BY inserted_at",
            (rid,),
        )]  # fmt: skip
        self._keep(self._rosters, rid, roster, MAX_CACHED_ROOM_LISTS)
        return roster

    def add_participant(self, rid: str, actor: str, pid: str, role: str) -> tuple[Member, bool]:
        """Add ``pid`` (a peer of ``actor``) to the room; return (participant, newly_added)."""
        ent = self.entity(pid)
        if ent is None:
            raise StoreError(404, "not_found", "participant not found")
        existing = self.role(rid, pid)
        if existing is None and pid not in self.peer_ids(actor):
            raise StoreError(
                403, "forbidden", "participant is not a peer; add them as a contact first"
            )
        if existing is None:
            self.db.execute(
                "INSERT INTO participants VALUES (?,?,?,?,?)", (rid, pid, ent.type, role, now())
            )
        return _member(ent, existing or role), existing is None

    def remove_participant(self, rid: str, pid: str) -> Member:
        """Remove ``pid`` from the room, returning the removed participant."""
        role = self.role(rid, pid)
        ent = self.entity(pid)
        if role is None or ent is None:
            raise StoreError(404, "not_found", "participant not found")
        self.db.execute("DELETE FROM participants WHERE room_id=? AND participant_id=?", (rid, pid))
        return _member(ent, role)

    def peer_ids(self, pid: str) -> set[str]:
        """Ids ``pid`` may look up and add to rooms: one owner's agents, that owner, contacts.

        Band Cloud's peers are sibling agents, global and organisation-shared agents and
        established contacts; the local platform has no organisations or global agents, and
        counts the owner in, so an agent can bring its person into a room.
        """
        agent = self.agent(pid)
        owner = agent.owner_id if agent else pid
        ids = {r[0] for r in self.db.execute("SELECT id FROM agents WHERE owner_id=?", (owner,))}
        ids.add(owner)
        ids |= self._contact_ids(pid)
        ids.discard(pid)
        return ids

    def _contact_ids(self, pid: str) -> set[str]:
        rows = self.db.execute("SELECT contact_id FROM contacts WHERE owner_id=?", (pid,))
        return {r[0] for r in rows}

    def peers(self, pid: str, not_in_chat: str | None) -> list[PeerRow]:
        """Return ``pid``'s peers (see :meth:`peer_ids`), flagging contacts, minus a room's."""
        wanted = self.peer_ids(pid)
        if not_in_chat:
            wanted -= {p.id for p in self.participants(not_in_chat)}
        contacts = self._contact_ids(pid)
        return [
            PeerRow(**msgspec.structs.asdict(e), is_contact=e.id in contacts)
            for e in (record(Entity, r) for r in self.db.execute(ENTITIES.format(where="")))
            if e.id in wanted
        ]

    # -- messages ---------------------------------------------------------

    def resolve_mentions(self, rid: str, mentions: list[JsonObject]) -> list[JsonObject]:
        """Map mention objects onto room participants (422 for strangers)."""
        parts = self.participants(rid)
        out: list[JsonObject] = []
        for m in mentions:
            hit = None
            for p in parts:
                if m.get("id") and m["id"] == p.id:
                    hit = p
                elif not m.get("id") and m.get("handle") and m["handle"].lstrip("@") == p.handle:
                    hit = p
                elif not m.get("id") and not m.get("handle") and m.get("name") == p.name:
                    hit = p
                if hit:
                    break
            if hit is None:
                raise StoreError(422, "validation_error", "mentioned_participant_not_in_room")
            kind = m.get("kind") or "mention"
            same = next((o for o in out if o["id"] == hit.id), None)
            if same is None:
                out.append({"id": hit.id, "handle": hit.handle, "name": hit.name,
                            "username": hit.handle, "kind": kind})  # fmt: skip
            elif kind == "mention":  # named twice: a delivered mention outranks a reference
                same["kind"] = "mention"
        return out

    def create_message(
        self,
        rid: str,
        sender: Principal,
        content: str,
        message_type: str,
        mentions: list[JsonObject],
        extra_metadata: JsonObject | None = None,
        attachment_ids: list[str] | None = None,
        delegation: JsonObject | None = None,
    ) -> MessageRecord:
        """Persist a message (with mentions, deliveries and attachments) and return it.

        ``metadata.delegation`` is the platform's alone: a client's is dropped, and
        ``delegation`` (see ``delegation.envelope_for``) is minted here, an envelope naming
        this message and the time it was created.
        """
        mid, ts = str(uuid.uuid4()), now()
        extra_metadata = {k: v for k, v in (extra_metadata or {}).items() if k != "delegation"}
        if delegation is not None:
            minted = {"message_id": mid, "minted_at": ts} if "originator" in delegation else {}
            extra_metadata["delegation"] = {**delegation, **minted}
        # only a delivered mention is addressed (content prefix, mentions row, delivery); a
        # reference stays on the message's metadata alone
        addressed = [m for m in mentions if m.get("kind", "mention") == "mention"]
        if addressed:
            prefix = "".join(f"@[[{m['id']}]] " for m in addressed if m["id"] not in content)
            content = prefix + content
        metadata = {**(extra_metadata or {}), "mentions": mentions, "status": "sent"}
        sender_type = "Agent" if sender.kind == "agent" else "User"
        stored = dump_json(metadata)
        # the agents it is delivered to, from the cached rows (read before the transaction,
        # where a cache may not be filled)
        delivered = {m["id"] for m in addressed if m["id"] != sender.id and self.is_agent(m["id"])}
        attached = list(dict.fromkeys(attachment_ids or ()))
        with self.transaction():
            seq = self.db.execute(
                "INSERT INTO messages (id, room_id, content, message_type, sender_id, "
                "sender_type, sender_name, metadata, inserted_at, updated_at) "
                "VALUES (?,?,?,?,?,?,?,?,?,?)",
                (mid, rid, content, message_type, sender.id, sender_type, sender.name,
                 stored, ts, ts),
            ).lastrowid  # fmt: skip
            for pos, fid in enumerate(attached):
                self.db.execute("INSERT INTO message_attachments VALUES (?,?,?)", (mid, fid, pos))
            mentioned = Addressees(rid, sender.id, frozenset(m["id"] for m in addressed))
            self._transaction.after_commit(
                lambda: self._keep(self._addressees, mid, mentioned, MAX_CACHED_MESSAGES)
            )
            for m in addressed:
                self.db.execute("INSERT INTO mentions VALUES (?,?)", (mid, m["id"]))
                if m["id"] in delivered:
                    self.db.execute(
                        "INSERT INTO deliveries (message_id, agent_id, status) VALUES (?,?,?)",
                        (mid, m["id"], "delivered"),
                    )
            if attached:  # its files' rows: read back with the message (in the transaction)
                return self.message(mid)  # type: ignore[return-value]
        # what was just written is what ``message`` would read back (``_shape``): the stored
        # metadata with each delivery, in agent id order, not yet attempted
        assert seq is not None  # the rowid the INSERT gave the message
        shown = load_json(stored)
        shown["delivery_status"] = {
            aid: {"status": "delivered", "current_attempt": None, "attempts": []}
            for aid in sorted(delivered)
        }
        row = (seq, mid, rid, content, message_type, sender.id, sender_type, sender.name)
        return _message(row, shown, ts, ts, [])

    def addressees(self, mid: str) -> Addressees | None:
        """Message ``mid``'s room, sender and mentioned ids (cached: messages and their mentions
        are never changed; a new one's are kept once it commits)."""
        found = self._addressees.get(mid)
        if found is not None:
            return found
        rows = self.db.execute(
            "SELECT m.room_id, m.sender_id, x.participant_id FROM messages m "
            "LEFT JOIN mentions x ON x.message_id=m.id WHERE m.id=?",
            (mid,),
        ).fetchall()
        if not rows:
            return None
        found = Addressees(rows[0][0], rows[0][1], frozenset(r[2] for r in rows if r[2]))
        self._keep(self._addressees, mid, found, MAX_CACHED_MESSAGES)
        return found

    def is_agent(self, pid: str) -> bool:
        """Whether ``pid`` is an agent (from the cached identities)."""
        found = self.entity(pid)
        return found is not None and found.type == "Agent"

    def message(self, mid: str) -> MessageRecord | None:
        """Return a message with its delivery status and attachments."""
        # the message, whether it has files, and each delivery with its attempts in one
        # statement: a row per attempt (the message's columns repeated; NULL delivery or attempt
        # columns where it has none)
        rows = self.db.execute(MESSAGE, (mid,)).fetchall()
        if not rows:
            return None
        first = rows[0]
        files = self._attachments(mid) if first[MESSAGE_FILES] else []
        statuses = _statuses(r[MESSAGE_FILES + 1 :] for r in rows if r[MESSAGE_FILES + 1])
        return _message(first, _metadata(first[8], statuses), first[9], first[10], files)

    def _shape(self, row: sqlite3.Row) -> MessageRecord:
        """Read a message row with its attachments and per-agent delivery status."""
        return self._shape_all([row])[0]

    def _shape_all(self, rows: Sequence[sqlite3.Row]) -> list[MessageRecord]:
        """``_shape`` for a page of rows: their deliveries and files read in two statements
        (not two a row: a page of 100 took 200)."""
        statuses: dict[str, list[Any]] = {}
        files: dict[str, list[Attachment]] = {}
        for start in range(0, len(rows), _SHAPE_BATCH):
            ids = [r["id"] for r in rows[start : start + _SHAPE_BATCH]]
            marks = ",".join("?" * len(ids))
            for d in self.db.execute(DELIVERIES_OF.format(marks), ids):
                statuses.setdefault(d[0], []).append(d[1:])
            for f in self.db.execute(ATTACHMENTS_OF.format(marks), ids):
                files.setdefault(f["message_id"], []).append(attachment(f))
        return [
            record(
                MessageRecord,
                row,
                metadata=_metadata(row["metadata"], _statuses(statuses.get(row["id"], ()))),
                attachments=files.get(row["id"], []),
            )
            for row in rows
        ]

    def _attachments(self, mid: str) -> list[Attachment]:
        """A message's files, in the order it lists them."""
        return [
            attachment(a)
            for a in self.db.execute(
                "SELECT f.* FROM message_attachments x JOIN files f ON f.id=x.file_id "
                "WHERE x.message_id=? ORDER BY x.position",
                (mid,),
            )
        ]

    def agent_messages(
        self,
        rid: str,
        aid: str,
        status: str | None,
        cursor: int | None,
        limit: int,
        desc: bool,
        offset: int = 0,
    ) -> tuple[list[MessageRecord], bool]:
        """List room messages mentioning ``aid`` filtered by per-agent status (``offset``: rows
        of the listing to skip first, for page-number paging)."""
        where, args = self._agent_messages_where(rid, aid, status, cursor, desc)
        sql = f"SELECT m.* {where} ORDER BY m.seq {'DESC' if desc else 'ASC'} LIMIT ? OFFSET ?"
        rows = self.db.execute(sql, [*args, limit + 1, offset]).fetchall()
        return self._shape_all(rows[:limit]), len(rows) > limit

    def count_agent_messages(self, rid: str, aid: str, status: str | None) -> int:
        """How many messages ``agent_messages`` lists in all (no shaping)."""
        where, args = self._agent_messages_where(rid, aid, status, None, False)
        return int(self.db.execute(f"SELECT COUNT(*) {where}", args).fetchone()[0])

    @staticmethod
    def _agent_messages_where(
        rid: str, aid: str, status: str | None, cursor: int | None, desc: bool
    ) -> tuple[str, list[Any]]:
        """``agent_messages``' FROM and WHERE clauses, and their arguments.

        Every mention of an agent other than its sender has a delivery row (``create_message``
        writes both), so the statuses short of processed are read from the agent's open
        deliveries (the ``deliveries_open`` index, first: ``CROSS JOIN`` keeps SQLite's planner
        from walking the room's messages instead); ``all`` and ``processed`` walk the room.
        """
        cur = "" if cursor is None else ("AND m.seq < ?" if desc else "AND m.seq > ?")
        after = [] if cursor is None else [cursor]
        if status in _OPEN_STATUSES:
            where = (
                "FROM deliveries d CROSS JOIN messages m ON m.id=d.message_id "
                f"WHERE d.agent_id=? AND d.status != 'processed' {_OPEN_STATUSES[status]} "
                f"AND m.room_id=? AND m.sender_id != ? {cur}"
            )
            return where, [aid, rid, aid, *after]
        where = (
            "FROM messages m JOIN mentions x ON x.message_id=m.id AND x.participant_id=? "
            "LEFT JOIN deliveries d ON d.message_id=m.id AND d.agent_id=? "
            f"WHERE m.room_id=? AND m.sender_id != ? AND {_CLOSED_STATUSES[status]} {cur}"
        )
        return where, [aid, aid, rid, aid, *after]

    def next_message(self, rid: str, aid: str) -> MessageRecord | None:
        """Return the oldest not-processed message mentioning ``aid``."""
        items, _ = self.agent_messages(rid, aid, None, None, 1, False)
        return items[0] if items else None

    def context(
        self, rid: str, aid: str, cursor: int | None, limit: int, offset: int = 0
    ) -> tuple[list[MessageRecord], bool]:
        """Messages the agent sent plus text messages mentioning it, oldest first (``offset``:
        rows to skip first, for page-number paging)."""
        sql = f"SELECT m.* {_CONTEXT} AND m.seq > ? ORDER BY m.seq LIMIT ? OFFSET ?"
        rows = self.db.execute(sql, (rid, aid, aid, cursor or 0, limit + 1, offset)).fetchall()
        return self._shape_all(rows[:limit]), len(rows) > limit

    def count_context(self, rid: str, aid: str) -> int:
        """How many messages ``context`` lists in all (no shaping)."""
        return int(self.db.execute(f"SELECT COUNT(*) {_CONTEXT}", (rid, aid, aid)).fetchone()[0])

    def room_messages(
        self, rid: str, cursor: int | None, limit: int, where: MessageFilter | None = None
    ) -> tuple[list[MessageRecord], bool]:
        """Every message of a room passing ``where``, newest first (the human view: page 1 is
        the most recent; ``cursor`` is the last message of the previous page)."""
        cond, args = (where or MessageFilter()).sql()
        rows = self.db.execute(
            f"SELECT * FROM messages WHERE room_id=? AND seq < ? {cond} ORDER BY seq DESC LIMIT ?",
            (rid, MAX_SEQ if cursor is None else cursor, *args, limit + 1),
        ).fetchall()
        return self._shape_all(rows[:limit]), len(rows) > limit

    def count_messages(self, rid: str, where: MessageFilter | None = None) -> int:
        """Count the messages in a room passing ``where``."""
        cond, args = (where or MessageFilter()).sql()
        row = self.db.execute(
            f"SELECT COUNT(*) FROM messages WHERE room_id=? {cond}", (rid, *args)
        ).fetchone()
        return int(row[0])

    # -- delivery state machine ------------------------------------------

    def _delivery(self, rid: str, mid: str, aid: str) -> sqlite3.Row | None:
        # the message and its delivery to ``aid`` (NULL columns when there is none) at once
        row = self.db.execute(
            "SELECT m.room_id, d.status, d.current_attempt FROM messages m LEFT JOIN deliveries "
            "d ON d.message_id=m.id AND d.agent_id=? WHERE m.id=?",
            (aid, mid),
        ).fetchone()
        if row is None or row["room_id"] != rid:
            raise StoreError(404, "not_found", "message not found")
        return row if row["status"] is not None else None

    def mark_processing(self, rid: str, mid: str, aid: str) -> tuple[str, int]:
        """Start (or keep) a processing attempt for ``aid`` on ``mid``; return (status, attempt)."""
        with self.transaction():
            # the usual case in one statement: a delivery of a message of the room, not live
            started = self.db.execute(
                "UPDATE deliveries SET status='processing', current_attempt=current_attempt+1, "
                f"processed_at=NULL WHERE {_MARKABLE} AND status != 'processing' "
                "RETURNING current_attempt",
                (mid, aid, mid, rid),
            ).fetchall()
            if started:
                number = started[0][0]
            else:  # no such message in the room (404), a live attempt, or no delivery yet
                d = self._delivery(rid, mid, aid)
                if d is not None and d["status"] == "processing":
                    return "processing", d["current_attempt"]
                number = (d["current_attempt"] if d else 0) + 1
                self.db.execute(
                    "INSERT INTO deliveries (message_id, agent_id, status, current_attempt) "
                    "VALUES (?,?,'processing',?) ON CONFLICT(message_id, agent_id) DO UPDATE SET "
                    "status='processing', current_attempt=excluded.current_attempt, "
                    "processed_at=NULL",
                    (mid, aid, number),
                )
            self.db.execute(
                "INSERT INTO attempts VALUES (?,?,?,?,?,?,?)",
                (mid, aid, number, "processing", now(), None, None),
            )
        return "processing", number

    def mark_done(self, rid: str, mid: str, aid: str, error: str | None) -> tuple[str, int]:
        """Finish the live attempt as processed (``error`` None) or failed; (status, attempt)."""
        status = "processed" if error is None else "failed"
        ts = now()
        with self.transaction():
            # the live attempt's delivery settled and its number read in one statement
            ended = self.db.execute(
                "UPDATE deliveries SET status=?, processed_at=? "
                f"WHERE {_MARKABLE} AND status='processing' RETURNING current_attempt",
                (status, ts if error is None else None, mid, aid, mid, rid),
            ).fetchall()
            if not ended:
                self._delivery(rid, mid, aid)  # 404 when the room has no such message
                raise StoreError(
                    422,
                    "validation_error",
                    "no live processing attempt",
                    {"/processing_attempt": ["no processing attempt in progress"]},
                )
            number: int = ended[0][0]
            self.db.execute(
                "UPDATE attempts SET status=?, ended_at=?, error=? "
                "WHERE message_id=? AND agent_id=? AND number=?",
                ("success" if error is None else "failed", ts, error, mid, aid, number),
            )
        return status, number

    def log_event(
        self, topic: str, event: str, payload: JsonObject | msgspec.Struct | msgspec.Raw
    ) -> None:
        """Record a pushed server event (its JSON as pushed; ``Raw``: already encoded)."""
        self.db.execute(
            "INSERT INTO events (topic, event, payload, inserted_at) VALUES (?,?,?,?)",
            (topic, event, msgspec.json.encode(payload).decode(), now()),
        )


#: The delivery of message ``?`` to agent ``?``, if the message is in room ``?`` (its id again,
#: then the room's): what a mark changes.
_MARKABLE = (
    "message_id=? AND agent_id=? AND EXISTS (SELECT 1 FROM messages WHERE id=? AND room_id=?)"
)
#: The columns of a message ``_message`` reads, in its order.
MESSAGE_COLUMNS = (
    "m.seq, m.id, m.room_id, m.content, m.message_type, m.sender_id, m.sender_type, "
    "m.sender_name, m.metadata, m.inserted_at, m.updated_at"
)
#: A message's deliveries with their attempts (a delivery without any: one row of NULL attempt
#: columns), in the deliveries' key order, each one's attempts by number.
DELIVERY_COLUMNS = (
    "d.agent_id, d.status, d.current_attempt, a.number, a.status, a.started_at, a.ended_at, a.error"
)
DELIVERIES = (
    f"SELECT {DELIVERY_COLUMNS} FROM deliveries d LEFT JOIN attempts a "
    "ON a.message_id=d.message_id AND a.agent_id=d.agent_id "
    "WHERE d.message_id=? ORDER BY d.agent_id, a.number"
)
#: ``DELIVERIES`` of the messages whose ids fill the ``{}`` (as ``?, ?, ...``), each row
#: led by its message id.
DELIVERIES_OF = (
    f"SELECT d.message_id, {DELIVERY_COLUMNS} FROM deliveries d LEFT JOIN attempts a "
    "ON a.message_id=d.message_id AND a.agent_id=d.agent_id "
    "WHERE d.message_id IN ({}) ORDER BY d.message_id, d.agent_id, a.number"
)
#: The files of the messages whose ids fill the ``{}``, each message's in its order.
ATTACHMENTS_OF = (
    "SELECT x.message_id, f.* FROM message_attachments x JOIN files f ON f.id=x.file_id "
    "WHERE x.message_id IN ({}) ORDER BY x.message_id, x.position"
)
#: Messages shaped per pair of statements (well under SQLite's bound on parameters).
_SHAPE_BATCH = 500
#: One message with whether it has files, then its deliveries' columns (``DELIVERIES``).
MESSAGE = (
    f"SELECT {MESSAGE_COLUMNS}, "
    "EXISTS (SELECT 1 FROM message_attachments x WHERE x.message_id=m.id), "
    f"{DELIVERY_COLUMNS} FROM messages m LEFT JOIN deliveries d ON d.message_id=m.id "
    "LEFT JOIN attempts a ON a.message_id=d.message_id AND a.agent_id=d.agent_id "
    "WHERE m.id=? ORDER BY d.agent_id, a.number"
)
#: The index of ``MESSAGE``'s has-files column (the delivery columns follow it).
MESSAGE_FILES = 11


def _statuses(rows: Iterable[Any]) -> dict[str, JsonObject]:
    """``metadata.delivery_status`` from rows of ``DELIVERY_COLUMNS``: each agent's delivery
    and its attempts."""
    statuses: dict[str, JsonObject] = {}
    for agent_id, status, current, number, a_status, started, ended, error in rows:
        entry = statuses.get(agent_id)
        if entry is None:
            entry = statuses[agent_id] = {
                "status": status,
                "current_attempt": current or None,
                "attempts": [],
            }
        if number is not None:
            entry["attempts"].append(
                {"number": number, "status": a_status, "started_at": started,
                 "ended_at": ended, "error": error}
            )  # fmt: skip
    return statuses


def _metadata(stored: str, statuses: dict[str, JsonObject]) -> JsonObject:
    """A message's stored metadata with its delivery status."""
    metadata: JsonObject = load_json(stored)
    metadata["delivery_status"] = statuses
    return metadata


def _message(
    row: Any, metadata: JsonObject, inserted: str, updated: str, files: list[Attachment]
) -> MessageRecord:
    """A ``MessageRecord`` from the first eight of ``MESSAGE_COLUMNS`` (built directly: the
    store wrote these values, so they need no conversion)."""
    return MessageRecord(
        seq=row[0], id=row[1], room_id=row[2], content=row[3], message_type=row[4],
        sender_id=row[5], sender_type=row[6], sender_name=row[7], metadata=metadata,
        inserted_at=inserted, updated_at=updated, attachments=files,
    )  # fmt: skip


def attachment(row: sqlite3.Row) -> Attachment:
    """A room file as listed on a message (spec 2.5): no thumbnail, no expiry."""
    return Attachment(
        id=row["id"],
        name=row["name"],
        content_type=row["content_type"],
        bytes=row["bytes"],
        sha256=row["sha256"],
        sha_256=msgspec.UNSET,
        has_thumb=False,
        expires_at=None,
    )


def _member(ent: Entity, role: str) -> Member:
    """``ent`` as a participant with ``role``."""
    return Member(**msgspec.structs.asdict(ent), role=role)
