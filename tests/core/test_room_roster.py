"""RoomRoster and RoomReconciliation (spec §9), against both implementations."""

from __future__ import annotations

import collections
import copy
import pickle
from collections.abc import Sequence
from types import ModuleType
from typing import Any

import pytest
from bandtest.core_cases import assert_sealed_result
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import band_sdk_core
from band_sdk_core import RoomMembership as M

U64 = 2**64


def _in(roster: Any, state: str, room: str = "r") -> int:
    """Drive ``room`` into ``state``; return its admission ticket (-1 when Unadmitted)."""
    if state == "unadmitted":
        return -1
    ticket = roster.begin_room_admission(room, True)
    if state == "admitted":
        assert roster.record_room_admission(room, ticket, True) is True
    return ticket


MEMBERSHIP = {"unadmitted": M.Unadmitted, "admitting": M.Admitting, "admitted": M.Admitted}
STATES = list(MEMBERSHIP)


def test_begin_from_unadmitted(subscriptions_impl: ModuleType) -> None:
    roster = subscriptions_impl.RoomRoster()
    assert roster.room_membership("r") is M.Unadmitted
    assert roster.begin_room_admission("r", True) == 0
    assert roster.room_membership("r") is M.Admitting
    assert roster.is_room_admission_current("r", 0) is True
    assert roster.tracked_room_ids() == []


@pytest.mark.parametrize("state", STATES)
def test_begin_filtered_out(subscriptions_impl: ModuleType, state: str) -> None:
    roster = subscriptions_impl.RoomRoster()
    _in(roster, state)
    used = roster.begin_room_admission("probe", True)
    assert roster.begin_room_admission("r", False) is None
    assert roster.room_membership("r") is MEMBERSHIP[state]
    assert roster.begin_room_admission("probe2", True) == used + 1


@pytest.mark.parametrize("state", ["admitting", "admitted"])
def test_begin_refused_when_tracked(subscriptions_impl: ModuleType, state: str) -> None:
    roster = subscriptions_impl.RoomRoster()
    ticket = _in(roster, state)
    assert roster.begin_room_admission("r", True) is None
    assert roster.room_membership("r") is MEMBERSHIP[state]
    assert roster.begin_room_admission("other", True) == ticket + 1


def test_record_success_and_failure(subscriptions_impl: ModuleType) -> None:
    roster = subscriptions_impl.RoomRoster()
    ticket = _in(roster, "admitting")
    assert roster.record_room_admission("r", ticket, True) is True
    assert roster.room_membership("r") is M.Admitted
    assert roster.is_room_admission_current("r", ticket) is False
    assert roster.tracked_room_ids() == ["r"]

    ticket = _in(roster, "admitting", "f")
    assert roster.record_room_admission("f", ticket, False) is False
    assert roster.room_membership("f") is M.Unadmitted
    assert roster.begin_room_admission("f", True) == ticket + 1


@pytest.mark.parametrize("succeeded", [True, False])
@pytest.mark.parametrize("state", STATES)
def test_record_otherwise(subscriptions_impl: ModuleType, state: str, succeeded: bool) -> None:
    roster = subscriptions_impl.RoomRoster()
    current = _in(roster, state)
    for ticket in {0, 1, 4, max(current, 0)}:
        if state == "admitting" and ticket == current:
            continue
        assert roster.record_room_admission("r", ticket, succeeded) is False
        assert roster.room_membership("r") is MEMBERSHIP[state]


def test_record_room_removed(subscriptions_impl: ModuleType) -> None:
    roster = subscriptions_impl.RoomRoster()
    _in(roster, "admitted", "a")
    pending = _in(roster, "admitting", "b")
    assert roster.record_room_removed("a") is True
    assert roster.room_membership("a") is M.Unadmitted
    assert roster.record_room_removed("a") is False
    # removing an Admitting room cancels the admission
    assert roster.record_room_removed("b") is False
    assert roster.room_membership("b") is M.Unadmitted
    assert roster.is_room_admission_current("b", pending) is False
    assert roster.record_room_admission("b", pending, True) is False
    assert roster.room_membership("b") is M.Unadmitted
    assert roster.record_room_removed("never") is False
    assert roster.tracked_room_ids() == []


def test_tracked_order(subscriptions_impl: ModuleType) -> None:
    roster = subscriptions_impl.RoomRoster()
    ta = roster.begin_room_admission("a", True)
    tb = roster.begin_room_admission("b", True)
    tc = roster.begin_room_admission("c", True)
    assert roster.record_room_admission("c", tc, True)
    assert roster.record_room_admission("a", ta, True)
    assert roster.tracked_room_ids() == ["c", "a"]
    assert roster.record_room_admission("b", tb, True)
    assert roster.tracked_room_ids() == ["c", "a", "b"]
    assert roster.record_room_removed("c")
    tc = roster.begin_room_admission("c", True)
    assert roster.record_room_admission("c", tc, True)
    assert roster.tracked_room_ids() == ["a", "b", "c"]


