"""band dev in one room with a long history: what an agent's calls cost as the room grows.

For each size N, a fresh database gets one room with N messages that mention the agent, all
answered (processed), then one new message. Timed on band dev's store (no HTTP, so the figures
are the database's work): ``next_message`` (asked after every answer), one page of the
context by cursor and by page number (the offset family band-sdk's ``fetch_room_context``
sends: a count plus the page), and for reference both as they stood before this stop's fixes,
on the same database: the next-message query before the ``deliveries_open`` index (ce93422),
and a numbered page read as the whole listing, shaped (before 986e621; timed once); a page of
100 by cursor as listings shape it (two statements a page) and as they did before (two a
row: ``_shape_one_by_one``).
Ratios are to the smallest N.

    python bench/scale/history.py --sizes 1000 20000 100000
"""

from __future__ import annotations

import argparse
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from band.devserver.store.db import (
    _CONTEXT,
    DELIVERIES,
    MessageRecord,
    Store,
    _metadata,
    _statuses,
)
from band.devserver.store.principal import Principal
from band.devserver.store.rows import record

#: the next-message query before ce93422: a walk over the room's answered messages
WALK = (
    "SELECT m.* FROM messages m JOIN mentions x ON x.message_id=m.id AND x.participant_id=? "
    "LEFT JOIN deliveries d ON d.message_id=m.id AND d.agent_id=? "
    "WHERE m.room_id=? AND m.sender_id != ? AND COALESCE(d.status,'') != 'processed' "
    "ORDER BY m.seq ASC LIMIT 2"
)


def _shape_one_by_one(store: Store, rows: list[sqlite3.Row]) -> list[MessageRecord]:
    """A page shaped as listings did before ``Store._shape_all``: two statements a row."""
    return [
        record(
            MessageRecord,
            row,
            metadata=_metadata(
                row["metadata"], _statuses(store.db.execute(DELIVERIES, (row["id"],)))
            ),
            attachments=store._attachments(row["id"]),
        )
        for row in rows
    ]


def _page_rows(store: Store, rid: str, aid: str) -> list[sqlite3.Row]:
    """The rows of the context's first page of 100, unshaped."""
    sql = f"SELECT m.* {_CONTEXT} AND m.seq > 0 ORDER BY m.seq LIMIT 100"
    return store.db.execute(sql, (rid, aid, aid)).fetchall()


def _ms(call: Callable[[], Any], repeat: int) -> float:
    """The median of ``repeat`` timings of ``call``, in milliseconds."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        call()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def measure(size: int, directory: Path, repeat: int) -> dict[str, float]:
    """Per-call milliseconds of each operation on a room of ``size`` answered messages."""
    store = Store(directory / f"history-{size}.sqlite3")
    person, _ = store.ensure_local_user()
    me = Principal("user", person.id, person.name)
    agent, _ = store.create_agent(person.id, "Busy", "busy agent")
    room = store.create_room(me, "long-lived", None)
    store.add_participant(room.id, person.id, agent.id, "member")
    mention = [{"id": agent.id, "handle": agent.handle, "name": agent.name}]
    with store.transaction():
        for n in range(size):
            sent = store.create_message(room.id, me, f"old {n}", "text", mention)
            store.db.execute(
                "UPDATE deliveries SET status='processed' WHERE message_id=? AND agent_id=?",
                (sent.id, agent.id),
            )
    store.create_message(room.id, me, "the new one", "text", mention)
    rid, aid = room.id, agent.id
    walk = sqlite3.connect(store.path)
    try:
        return {
            "next_message": _ms(lambda: store.next_message(rid, aid), repeat),
            "next, the walk before ce93422": _ms(
                lambda: walk.execute(WALK, (aid, aid, rid, aid)).fetchall(), repeat
            ),
            "context page by cursor": _ms(lambda: store.context(rid, aid, None, 50), repeat),
            "context page 2 by number": _ms(
                lambda: (store.count_context(rid, aid), store.context(rid, aid, None, 50, 50)),
                repeat,
            ),
            "context page by number before 986e621": _ms(
                lambda: store.context(rid, aid, None, 1_000_000), 1
            ),
            "a page of 100 rows shaped": _ms(
                lambda: store._shape_all(_page_rows(store, rid, aid)), repeat
            ),
            "the same, shaped a row at a time (before)": _ms(
                lambda: _shape_one_by_one(store, _page_rows(store, rid, aid)), repeat
            ),
        }
    finally:
        walk.close()
        store.db.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 20000, 100000])
    parser.add_argument("--repeat", type=int, default=5, help="timings per figure (median)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="band-history-") as tmp:
        rows = {}
        for size in args.sizes:
            print(f"filling a room with {size} answered messages ...", file=sys.stderr)
            rows[size] = measure(size, Path(tmp), args.repeat)
    first = min(rows)
    print("| operation | " + " | ".join(f"N={n} ms (x N={first})" for n in rows) + " |")
    print("| --- |" + " --- |" * len(rows))
    for name in rows[first]:
        cells = [f"{rows[n][name]:.2f} ({rows[n][name] / rows[first][name]:.1f}x)" for n in rows]
        print(f"| {name} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
