"""ClaimRegistry (spec §6), against the pure implementation."""

from __future__ import annotations

import copy
import pickle
from types import ModuleType
from typing import Any

import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from band_sdk_core import ParkedReason as _ParkedReason
from band_sdk_core.retry import RetryTracker

ParkedReason: Any = _ParkedReason  # the enum module is typed loosely for mypy

CONFLICT = ("error", "invalid_value", "the message already has a different pending terminal intent")
CONFLICT_MESSAGE = (
    "1 validation issue(s): the message already has a different pending terminal intent (error)"
)
FINISHED = {"kind": "finished"}


def _conflict(info: pytest.ExceptionInfo[ValueError], trace: str | None) -> None:
    assert type(info.value) is ValueError
    assert info.value.args == (CONFLICT_MESSAGE,)
    assert info.value.issues == (CONFLICT,)  # type: ignore[attr-defined]
    assert info.value.trace_context == trace  # type: ignore[attr-defined]


@pytest.fixture
def reg(claims_impl: ModuleType) -> Any:
    return claims_impl.ClaimRegistry()


# -- construction / class behaviour -------------------------------------------


def test_construction(claims_impl: ModuleType) -> None:
    assert claims_impl.ClaimRegistry().max_completed == 500
    assert claims_impl.ClaimRegistry(1).max_completed == 1
    assert claims_impl.ClaimRegistry(max_completed=4294967295).max_completed == 4294967295
    for bad, shown in [(0, "0"), (-1, "-1"), (2**32, "4294967296")]:
        with pytest.raises(ValueError) as info:
            claims_impl.ClaimRegistry(bad)
        assert str(info.value) == (
            f"`max_completed` must be an integer between 1 and 4294967295, got {shown}"
        )
        assert not hasattr(info.value, "issues")
    for wrong in [1.5, "1", None]:
        with pytest.raises(TypeError):
            claims_impl.ClaimRegistry(wrong)


def test_runtime_class_behaviour(claims_impl: ModuleType, reg: Any) -> None:
    cls = claims_impl.ClaimRegistry
    assert cls.__module__ == "band_sdk_core"
    with pytest.raises(TypeError, match=r"is not an acceptable base type"):
        type("Sub", (cls,), {})
    with pytest.raises(TypeError, match=r"cannot pickle 'band_sdk_core.ClaimRegistry' object"):
        pickle.dumps(reg)
    with pytest.raises(TypeError):
        copy.deepcopy(reg)
    with pytest.raises(
        AttributeError,
        match=r"attribute 'max_completed' of 'band_sdk_core.ClaimRegistry' objects is not writable",
    ):
        reg.max_completed = 3
    with pytest.raises(AttributeError):
        reg.extra = 1


# -- §6.2 -------------------------------------------------------------------


def test_try_claim_release(reg: Any) -> None:
    assert reg.try_claim("r", "m") is True
    assert reg.try_claim("r", "m") is False
    assert reg.try_claim("other", "m") is True
    assert reg.inflight_ids("r") == ["m"]
    reg.release("r", "m")
    reg.release("r", "m")
    assert reg.inflight_ids("r") == []
    assert reg.try_claim("", "") is True
    assert reg.inflight_ids("") == [""]


def test_try_claim_ignores_pending_and_completed(reg: Any) -> None:
    # reference behaviour (spec §6.2 says completed -> False): only in-flight counts
    reg.remember_ack_pending("r", "m")
    assert reg.try_claim("r", "m") is True
    reg.remember_completed("r", "c")
    assert reg.try_claim("r", "c") is True
    assert reg.try_claim("r", "c") is False


def test_inflight_ids_unordered(reg: Any) -> None:
    for mid in "abc":
        reg.try_claim("r", mid)
    assert sorted(reg.inflight_ids("r")) == ["a", "b", "c"]


def test_remember_completed(reg: Any) -> None:
    reg.try_claim("r", "m")
    reg.remember_ack_pending("r", "m")
    reg.record_ack_retry("r", "m")
    reg.remember_completed("r", "m")
    assert reg.is_completed("r", "m")
    assert not reg.is_completed("other", "m")
    assert reg.inflight_ids("r") == ["m"]  # not removed from in-flight
    assert not reg.is_ack_pending("r", "m")
    assert reg.record_ack_retry("r", "m") == 1


def test_completed_lookup_refreshes_position(claims_impl: ModuleType) -> None:
    # reference behaviour (not in the spec): a completed hit is an LRU "get"
    tracker = RetryTracker()

    def make() -> Any:
        reg = claims_impl.ClaimRegistry(2)
        reg.remember_completed("r", "a")
        reg.remember_completed("r", "b")
        return reg

    reg = make()
    assert reg.is_completed("r", "a")
    assert reg.completed_ids("r") == ["b", "a"]
    reg.remember_completed("r", "c")
    assert reg.completed_ids("r") == ["a", "c"]
    for kwargs in ({}, {"durably_processed": True}):
        reg = make()
        assert reg.delivery_eligibility("r", "a", tracker, **kwargs) == "completed"
        assert reg.completed_ids("r") == ["b", "a"]
        reg = make()
        assert reg.guarded_claim("r", "a", tracker, **kwargs) == "completed"
        assert reg.completed_ids("r") == ["b", "a"]
    reg = make()
    assert reg.is_completed("r", "x") is False
    reg.try_claim("r", "a")
    reg.delivery_eligibility("r", "a", tracker, self_echo=True)
    assert reg.completed_ids("r") == ["a", "b"]