def test_reconcile(subscriptions_impl: ModuleType) -> None:
    roster = subscriptions_impl.RoomRoster()
    for room in ("z", "m", "a"):
        _in(roster, "admitted", room)
    pending_in = _in(roster, "admitting", "p")
    pending_out = _in(roster, "admitting", "q")
    result = roster.reconcile(["y", "m", "p", "b", "y", "z"])
    assert result.removed == ["a"]
    assert result.resync == ["m", "z"]
    assert result.admitting == [("b", pending_out + 1), ("y", pending_out + 2)]
    # already applied
    assert roster.room_membership("a") is M.Unadmitted
    assert roster.room_membership("b") is M.Admitting
    assert roster.is_room_admission_current("y", pending_out + 2) is True
    # Admitting rooms are left alone, in the snapshot or not
    assert roster.is_room_admission_current("p", pending_in) is True
    assert roster.is_room_admission_current("q", pending_out) is True
    assert roster.tracked_room_ids() == ["z", "m"]


def test_reconcile_result_object(subscriptions_impl: ModuleType) -> None:
    roster = subscriptions_impl.RoomRoster()
    result = roster.reconcile(("b", "a"))
    assert result.admitting == [("a", 0), ("b", 1)]
    assert isinstance(result.admitting, list)
    assert isinstance(result.admitting[0], tuple)
    assert result.removed == [] and result.resync == []
    fresh = result.admitting
    fresh.append(("x", 9))
    assert result.admitting == [("a", 0), ("b", 1)]
    cls = type(result)
    assert cls is subscriptions_impl.RoomReconciliation
    assert_sealed_result(result, ("removed", "admitting", "resync"))
    with pytest.raises(TypeError):
        copy.copy(result)


class _Rooms(Sequence[str]):
    def __init__(self, rooms: list[str]) -> None:
        self.rooms = rooms

    def __len__(self) -> int:
        return len(self.rooms)

    def __getitem__(self, index: Any) -> Any:
        return self.rooms[index]


@pytest.mark.parametrize(
    "snapshot", [["a"], ("a",), _Rooms(["a"]), collections.deque(["a"]), ["a", "a"]]
)
def test_reconcile_accepts_sequences(subscriptions_impl: ModuleType, snapshot: Any) -> None:
    roster = subscriptions_impl.RoomRoster()
    assert roster.reconcile(snapshot).admitting == [("a", 0)]


@pytest.mark.parametrize(
    ("snapshot", "message"),
    [
        ("abc", "Can't extract `str` to `Vec`"),
        (None, "'None' is not an instance of 'Sequence'"),
        ({"a"}, "'set' object is not an instance of 'Sequence'"),
        ({"a": 1}, "'dict' object is not an instance of 'Sequence'"),
        (iter(["a"]), "'list_iterator' object is not an instance of 'Sequence'"),
        ([1], "'int' object is not an instance of 'str'"),
        (["a", None], "'None' is not an instance of 'str'"),
        (range(2), "'int' object is not an instance of 'str'"),
    ],
)
def test_reconcile_errors(subscriptions_impl: ModuleType, snapshot: Any, message: str) -> None:
    roster = subscriptions_impl.RoomRoster()
    _in(roster, "admitted", "keep")
    with pytest.raises(TypeError) as info:
        roster.reconcile(snapshot)
    assert str(info.value) == message
    # nothing was applied
    assert roster.room_membership("keep") is M.Admitted
    assert roster.begin_room_admission("next", True) == 1


def test_clear(subscriptions_impl: ModuleType) -> None:
    roster = subscriptions_impl.RoomRoster()
    _in(roster, "admitted", "b")
    pending = _in(roster, "admitting", "a")
    _in(roster, "admitted", "c")
    assert roster.clear() == ["a", "b", "c"]
    for room in "abc":
        assert roster.room_membership(room) is M.Unadmitted
    assert roster.record_room_admission("a", pending, True) is False
    assert roster.clear() == []
    assert roster.begin_room_admission("a", True) == 3


