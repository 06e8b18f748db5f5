"""An agent's next message costs the same however many it answered in the room before; a
page of a listing reads that page.

Counted in SQLite virtual-machine steps (a progress handler), not time: before the
``deliveries_open`` index, ``next_message`` walked every answered message of the room, about
80 ms a call at 20,000 and a second at 100,000 (each answer asks for the next).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from bandtest.platform import Live, room_with, say

from band.devserver.store.db import Store
from band.devserver.store.files import put_file
from band.devserver.store.principal import Principal

STEP = 100  # VM instructions per progress-handler call


def _steps(store: Store, call: Callable[[], Any]) -> tuple[int, Any]:
    """How many ``STEP``s of SQLite's VM ``call`` took, and its result."""
    ticks = 0

    def tick() -> int:
        nonlocal ticks
        ticks += 1
        return 0  # go on

    store.db.set_progress_handler(tick, STEP)
    try:
        result = call()
    finally:
        store.db.set_progress_handler(None, STEP)
    return ticks, result


def test_next_message_does_not_walk_the_answered_ones(tmp_path: Path) -> None:
    store = Store(tmp_path / "dev.sqlite3")
    person, _ = store.ensure_local_user()
    me = Principal("user", person.id, person.name)
    agent, _ = store.create_agent(person.id, "Busy", "busy agent")
    room = store.create_room(me, "long-lived", None)
    store.add_participant(room.id, person.id, agent.id, "member")
    mention = [{"id": agent.id, "handle": agent.handle, "name": agent.name}]

    def answer(count: int) -> None:
        with store.transaction():
            for n in range(count):
                sent = store.create_message(room.id, me, f"old {n}", "text", mention)
                store.db.execute(
                    "UPDATE deliveries SET status='processed' WHERE message_id=? AND agent_id=?",
                    (sent.id, agent.id),
                )

    answer(300)
    waiting = store.create_message(room.id, me, "the new one", "text", mention)
    few, found = _steps(store, lambda: store.next_message(room.id, agent.id))
    assert found is not None and found.id == waiting.id
    answer(2700)  # ten times as many answered before it
    many, found = _steps(store, lambda: store.next_message(room.id, agent.id))
    assert found is not None and found.id == waiting.id
    assert many <= 2 * few + 5, (few, many)  # a walk would take about ten times as many
    # the open listings read the same way; the answered ones are still all listed
    pending, _ = store.agent_messages(room.id, agent.id, "pending", None, 50, False)
    assert [m.id for m in pending] == [waiting.id]
    done, more = store.agent_messages(room.id, agent.id, "processed", None, 50, True)
    assert len(done) == 50 and more and done[0].content.endswith("old 2699")


def test_page_number_paging_shapes_only_its_page(
    live: Live, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The offset family band-sdk sends (``page``/``page_size``) reads one page: before, each
    request shaped the whole listing (6.6 s a page at 100,000 messages)."""
    aid, _, key = live.register("Pager")
    rid = room_with(live, aid)
    for n in range(60):
        say(live, rid, f"m{n}", aid)
    shaped = 0
    shape_all = Store._shape_all

    def counting(self: Store, rows: Any) -> Any:
        nonlocal shaped
        shaped += len(rows)
        return shape_all(self, rows)

    monkeypatch.setattr(Store, "_shape_all", counting)
    base = f"/api/v1/agent/chats/{rid}"
    for path, every in (
        (f"{base}/context", {}),
        (f"{base}/messages", {"status": "all"}),
    ):
        whole = live.agent(key, "GET", path, params={**every, "limit": 100}).json()["data"]
        assert len(whole) == 60
        shaped = 0
        r = live.agent(key, "GET", path, params={**every, "page": 2, "page_size": 10})
        assert r.status_code == 200, r.text
        body = r.json()
        assert [m["id"] for m in body["data"]] == [m["id"] for m in whole[10:20]]
        meta = body["metadata"]
        assert (meta["page"], meta["total_count"], meta["total_pages"]) == (2, 60, 6)
        assert meta["has_more"] is True
        assert shaped == 10, shaped  # the page's rows alone


def test_a_listing_page_reads_what_a_single_message_read_does(tmp_path: Path) -> None:
    """Listings shape a page in two statements (not two a row); each record is the one the
    single-message read (``Store.message``, another statement) gives: files in their order,
    every agent's delivery with its attempts, and none where there are none."""
    store = Store(tmp_path / "dev.sqlite3")
    person, _ = store.ensure_local_user()
    me = Principal("user", person.id, person.name)
    room = store.create_room(me, "mixed", None)
    agents = [store.create_agent(person.id, name, name)[0] for name in ("Ada", "Bo")]
    for agent in agents:
        store.add_participant(room.id, person.id, agent.id, "member")
    files = [
        put_file(store, room.id, person.id, f"f{n}.txt", "text/plain", f"file {n}".encode(), None)
        for n in range(3)
    ]
    both = [{"id": a.id, "handle": a.handle, "name": a.name} for a in agents]
    sent = [
        store.create_message(room.id, me, "plain", "text", []),
        store.create_message(
            room.id, me, "files", "text", both[:1], None, [f.id for f in files[::-1]]
        ),
        store.create_message(room.id, me, "both", "text", both, None, [files[1].id]),
        store.create_message(room.id, me, "again", "text", both),
    ]
    ada, bo = agents
    store.mark_processing(room.id, sent[1].id, ada.id)
    store.mark_done(room.id, sent[1].id, ada.id, "boom")
    store.mark_processing(room.id, sent[1].id, ada.id)
    store.mark_processing(room.id, sent[2].id, bo.id)
    store.mark_done(room.id, sent[2].id, bo.id, None)
    listed, more = store.room_messages(room.id, None, 10)
    assert not more and [m.id for m in listed] == [m.id for m in reversed(sent)]
    for record in listed:
        assert record == store.message(record.id)
    with_files = next(m for m in listed if m.id == sent[1].id)
    assert [a.name for a in with_files.attachments] == ["f2.txt", "f1.txt", "f0.txt"]
    attempts = with_files.metadata["delivery_status"][ada.id]["attempts"]
    assert [(a["number"], a["status"]) for a in attempts] == [(1, "failed"), (2, "processing")]
    assert next(m for m in listed if m.id == sent[0].id).metadata["delivery_status"] == {}