def test_completed_lru_per_room(claims_impl: ModuleType) -> None:
    reg = claims_impl.ClaimRegistry(2)
    for mid in "abc":
        reg.remember_completed("r", mid)
    assert reg.completed_ids("r") == ["b", "c"]
    reg.remember_completed("r", "b")
    assert reg.completed_ids("r") == ["c", "b"]
    reg.remember_completed("r", "d")
    assert reg.completed_ids("r") == ["b", "d"]
    reg.remember_completed("s", "x")
    assert reg.completed_ids("r") == ["b", "d"]
    assert reg.completed_ids("s") == ["x"]
    reg.discard_completed("r")
    assert reg.completed_ids("r") == []
    assert reg.completed_ids("s") == ["x"]
    assert not reg.is_completed("r", "b")


def test_completed_map_refresh(claims_impl: ModuleType) -> None:
    # the completed list's map (OrderedMap in the compiled twin): a hit moves to the back
    ordered = claims_impl._Ordered()
    for key in "abc":
        ordered.push(key, 3)
    assert ordered.refresh("a") is True
    assert list(ordered) == ["b", "c", "a"]
    assert ordered.refresh("a") is True  # already the newest
    assert ordered.refresh("x") is False
    assert list(ordered) == ["b", "c", "a"]
    ordered.push("d", 3)  # evicts the oldest
    assert list(ordered) == ["c", "a", "d"]


# -- per-room state -------------------------------------------------------------


def _same_text(text: str) -> str:
    """An equal str that is a different object (not the one the registry last saw).

    ``text`` has two characters or more: CPython keeps a single object per 1-character str.
    """
    copy_ = "".join(list(text))
    assert copy_ == text and copy_ is not text
    return copy_


def test_rooms_dropped_when_empty(claims_impl: ModuleType) -> None:
    reg = claims_impl.ClaimRegistry(3)
    tracker = RetryTracker()
    for i in range(1000):
        room = f"room-{i}"
        assert reg.try_claim(room, "m") is True
        assert reg.guarded_claim(room, "n", tracker) == "runnable"
        reg.release(room, "m")
        assert reg._room_count() == 1  # "n" is still in flight
        reg.release(room, "n")
        assert reg.inflight_ids(room) == []
        assert reg._room_count() == 0
    # completed (and an emptied pending dict) go with discard_completed, not before
    reg.remember_ack_pending("r", "m")
    reg.remember_completed("r", "m")
    assert reg._room_count() == 1
    reg.try_claim("r", "x")
    reg.discard_completed("r")
    assert reg._room_count() == 1  # in flight still
    reg.release("r", "x")
    assert reg._room_count() == 0
    # a pending intent keeps its room through the release of the claim
    reg.try_claim("r", "m")
    reg.remember_ack_pending("r", "m")
    reg.release("r", "m")
    assert reg.pending_ack_ids("r") == ["m"]
    assert reg._room_count() == 1


def test_retry_confirmation_drops_an_emptied_room(claims_impl: ModuleType) -> None:
    reg = claims_impl.ClaimRegistry()
    tracker = RetryTracker(3)
    for i in range(100):
        room = f"room-{i}"
        tracker.record_attempt("m")
        token = reg.record_failed_settlement(room, "m", "e", tracker, True)["token"]
        assert reg.confirm_settlement(room, "m", token, tracker) is True
        assert reg.pending_ack_ids(room) == []
        assert reg.completed_ids(room) == []
        assert reg._room_count() == 0
        tracker.mark_success("m")
    # with a claim in flight the room stays, and goes with the release
    reg.try_claim("r", "m")
    token = reg.record_failed_settlement("r", "m", "e", tracker, True)["token"]
    assert reg.confirm_settlement("r", "m", token, tracker) is True
    assert reg._room_count() == 1
    reg.release("r", "m")
    assert reg._room_count() == 0


def test_queries_create_no_room(claims_impl: ModuleType) -> None:
    reg = claims_impl.ClaimRegistry()
    tracker = RetryTracker()
    assert reg.inflight_ids("r") == []
    assert reg.completed_ids("r") == []
    assert reg.pending_ack_ids("r") == []
    assert reg.is_completed("r", "m") is False
    assert reg.is_ack_pending("r", "m") is False
    assert reg.pending_ack("r", "m") is None
    assert reg.pending_settlement("r", "m") is None
    assert reg.park_ack("r", "m", ParkedReason.NotFound) is False
    assert reg.park_settlement("r", "m", "0", ParkedReason.NotFound) is False
    assert reg.unpark_acks("r") == 0
    assert reg.has_retryable_settlement("r") is False
    assert reg.confirm_settlement("r", "m", "0", tracker) is False
    assert reg.delivery_eligibility("r", "m", tracker) == "runnable"
    assert reg.guarded_claim("r", "m", tracker, self_echo=True) == "self"
    assert reg.guarded_claim("r", "m", tracker, durably_processed=True) == "completed"
    assert reg.record_ack_retry("r", "m") == 1
    reg.release("r", "m")
    reg.discard_completed("r")
    assert reg._room_count() == 0


