"""ParticipantRoster (spec §7), against the pure implementation."""

from __future__ import annotations

import copy
import pickle
from collections import UserDict
from collections.abc import Iterator
from types import MappingProxyType, ModuleType
from typing import Any

import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

FIELDS = ("id", "name", "type", "handle", "description")


def _p(pid: str, **fields: Any) -> dict[str, Any]:
    return {"id": pid, **fields}


def _full(pid: str, **fields: Any) -> dict[str, Any]:
    return {key: (pid if key == "id" else fields.get(key)) for key in FIELDS}


@pytest.fixture
def roster(roster_impl: ModuleType) -> Any:
    return roster_impl.ParticipantRoster()


def test_runtime_class_behaviour(roster_impl: ModuleType, roster: Any) -> None:
    cls = roster_impl.ParticipantRoster
    assert cls.__module__ == "band_sdk_core"
    with pytest.raises(TypeError, match=r"is not an acceptable base type"):
        type("Sub", (cls,), {})
    with pytest.raises(TypeError, match=r"cannot pickle 'band_sdk_core.ParticipantRoster' object"):
        pickle.dumps(roster)
    with pytest.raises(TypeError):
        copy.copy(roster)
    with pytest.raises(AttributeError):
        roster.extra = 1
    with pytest.raises(TypeError):
        cls(lambda: None)
    cls(trace_context_provider=42)  # not validated at construction


def test_add_and_list(roster: Any) -> None:
    assert roster.list() == []
    assert roster.add({"id": "a", "name": "A", "extra": 1}) is True
    assert roster.add(UserDict({"id": "b", "type": "Agent"})) is True
    assert roster.add(MappingProxyType({"id": "", "handle": None})) is True
    listed = roster.list()
    assert listed == [_full("a", name="A"), _full("b", type="Agent"), _full("")]
    assert [list(item) for item in listed] == [list(FIELDS)] * 3
    listed[0]["name"] = "changed"
    assert roster.list()[0]["name"] == "A"


def test_add_merges_in_place(roster: Any) -> None:
    roster.add(_p("a", name="A", type="User"))
    roster.add(_p("b"))
    assert roster.add(_p("a", name=None, handle="h", description="d")) is False
    assert roster.list() == [
        _full("a", name="A", type="User", handle="h", description="d"),
        _full("b"),
    ]
    # reference behaviour (spec says any non-None str): "" does not overwrite
    assert roster.add(_p("a", name="", type="Agent")) is False
    assert roster.list()[0] == _full("a", name="A", type="Agent", handle="h", description="d")
    assert roster.add(_p("e", name="")) is True
    assert roster.list()[2] == _full("e", name="")
    roster.set_all([_p("e", name="n", type="")])
    assert roster.list() == [_full("e", name="n")]


def test_remove(roster: Any) -> None:
    roster.add(_p("a"))
    assert roster.remove("a") is True
    assert roster.remove("a") is False
    with pytest.raises(TypeError, match=r"^'int' object is not an instance of 'str'$"):
        roster.remove(1)


@pytest.mark.parametrize(
    ("participant", "message"),
    [
        (["id", "a"], "participant must be a mapping"),
        ("a", "participant must be a mapping"),
        (None, "participant must be a mapping"),
        ({}, "participant field `id` must be a string"),
        ({"id": None}, "participant field `id` must be a string"),
        ({"id": 1, "name": 1}, "participant field `id` must be a string"),
        ({"id": "a", "name": 1, "type": 2}, "participant field `name` must be a string or None"),
        ({"id": "a", "type": b"x"}, "participant field `type` must be a string or None"),
        ({"id": "a", "handle": ["h"]}, "participant field `handle` must be a string or None"),
        (
            {"id": "a", "description": 1.0},
            "participant field `description` must be a string or None",
        ),
    ],
)
def test_read_errors(roster: Any, participant: object, message: str) -> None:
    with pytest.raises(TypeError) as info:
        roster.add(participant)
    assert str(info.value) == message
    assert roster.list() == []
    with pytest.raises(TypeError) as info:
        roster.set_all([_p("ok"), participant])
    assert str(info.value) == message
    assert roster.list() == []


def test_set_all_replaces_membership_and_merges(roster: Any) -> None:
    roster.add(_p("a", name="A"))
    roster.add(_p("b", name="B"))
    roster.set_all([_p("c", name="C"), _p("a", handle="ha", name=None)])
    assert roster.list() == [_full("c", name="C"), _full("a", name="A", handle="ha")]
    roster.set_all(iter([_p("a")]))
    assert roster.list() == [_full("a", name="A", handle="ha")]
    roster.set_all(())
    assert roster.list() == []


def test_set_all_iterables(roster: Any) -> None:
    def gen() -> Iterator[dict[str, Any]]:
        yield _p("x")

    roster.set_all(gen())
    assert [p["id"] for p in roster.list()] == ["x"]
    with pytest.raises(TypeError, match=r"^participant must be a mapping$"):
        roster.set_all("ab")
    with pytest.raises(TypeError, match=r"^participant must be a mapping$"):
        roster.set_all({"id": "a"})
    with pytest.raises(TypeError, match=r"^'int' object is not iterable$"):
        roster.set_all(5)
    assert [p["id"] for p in roster.list()] == ["x"]


