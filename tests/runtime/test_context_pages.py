"""PageMap: where a room's ``/context`` pages begin, and which one a look starts at."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from band.runtime.context_pages import PageMap

T0 = datetime(2026, 12, 7, 12, 0, tzinfo=UTC)


def at(seconds: int) -> datetime:
    return T0 + timedelta(seconds=seconds)


def test_a_look_starts_at_the_last_page_that_began_strictly_before() -> None:
    pages = PageMap()
    assert pages.start_for("r", at(5)) is None  # nothing known: from the first page
    for cursor, second in (("300", 30), ("100", 10), ("200", 20)):  # noted in any order
        pages.note("r", cursor, at(second))
    assert pages.start_for("r", at(25)) == "200"
    assert pages.start_for("r", at(99)) == "300"
    # a page beginning at the message's very instant may follow it: the one before is taken
    assert pages.start_for("r", at(20)) == "100"
    assert pages.start_for("r", at(10)) is None
    assert pages.start_for("r", None) is None  # no time to place it by
    assert pages.start_for("other", at(99)) is None


def test_naive_times_are_utc_and_a_cursor_is_noted_once() -> None:
    pages = PageMap()
    pages.note("r", "100", at(10).replace(tzinfo=None))
    pages.note("r", "100", at(50))  # the same page again: kept where it was first seen
    pages.note("r", "200", None)  # no time: nothing to place it by
    assert pages.start_for("r", at(11)) == "100"
    assert pages.start_for("r", at(11).replace(tzinfo=None)) == "100"
    assert pages.start_for("r", at(10)) is None


def test_bounded_by_rooms_and_pages_and_forgotten_on_request() -> None:
    pages = PageMap(max_rooms=2, max_pages=2)
    for cursor, second in (("1", 1), ("2", 2), ("3", 3)):
        pages.note("a", cursor, at(second))
    assert pages.start_for("a", at(9)) == "2"  # the third page was past the bound
    pages.note("b", "1", at(1))
    assert pages.start_for("a", at(9)) == "2"  # looked in: "a" is now the most recent
    pages.note("c", "1", at(1))  # a third room: the least recent ("b") goes
    assert pages.start_for("b", at(9)) is None
    assert pages.start_for("a", at(9)) == "2" and pages.start_for("c", at(9)) == "1"
    pages.forget("a")
    assert pages.start_for("a", at(9)) is None


def test_a_walk_for_the_newest_rows_starts_some_pages_back() -> None:
    pages = PageMap()
    assert pages.start_back("r", 2) is None
    for n in range(1, 6):
        pages.note("r", str(n * 100), at(n))
    assert pages.start_back("r", 0) == "500"
    assert pages.start_back("r", 2) == "300"
    assert pages.start_back("r", 4) == "100"
    assert pages.start_back("r", 5) is None  # fewer known: from the first page