def test_room_recreated_after_removal(claims_impl: ModuleType) -> None:
    reg = claims_impl.ClaimRegistry()
    room = "room"
    reg.try_claim(room, "a")
    other = _same_text(room)
    reg.release(other, "a")  # removes the room through an equal, different object
    assert reg._room_count() == 0
    # both objects must reach the new room, not the removed one
    assert reg.try_claim(other, "b") is True
    assert reg.inflight_ids(room) == ["b"]
    assert reg.inflight_ids(_same_text(room)) == ["b"]
    reg.remember_completed(room, "c")
    assert reg.completed_ids(other) == ["c"]
    assert reg._room_count() == 1
    reg.release(room, "b")
    reg.discard_completed(other)
    assert reg._room_count() == 0
    assert reg.inflight_ids(room) == []
    assert reg.completed_ids(room) == []
    reg.remember_ack_pending(room, "d")
    assert reg.pending_ack_ids(other) == ["d"]
    assert reg._room_count() == 1


def test_interleaved_rooms(claims_impl: ModuleType) -> None:
    reg = claims_impl.ClaimRegistry(2)
    tracker = RetryTracker()
    # rooms of two characters or more: CPython keeps one object per 1-character str
    rooms = ["rr", "ss", _same_text("rr"), "tt"]
    for i, room in enumerate(rooms * 3):
        mid = f"m{i}"
        assert reg.guarded_claim(room, mid, tracker) == "runnable"
        token = reg.record_processed_settlement(room, mid)["token"]
        reg.release(room, mid)
        assert reg.confirm_settlement(room, mid, token, tracker) is True
    # "rr" got the ids of both its objects: 0, 2, 4, 6, 8, 10 (the last two kept)
    assert reg.completed_ids("rr") == ["m8", "m10"]
    assert reg.completed_ids("ss") == ["m5", "m9"]
    assert reg.completed_ids("tt") == ["m7", "m11"]
    reg.try_claim("ss", "x")
    reg.remember_ack_pending("tt", "y")
    assert reg.inflight_ids("rr") == []
    assert reg.inflight_ids("ss") == ["x"]
    assert reg.pending_ack_ids("ss") == []
    assert reg.pending_ack_ids("tt") == ["y"]
    assert reg.is_completed("ss", "m5") is True  # refreshes "ss" only
    assert reg.completed_ids("ss") == ["m9", "m5"]
    assert reg.completed_ids("rr") == ["m8", "m10"]
    assert reg.is_completed("rr", "m5") is False
    assert reg._room_count() == 3
    for room in ("rr", "ss", "tt"):
        reg.discard_completed(room)
    assert reg._room_count() == 2  # "ss" holds a claim, "tt" an intent


# -- §6.3 -------------------------------------------------------------------


def test_ack_pending(reg: Any) -> None:
    assert reg.pending_ack("r", "m") is None
    assert not reg.is_ack_pending("r", "m")
    reg.remember_ack_pending("r", "m")
    assert reg.is_ack_pending("r", "m")
    assert reg.pending_ack("r", "m") == {"status": "processed", "parked": None}
    assert list(reg.pending_ack("r", "m")) == ["status", "parked"]
    reg.remember_ack_pending("r", "m")
    reg.remember_failed_ack_pending("r", "f", "boom")
    reg.remember_ack_pending("r", "f")  # different existing intent: silent no-op
    view = reg.pending_ack("r", "f")
    assert view == {"status": "failed", "error": "boom", "parked": None}
    assert list(view) == ["status", "error", "parked"]
    assert reg.pending_ack_ids("r") == ["m", "f"]
    assert reg.pending_ack_ids("x") == []


def test_remember_ack_pending_on_completed(reg: Any) -> None:
    reg.remember_completed("r", "m")
    reg.remember_ack_pending("r", "m")
    assert reg.is_ack_pending("r", "m")
    assert reg.is_completed("r", "m")


def test_remember_failed_conflicts(reg: Any) -> None:
    reg.remember_failed_ack_pending("r", "m", "")
    reg.remember_failed_ack_pending("r", "m", "")
    with pytest.raises(ValueError) as info:
        reg.remember_failed_ack_pending("r", "m", "other", "trace")
    _conflict(info, "trace")
    reg.remember_ack_pending("r", "p")
    with pytest.raises(ValueError) as info:
        reg.remember_failed_ack_pending("r", "p", "x")
    _conflict(info, None)
    with pytest.raises(ValueError) as info:
        reg.remember_failed_ack_pending("r", "p", "x", trace_context="")
    _conflict(info, "")
    assert reg.pending_ack("r", "m") == {"status": "failed", "error": "", "parked": None}
    assert reg.pending_ack("r", "p") == {"status": "processed", "parked": None}