def test_set_all_duplicates(roster: Any) -> None:
    roster.add(_p("keep"))
    snapshot = [_p("a"), _p("b"), _p("a"), _p("b"), _p("a")]
    with pytest.raises(ValueError) as info:
        roster.set_all(snapshot, "tc")
    error = info.value
    assert type(error) is ValueError
    assert error.args == (
        "3 validation issue(s): duplicate participant id `a` in set_all snapshot "
        "(participants[2].id)",
    )
    assert error.issues == (  # type: ignore[attr-defined]
        ("participants[2].id", "invalid_value", "duplicate participant id `a` in set_all snapshot"),
        ("participants[3].id", "invalid_value", "duplicate participant id `b` in set_all snapshot"),
        ("participants[4].id", "invalid_value", "duplicate participant id `a` in set_all snapshot"),
    )
    assert error.trace_context == "tc"  # type: ignore[attr-defined]
    assert roster.list() == [_full("keep")]


class _Provider:
    def __init__(self, result: object = "provided", fail: bool = False) -> None:
        self.calls = 0
        self.result = result
        self.fail = fail

    def __call__(self) -> object:
        self.calls += 1
        if self.fail:
            raise RuntimeError("boom")
        return self.result


DUP = [_p("a"), _p("a")]


def _trace_of(roster: Any, *args: Any) -> object:
    with pytest.raises(ValueError) as info:
        roster.set_all(DUP, *args)
    return info.value.trace_context  # type: ignore[attr-defined]


def test_provider_used_when_trace_context_none(roster_impl: ModuleType) -> None:
    provider = _Provider()
    roster = roster_impl.ParticipantRoster(trace_context_provider=provider)
    assert _trace_of(roster) == "provided"
    assert provider.calls == 1
    assert _trace_of(roster, None) == "provided"
    assert provider.calls == 2
    roster.set_all([_p("a")])
    assert provider.calls == 3  # also called on success
    assert _trace_of(roster, "explicit") == "explicit"
    assert _trace_of(roster, "") == ""
    assert provider.calls == 3  # not called when a str is given
    with pytest.raises(TypeError):
        roster.set_all([1])
    assert provider.calls == 3  # a bad element raises before the provider runs


@pytest.mark.parametrize(
    "provider",
    [None, 42, _Provider(fail=True), _Provider(result=5), _Provider(result=None), lambda x: "y"],
)
def test_provider_failures_give_none(roster_impl: ModuleType, provider: object) -> None:
    roster = roster_impl.ParticipantRoster(trace_context_provider=provider)
    assert _trace_of(roster) is None


def test_trace_context_type(roster: Any) -> None:
    with pytest.raises(TypeError):
        roster.set_all(DUP, 5)
    with pytest.raises(TypeError):
        roster.set_all([_p("a")], trace_context=b"x")
    assert roster.list() == []


def test_changed_and_mark_sent(roster: Any) -> None:
    assert roster.changed() is True
    roster.mark_sent()
    assert roster.changed() is False
    roster.add(_p("a"))
    assert roster.changed() is True
    roster.mark_sent()
    assert roster.changed() is False
    roster.add(_p("a", name="x"))
    assert roster.changed() is True
    roster.mark_sent()
    roster.add(_p("b"))
    roster.remove("b")
    assert roster.changed() is False
    roster.add(_p("b"))
    roster.mark_sent()
    roster.set_all([_p("b"), _p("a")])
    assert roster.changed() is True
    roster.set_all([_p("a"), _p("b")])
    assert roster.changed() is False


# -- stateful model -----------------------------------------------------------

IDS = st.sampled_from(["a", "b", "c"])
VALUES = st.one_of(st.none(), st.sampled_from(["", "x", "y"]))
PARTICIPANT = st.builds(
    lambda pid, name, kind, omit: {
        k: v for k, v in {"id": pid, "name": name, "type": kind}.items() if k not in omit
    },
    IDS,
    VALUES,
    VALUES,
    st.sets(st.sampled_from(["name", "type"])),
)


def _machine(module_name: str) -> type[RuleBasedStateMachine]:
    class RosterMachine(RuleBasedStateMachine):
        @initialize()
        def setup(self) -> None:
            import importlib

            self.roster = importlib.import_module(module_name).ParticipantRoster()
            self.model: dict[str, dict[str, Any]] = {}
            self.sent: list[dict[str, Any]] | None = None

        def merge(self, participant: dict[str, Any]) -> dict[str, Any]:
            old = self.model.get(participant["id"])
            record = dict(old) if old else _full(participant["id"])
            for key in FIELDS[1:]:
                if old is None or participant.get(key):
                    record[key] = participant.get(key)
            return record

        @rule(participant=PARTICIPANT)
        def add(self, participant: dict[str, Any]) -> None:
            new = participant["id"] not in self.model
            assert self.roster.add(participant) is new
            self.model[participant["id"]] = self.merge(participant)

        @rule(pid=IDS)
        def remove(self, pid: str) -> None:
            assert self.roster.remove(pid) is (pid in self.model)
            self.model.pop(pid, None)

        @rule(snapshot=st.lists(PARTICIPANT, max_size=4))
        def set_all(self, snapshot: list[dict[str, Any]]) -> None:
            ids = [p["id"] for p in snapshot]
            if len(set(ids)) != len(ids):
                with pytest.raises(ValueError):
                    self.roster.set_all(snapshot)
                return
            self.roster.set_all(snapshot)
            self.model = {p["id"]: self.merge(p) for p in snapshot}

        @rule()
        def mark_sent(self) -> None:
            self.roster.mark_sent()
            self.sent = list(self.model.values())

        @invariant()
        def matches(self) -> None:
            if not hasattr(self, "roster"):
                return
            listed = list(self.model.values())
            assert self.roster.list() == listed
            assert self.roster.changed() is (self.sent is None or self.sent != listed)

    return RosterMachine


def test_stateful_against_model(roster_impl: ModuleType) -> None:
    machine = _machine(roster_impl.__name__)
    machine.TestCase.settings = settings(max_examples=60, stateful_step_count=30, deadline=None)
    machine.TestCase().runTest()