def test_argument_errors(subscriptions_impl: ModuleType) -> None:
    info: pytest.ExceptionInfo[BaseException]
    roster = subscriptions_impl.RoomRoster()
    ticket = roster.begin_room_admission("r", True)
    for method, args in (
        (roster.record_room_admission, ("r", -1, True)),
        (roster.is_room_admission_current, ("r", -1)),
    ):
        with pytest.raises(OverflowError) as info:
            method(*args)
        assert str(info.value) == "can't convert negative int to unsigned"
    with pytest.raises(OverflowError) as info:
        roster.record_room_admission("r", U64, True)
    assert str(info.value) == "int too big to convert"
    with pytest.raises(OverflowError) as info:
        roster.is_room_admission_current("r", U64)
    assert str(info.value) == "int too big to convert"
    assert roster.is_room_admission_current("r", U64 - 1) is False
    for bad in (1, 0, None):
        with pytest.raises(TypeError):
            roster.begin_room_admission("x", bad)
        with pytest.raises(TypeError):
            roster.record_room_admission("r", ticket, bad)
    with pytest.raises(TypeError) as info:
        roster.begin_room_admission("x", 1)
    assert str(info.value) == "'int' object is not an instance of 'bool'"
    for name in ("room_membership", "record_room_removed"):
        with pytest.raises(TypeError) as info:
            getattr(roster, name)(7)
        assert str(info.value) == "'int' object is not an instance of 'str'"
    with pytest.raises(TypeError):
        roster.record_room_admission("r", 1.0, True)
    with pytest.raises(UnicodeEncodeError):
        roster.room_membership("\ud800")
    assert roster.room_membership("r") is M.Admitting
    assert roster.is_room_admission_current("r", ticket) is True
    assert roster.begin_room_admission(room_id="k", passes_filter=True) == 1


def test_class_behaviour(subscriptions_impl: ModuleType) -> None:
    info: pytest.ExceptionInfo[BaseException]
    cls = subscriptions_impl.RoomRoster
    roster = cls()
    assert cls.__module__ == "band_sdk_core"
    with pytest.raises(TypeError) as info:

        class Sub(cls):  # type: ignore[misc, valid-type]
            pass

    assert str(info.value) == "type 'band_sdk_core.RoomRoster' is not an acceptable base type"
    with pytest.raises(TypeError) as info:
        pickle.dumps(roster)
    assert str(info.value) == "cannot pickle 'band_sdk_core.RoomRoster' object"
    with pytest.raises(AttributeError) as info:
        roster.extra = 1
    assert str(info.value) == "'band_sdk_core.RoomRoster' object has no attribute 'extra'"
    with pytest.raises(TypeError):
        cls(1)


def test_public_names() -> None:
    from band_sdk_core import subscriptions

    assert band_sdk_core.RoomRoster is subscriptions.RoomRoster
    assert band_sdk_core.RoomReconciliation is subscriptions.RoomReconciliation


# --------------------------------------------------------------------------- model-based

ROOMS = ["a", "b", "c", "d"]
OPS = st.lists(
    st.one_of(
        st.tuples(st.just("begin"), st.sampled_from(ROOMS), st.booleans()),
        st.tuples(st.just("record"), st.sampled_from(ROOMS), st.integers(0, 10), st.booleans()),
        st.tuples(st.just("current"), st.sampled_from(ROOMS), st.integers(0, 10)),
        st.tuples(st.just("removed"), st.sampled_from(ROOMS)),
        st.tuples(st.just("reconcile"), st.lists(st.sampled_from(ROOMS), max_size=6)),
        st.tuples(st.just("clear")),
    ),
    max_size=50,
)


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(ops=OPS)
def test_against_model(subscriptions_impl: ModuleType, ops: list[tuple[Any, ...]]) -> None:
    roster = subscriptions_impl.RoomRoster()
    admitting: dict[str, int] = {}
    admitted: list[str] = []
    counter = 0
    for op in ops:
        kind = op[0]
        if kind == "begin":
            room, passes = op[1], op[2]
            expected = None
            if passes and room not in admitting and room not in admitted:
                expected = counter
                counter += 1
                admitting[room] = expected
            assert roster.begin_room_admission(room, passes) == expected
        elif kind == "record":
            room, ticket, ok = op[1], op[2], op[3]
            hit = admitting.get(room) == ticket
            if hit:
                del admitting[room]
                if ok:
                    admitted.append(room)
            assert roster.record_room_admission(room, ticket, ok) is (hit and ok)
        elif kind == "current":
            room, ticket = op[1], op[2]
            assert roster.is_room_admission_current(room, ticket) is (admitting.get(room) == ticket)
        elif kind == "removed":
            room = op[1]
            was = room in admitted
            if was:
                admitted.remove(room)
            admitting.pop(room, None)
            assert roster.record_room_removed(room) is was
        elif kind == "reconcile":
            snapshot = set(op[1])
            removed = sorted(r for r in admitted if r not in snapshot)
            resync = sorted(r for r in admitted if r in snapshot)
            admitted = [r for r in admitted if r in snapshot]
            fresh = []
            for room in sorted(snapshot):
                if room not in admitting and room not in admitted:
                    admitting[room] = counter
                    fresh.append((room, counter))
                    counter += 1
            result = roster.reconcile(op[1])
            assert (result.removed, result.admitting, result.resync) == (removed, fresh, resync)
        else:
            expected_rooms = sorted([*admitting, *admitted])
            admitting.clear()
            admitted.clear()
            assert roster.clear() == expected_rooms
        assert roster.tracked_room_ids() == admitted
        for room in ROOMS:
            want = (
                M.Admitted
                if room in admitted
                else M.Admitting
                if room in admitting
                else M.Unadmitted
            )
            assert roster.room_membership(room) is want