def test_park_and_unpark(reg: Any) -> None:
    assert reg.park_ack("r", "m", ParkedReason.NotFound) is False
    reg.remember_ack_pending("r", "m")
    reg.remember_failed_ack_pending("r", "f", "e")
    reg.remember_ack_pending("r", "u")
    assert reg.park_ack("r", "m", ParkedReason.NotFound) is True
    assert reg.pending_ack("r", "m")["parked"] == "not_found"
    assert reg.park_ack("r", "m", ParkedReason.Rejected) is True
    assert reg.pending_ack("r", "m")["parked"] == "rejected"
    assert reg.park_ack("r", "f", ParkedReason.NotFound) is True
    assert reg.is_ack_pending("r", "m")
    assert reg.unpark_acks("other") == 0
    assert reg.unpark_acks("r") == 2
    assert reg.unpark_acks("r") == 0
    assert reg.pending_ack("r", "m")["parked"] is None


def test_park_rejects_non_member(reg: Any) -> None:
    reg.remember_ack_pending("r", "m")
    with pytest.raises(TypeError, match=r"^'str' object is not an instance of 'ParkedReason'$"):
        reg.park_ack("r", "m", "not_found")
    with pytest.raises(TypeError, match=r"^'None' is not an instance of 'ParkedReason'$"):
        reg.park_ack("r", "m", None)
    assert reg.pending_ack("r", "m")["parked"] is None


def test_record_ack_retry(reg: Any) -> None:
    assert reg.record_ack_retry("r", "m") == 1
    assert reg.record_ack_retry("r", "m") == 2
    assert reg.record_ack_retry("s", "m") == 1
    reg.remember_ack_pending("r", "m")
    reg.park_ack("r", "m", ParkedReason.NotFound)
    reg.unpark_acks("r")
    assert reg.record_ack_retry("r", "m") == 3
    reg.remember_completed("r", "m")
    assert reg.record_ack_retry("r", "m") == 1


# -- §6.4 -------------------------------------------------------------------


def test_tokens_never_reused(reg: Any) -> None:
    reg.remember_ack_pending("r", "a")
    reg.remember_failed_ack_pending("r", "b", "e")
    p = reg.record_processed_settlement("r", "c")
    f = reg.record_failed_settlement("r", "d", "e", RetryTracker(), True)
    assert [reg.pending_settlement("r", m)["token"] for m in "ab"] == ["0", "1"]
    assert (p["token"], f["token"]) == ("2", "3")
    reg.remember_completed("r", "a")
    reg.remember_ack_pending("r", "a")
    assert reg.pending_settlement("r", "a")["token"] == "4"


def test_processed_settlement(reg: Any) -> None:
    first = reg.record_processed_settlement("r", "m", "t")
    assert first == {"token": "0", "status": "processed", "parked": None, "continuation": FINISHED}
    assert list(first) == ["token", "status", "parked", "continuation"]
    assert reg.record_processed_settlement("r", "m") == first
    assert reg.record_processed_settlement("r", "m") is not first
    reg.remember_failed_ack_pending("r", "f", "e")
    with pytest.raises(ValueError) as info:
        reg.record_processed_settlement("r", "f", "tc")
    _conflict(info, "tc")
    reg.remember_completed("r", "c")
    assert reg.record_processed_settlement("r", "c")["status"] == "processed"


def test_failed_settlement_continuation(reg: Any) -> None:
    tracker = RetryTracker(max_retries=2)
    tracker.record_attempt("m")
    pending = reg.record_failed_settlement("r", "m", "boom", tracker, True)
    assert pending == {
        "token": "0",
        "status": "failed",
        "error": "boom",
        "parked": None,
        "continuation": {"kind": "retry", "attempts": 1, "max_retries": 2},
    }
    assert list(pending) == ["token", "status", "error", "parked", "continuation"]
    assert tracker.record_attempt("m") == (2, False)  # tracker not mutated
    # same error: returned unchanged, first intent wins
    again = reg.record_failed_settlement("r", "m", "boom", RetryTracker(0), False)
    assert again == pending
    with pytest.raises(ValueError) as info:
        reg.record_failed_settlement("r", "m", "other", tracker, True, "x")
    _conflict(info, "x")
    reg.remember_ack_pending("r", "p")
    with pytest.raises(ValueError) as info:
        reg.record_failed_settlement("r", "p", "e", tracker, True)
    _conflict(info, None)


@pytest.mark.parametrize(
    ("attempts", "max_retries", "allow", "expected"),
    [
        (0, 2, True, {"kind": "retry", "attempts": 0, "max_retries": 2}),
        (1, 2, True, {"kind": "retry", "attempts": 1, "max_retries": 2}),
        (2, 2, True, FINISHED),
        (3, 2, True, FINISHED),
        (0, 2, False, FINISHED),
        (0, 0, True, FINISHED),
    ],
)
def test_failed_settlement_rules(
    reg: Any, attempts: int, max_retries: int, allow: bool, expected: dict[str, Any]
) -> None:
    tracker = RetryTracker(max_retries)
    for _ in range(attempts):
        tracker.record_attempt("m")
    tracker.mark_permanently_failed("m")  # not consulted
    assert reg.record_failed_settlement("r", "m", "e", tracker, allow)["continuation"] == expected


def test_legacy_failed_entry_is_finished(reg: Any) -> None:
    reg.remember_failed_ack_pending("r", "m", "e")
    assert reg.pending_settlement("r", "m", "tc") == {
        "token": "0",
        "status": "failed",
        "error": "e",
        "parked": None,
        "continuation": FINISHED,
    }
    assert reg.pending_settlement("r", "x") is None


def test_park_settlement(reg: Any) -> None:
    token = reg.record_processed_settlement("r", "m")["token"]
    assert reg.park_settlement("r", "m", "99", ParkedReason.NotFound) is False
    assert reg.park_settlement("r", "x", token, ParkedReason.NotFound) is False
    assert reg.park_settlement("r", "m", token, ParkedReason.Rejected) is True
    assert reg.pending_settlement("r", "m")["parked"] == "rejected"
    assert reg.pending_ack("r", "m")["parked"] == "rejected"
    with pytest.raises(TypeError):
        reg.park_settlement("r", "m", token, "rejected")


def test_confirm_processed(reg: Any) -> None:
    tracker = RetryTracker(3)
    tracker.record_attempt("m")
    reg.try_claim("r", "m")
    token = reg.record_processed_settlement("r", "m")["token"]
    reg.record_ack_retry("r", "m")
    assert reg.confirm_settlement("r", "m", "wrong", tracker) is False
    assert reg.confirm_settlement("other", "m", token, tracker) is False
    assert reg.is_ack_pending("r", "m")
    reg.park_settlement("r", "m", token, ParkedReason.NotFound)
    assert reg.confirm_settlement("r", "m", token, tracker) is True
    assert not reg.is_ack_pending("r", "m")
    assert reg.is_completed("r", "m")
    assert reg.inflight_ids("r") == ["m"]
    assert tracker.record_attempt("m") == (1, False)  # mark_success
    assert reg.record_ack_retry("r", "m") == 1
    assert reg.confirm_settlement("r", "m", token, tracker) is False


def test_confirm_failed_finished(reg: Any) -> None:
    tracker = RetryTracker(5)
    tracker.record_attempt("m")
    token = reg.record_failed_settlement("r", "m", "e", tracker, False)["token"]
    assert reg.confirm_settlement("r", "m", token, tracker) is True
    assert reg.is_completed("r", "m")
    assert tracker.is_permanently_failed("m")
    assert tracker.record_attempt("m") == (1, False)


def test_confirm_failed_retry_restores_attempts(reg: Any) -> None:
    previous = RetryTracker(max_retries=3)
    assert reg.guarded_claim("room", "message", previous) == "runnable"
    assert previous.record_attempt("message") == (1, False)
    pending = reg.record_failed_settlement("room", "message", "failure", previous, True)
    reg.release("room", "message")
    current = RetryTracker(max_retries=3)
    assert reg.guarded_claim("room", "message", current) == "pending"
    assert reg.confirm_settlement("room", "message", pending["token"], current)
    assert not reg.is_completed("room", "message")
    assert not current.is_permanently_failed("message")
    assert current.record_attempt("message") == (2, False)


def test_confirm_retry_keeps_max_and_stricter_ceiling(reg: Any) -> None:
    previous = RetryTracker(3)
    for _ in range(2):
        previous.record_attempt("m")
    token = reg.record_failed_settlement("r", "m", "e", previous, True)["token"]
    current = RetryTracker(1)
    assert reg.confirm_settlement("r", "m", token, current)
    assert current.is_permanently_failed("m")
    assert current.record_attempt("m") == (3, True)
    # existing count higher than restored: kept
    token = reg.record_failed_settlement("r", "n", "e", previous, True)["token"]
    other = RetryTracker(10)
    for _ in range(4):
        other.record_attempt("n")
    assert reg.confirm_settlement("r", "n", token, other)
    assert other.is_permanently_failed("n")  # 4 >= min(3, 10)
    assert other.record_attempt("n") == (5, True)  # restored ceiling 3 applies
    token = reg.record_failed_settlement("r", "q", "e", previous, True)["token"]
    fresh = RetryTracker(10)
    fresh.record_attempt("q")
    assert reg.confirm_settlement("r", "q", token, fresh)
    assert not fresh.is_permanently_failed("q")  # 1 < 3


def _restore(reg: Any, tracker: Any, mid: str, attempts: int, ceiling: int) -> None:
    previous = RetryTracker(ceiling)
    for _ in range(attempts):
        previous.record_attempt(mid)
    token = reg.record_failed_settlement("r", mid, "e", previous, True)["token"]
    assert reg.confirm_settlement("r", mid, token, tracker)


def test_restored_ceiling_persists_with_the_attempt_entry(reg: Any) -> None:
    # reference behaviour: the stricter ceiling stays attached to the message
    tracker = RetryTracker(10)
    _restore(reg, tracker, "m", 2, 3)
    assert [tracker.record_attempt("m") for _ in range(2)] == [(3, False), (4, True)]
    fresh = RetryTracker(10)
    _restore(reg, fresh, "z", 0, 2)
    assert not fresh.is_permanently_failed("z")
    assert [fresh.record_attempt("z") for _ in range(3)] == [(1, False), (2, False), (3, True)]
    # a later failed settlement reports the effective ceiling
    again = RetryTracker(10)
    _restore(reg, again, "a", 1, 2)
    view = reg.record_failed_settlement("r", "a", "e", again, True)
    assert view["continuation"] == {"kind": "retry", "attempts": 1, "max_retries": 2}
    # the stricter of two restorations wins
    twice = RetryTracker(10)
    _restore(reg, twice, "t", 1, 2)
    _restore(reg, twice, "t", 1, 4)
    assert [twice.record_attempt("t") for _ in range(2)] == [(2, False), (3, True)]


@pytest.mark.parametrize("reset", ["mark_success", "discard_attempt", "evict"])
def test_restored_ceiling_cleared_with_entry(reg: Any, reset: str) -> None:
    tracker = RetryTracker(10, 1)
    _restore(reg, tracker, "m", 1, 2)
    if reset == "evict":
        tracker.record_attempt("other")
    else:
        getattr(tracker, reset)("m")
    assert [tracker.record_attempt("m") for _ in range(4)][-1] == (4, False)


def test_has_retryable_settlement(reg: Any) -> None:
    assert reg.has_retryable_settlement("r") is False
    token = reg.record_processed_settlement("r", "m")["token"]
    assert reg.has_retryable_settlement("r") is True
    reg.park_settlement("r", "m", token, ParkedReason.NotFound)
    assert reg.has_retryable_settlement("r") is False
    reg.remember_failed_ack_pending("r", "f", "e")
    assert reg.has_retryable_settlement("r") is True
    assert reg.has_retryable_settlement("other") is False


# -- §6.5 -------------------------------------------------------------------


def test_eligibility_rules(reg: Any) -> None:
    tracker = RetryTracker(0)
    assert reg.delivery_eligibility("r", "m", tracker, self_echo=True) == "self"
    reg.remember_ack_pending("r", "p")
    reg.park_ack("r", "p", ParkedReason.NotFound)
    assert reg.delivery_eligibility("r", "p", tracker, self_echo=True) == "self"
    assert reg.delivery_eligibility("r", "p", tracker, durably_processed=True) == "pending"
    reg.remember_completed("r", "c")
    tracker.mark_permanently_failed("c")
    assert reg.delivery_eligibility("r", "c", tracker) == "completed"
    assert reg.delivery_eligibility("r", "x", tracker, durably_processed=True) == "completed"
    tracker.mark_permanently_failed("x")
    assert reg.delivery_eligibility("r", "x", tracker, durably_failed=True) == "exhausted"
    args = {"durably_failed": True, "allow_failed_retry": False}
    assert reg.delivery_eligibility("r", "y", tracker, **args) == "failed"
    assert reg.delivery_eligibility("r", "y", tracker, durably_failed=True) == "runnable"
    assert reg.delivery_eligibility("r", "y", tracker, allow_failed_retry=False) == "runnable"
    reg.try_claim("r", "y")
    assert reg.delivery_eligibility("r", "y", tracker, **args) == "failed"
    assert reg.delivery_eligibility("r", "y", tracker) == "inflight"
    assert reg.delivery_eligibility("r", "z", tracker) == "runnable"
    assert reg.delivery_eligibility("r", "z", tracker) == "runnable"  # pure query


def test_guarded_claim(reg: Any) -> None:
    tracker = RetryTracker()
    assert reg.guarded_claim("r", "m", tracker) == "runnable"
    assert reg.guarded_claim("r", "m", tracker) == "inflight"
    assert reg.inflight_ids("r") == ["m"]
    assert not reg.is_completed("r", "m")
    assert reg.guarded_claim("r", "s", tracker, self_echo=True) == "self"
    assert reg.inflight_ids("r") == ["m"]


@pytest.mark.parametrize(
    "fact", ["self_echo", "durably_processed", "durably_failed", "allow_failed_retry"]
)
@pytest.mark.parametrize("bad", [1, 0, None, "true"])
def test_facts_must_be_bool(reg: Any, fact: str, bad: object) -> None:
    for method in (reg.delivery_eligibility, reg.guarded_claim):
        with pytest.raises(TypeError, match=r"^delivery facts must be bool values$"):
            method("r", "m", RetryTracker(), **{fact: bad})
    assert reg.inflight_ids("r") == []


def test_facts_are_keyword_only(reg: Any) -> None:
    with pytest.raises(TypeError):
        reg.delivery_eligibility("r", "m", RetryTracker(), True)


# -- argument types ---------------------------------------------------------


def test_argument_types(reg: Any) -> None:
    tracker = RetryTracker()
    with pytest.raises(TypeError, match=r"^'int' object is not an instance of 'str'$"):
        reg.try_claim(1, "m")
    with pytest.raises(TypeError, match=r"^'None' is not an instance of 'str'$"):
        reg.is_completed("r", None)
    for bad_tracker in (None, "x", object()):
        with pytest.raises(TypeError, match=r"is not an instance of 'RetryTracker'"):
            reg.confirm_settlement("r", "m", "0", bad_tracker)
        with pytest.raises(TypeError, match=r"is not an instance of 'RetryTracker'"):
            reg.delivery_eligibility("r", "m", bad_tracker)
        with pytest.raises(TypeError, match=r"is not an instance of 'RetryTracker'"):
            reg.record_failed_settlement("r", "m", "e", bad_tracker, True)
    with pytest.raises(TypeError, match=r"^'int' object is not an instance of 'bool'$"):
        reg.record_failed_settlement("r", "m", "e", tracker, 1)
    with pytest.raises(TypeError):
        reg.record_failed_settlement("r", "m", 1, tracker, True)
    with pytest.raises(TypeError):
        reg.confirm_settlement("r", "m", 0, tracker)
    with pytest.raises(TypeError):
        reg.park_settlement("r", "m", 0, ParkedReason.NotFound)
    with pytest.raises(TypeError):
        reg.remember_failed_ack_pending("r", "m", "e", 5)
    with pytest.raises(TypeError):
        reg.record_processed_settlement("r", "m", 5)
    with pytest.raises(TypeError):
        reg.pending_settlement("r", "m", 5)
    assert reg.pending_ack_ids("r") == []


def test_pure_tracker_rejected_when_compiled_active() -> None:
    from band_sdk_core import _claims_py, _compat, _retry_py

    reg = _claims_py.ClaimRegistry()
    if _compat.USING_EXTENSIONS:
        with pytest.raises(TypeError):
            reg.delivery_eligibility("r", "m", _retry_py.RetryTracker())
    else:
        assert reg.delivery_eligibility("r", "m", _retry_py.RetryTracker()) == "runnable"


# -- stateful model -----------------------------------------------------------


class _Model:
    """Small model of §6 (pending entries, completed LRU, in-flight, counters)."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.inflight: set[tuple[str, str]] = set()
        self.completed: dict[str, list[str]] = {}
        self.pending: dict[tuple[str, str], dict[str, Any]] = {}
        self.order: list[tuple[str, str]] = []
        self.retries: dict[tuple[str, str], int] = {}
        self.token = 0

    def complete(self, room: str, mid: str) -> None:
        lst = self.completed.setdefault(room, [])
        if mid in lst:
            lst.remove(mid)
        lst.append(mid)
        del lst[: max(0, len(lst) - self.cap)]
        self.drop(room, mid)
        self.retries.pop((room, mid), None)

    def drop(self, room: str, mid: str) -> None:
        if (room, mid) in self.pending:
            del self.pending[(room, mid)]
            self.order.remove((room, mid))

    def create(
        self, room: str, mid: str, status: str, error: str | None, cont: dict[str, Any]
    ) -> dict[str, Any]:
        entry: dict[str, Any] = {"token": str(self.token), "status": status}
        if status == "failed":
            entry["error"] = error
        entry["parked"] = None
        entry["continuation"] = cont
        self.token += 1
        self.pending[(room, mid)] = entry
        self.order.append((room, mid))
        return entry


ROOMS = st.sampled_from(["r", "s"])
MIDS = st.sampled_from(["a", "b", "c"])
ERRORS = st.sampled_from(["e1", "e2"])
REASONS = st.sampled_from([ParkedReason.NotFound, ParkedReason.Rejected])


def _machine(module_name: str) -> type[RuleBasedStateMachine]:
    class ClaimsMachine(RuleBasedStateMachine):
        @initialize(cap=st.integers(1, 3))
        def setup(self, cap: int) -> None:
            import importlib

            self.reg = importlib.import_module(module_name).ClaimRegistry(cap)
            self.model = _Model(cap)
            self.tracker = RetryTracker(2)

        @rule(room=ROOMS, mid=MIDS)
        def try_claim(self, room: str, mid: str) -> None:
            m = self.model
            expected = (room, mid) not in m.inflight
            assert self.reg.try_claim(room, mid) == expected
            if expected:
                m.inflight.add((room, mid))

        @rule(room=ROOMS, mid=MIDS)
        def release(self, room: str, mid: str) -> None:
            self.reg.release(room, mid)
            self.model.inflight.discard((room, mid))

        @rule(room=ROOMS, mid=MIDS)
        def complete(self, room: str, mid: str) -> None:
            self.reg.remember_completed(room, mid)
            self.model.complete(room, mid)

        @rule(room=ROOMS)
        def discard_completed(self, room: str) -> None:
            self.reg.discard_completed(room)
            self.model.completed.pop(room, None)

        @rule(room=ROOMS, mid=MIDS)
        def ack_pending(self, room: str, mid: str) -> None:
            self.reg.remember_ack_pending(room, mid)
            if (room, mid) not in self.model.pending:
                self.model.create(room, mid, "processed", None, {"kind": "finished"})

        @rule(room=ROOMS, mid=MIDS, error=ERRORS)
        def failed_ack(self, room: str, mid: str, error: str) -> None:
            entry = self.model.pending.get((room, mid))
            if entry is None:
                self.reg.remember_failed_ack_pending(room, mid, error)
                self.model.create(room, mid, "failed", error, {"kind": "finished"})
            elif entry["status"] == "failed" and entry["error"] == error:
                self.reg.remember_failed_ack_pending(room, mid, error)
            else:
                with pytest.raises(ValueError):
                    self.reg.remember_failed_ack_pending(room, mid, error, "t")

        @rule(room=ROOMS, mid=MIDS)
        def processed_settlement(self, room: str, mid: str) -> None:
            entry = self.model.pending.get((room, mid))
            if entry is None:
                entry = self.model.create(room, mid, "processed", None, {"kind": "finished"})
            elif entry["status"] == "failed":
                with pytest.raises(ValueError):
                    self.reg.record_processed_settlement(room, mid)
                return
            assert self.reg.record_processed_settlement(room, mid) == entry

        @rule(room=ROOMS, mid=MIDS, error=ERRORS, allow=st.booleans())
        def failed_settlement(self, room: str, mid: str, error: str, allow: bool) -> None:
            entry = self.model.pending.get((room, mid))
            if entry is None:
                a = self.tracker._attempt_count(mid)
                cont: dict[str, Any] = {"kind": "finished"}
                if allow and a < 2:
                    cont = {"kind": "retry", "attempts": a, "max_retries": 2}
                entry = self.model.create(room, mid, "failed", error, cont)
            elif not (entry["status"] == "failed" and entry["error"] == error):
                with pytest.raises(ValueError):
                    self.reg.record_failed_settlement(room, mid, error, self.tracker, allow)
                return
            got = self.reg.record_failed_settlement(room, mid, error, self.tracker, allow)
            assert got == entry

        @rule(mid=MIDS)
        def attempt(self, mid: str) -> None:
            self.tracker.record_attempt(mid)

        @rule(room=ROOMS, mid=MIDS, reason=REASONS)
        def park(self, room: str, mid: str, reason: ParkedReason) -> None:
            entry = self.model.pending.get((room, mid))
            assert self.reg.park_ack(room, mid, reason) == (entry is not None)
            if entry is not None:
                entry["parked"] = reason.wire_name

        @rule(room=ROOMS)
        def unpark(self, room: str) -> None:
            parked = [e for (r, _), e in self.model.pending.items() if r == room and e["parked"]]
            assert self.reg.unpark_acks(room) == len(parked)
            for entry in parked:
                entry["parked"] = None

        @rule(room=ROOMS, mid=MIDS)
        def ack_retry(self, room: str, mid: str) -> None:
            key = (room, mid)
            self.model.retries[key] = self.model.retries.get(key, 0) + 1
            assert self.reg.record_ack_retry(room, mid) == self.model.retries[key]

        @rule(room=ROOMS, mid=MIDS, stale=st.booleans())
        def confirm(self, room: str, mid: str, stale: bool) -> None:
            entry = self.model.pending.get((room, mid))
            token = "nope" if stale or entry is None else entry["token"]
            ok = self.reg.confirm_settlement(room, mid, token, self.tracker)
            assert ok == (entry is not None and not stale)
            if ok:
                assert entry is not None
                self.model.drop(room, mid)
                self.model.retries.pop((room, mid), None)
                if entry["continuation"]["kind"] == "finished":
                    self.model.complete(room, mid)

        @rule(room=ROOMS, mid=MIDS, echo=st.booleans(), done=st.booleans())
        def eligibility(self, room: str, mid: str, echo: bool, done: bool) -> None:
            m = self.model
            if echo:
                expected = "self"
            elif (room, mid) in m.pending:
                expected = "pending"
            elif mid in m.completed.get(room, []):
                m.completed[room].remove(mid)
                m.completed[room].append(mid)
                expected = "completed"
            elif done:
                expected = "completed"
            elif self.tracker.is_permanently_failed(mid):
                expected = "exhausted"
            elif (room, mid) in m.inflight:
                expected = "inflight"
            else:
                expected = "runnable"
            got = self.reg.guarded_claim(
                room, mid, self.tracker, self_echo=echo, durably_processed=done
            )
            assert got == expected
            if got == "runnable":
                m.inflight.add((room, mid))

        @invariant()
        def views_match(self) -> None:
            if not hasattr(self, "reg"):
                return
            m = self.model
            for room in ("r", "s"):
                assert self.reg.completed_ids(room) == m.completed.get(room, [])
                assert sorted(self.reg.inflight_ids(room)) == sorted(
                    mid for (r, mid) in m.inflight if r == room
                )
                assert self.reg.pending_ack_ids(room) == [mid for (r, mid) in m.order if r == room]
                assert self.reg.has_retryable_settlement(room) == any(
                    e["parked"] is None for (r, _), e in m.pending.items() if r == room
                )
                for mid in ("a", "b", "c"):
                    assert self.reg.pending_settlement(room, mid) == m.pending.get((room, mid))
            # a room's state is kept exactly while it holds something
            holding = {r for r, _ in m.inflight} | {r for r, _ in m.pending} | set(m.completed)
            assert self.reg._room_count() == len(holding)

    return ClaimsMachine


def test_stateful_against_model(claims_impl: ModuleType) -> None:
    machine = _machine(claims_impl.__name__)
    machine.TestCase.settings = settings(max_examples=60, stateful_step_count=30, deadline=None)
    machine.TestCase().runTest()
