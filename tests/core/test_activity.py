"""normalize_room_activity_snapshot (spec §14), against every implementation."""

from __future__ import annotations

import collections
from types import ModuleType
from typing import Any, cast

import pytest
from bandtest.core_cases import validation_issues
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st


def row(agent_id: Any = "b", **extra: Any) -> dict[str, Any]:
    return {"agent_id": agent_id, "working": True, **extra}


def snap(*rows: Any) -> dict[str, Any]:
    return {"working_agents": list(rows)}


def issues_of(impl: ModuleType, raw: Any, me: str = "self", tc: str | None = None) -> Any:
    return validation_issues(lambda: impl.normalize_room_activity_snapshot(raw, me, tc), tc)


def test_basic_output(activity_impl: ModuleType) -> None:
    normalize = activity_impl.normalize_room_activity_snapshot
    assert normalize(snap(), "self") == []
    out = normalize(snap(row("b", agent_name="B", execution_id="e"), row("a")), "self", "tc")
    assert out == [
        {"agent_id": "a", "agent_name": "", "activity": {"kind": "reasoning"}},
        {"agent_id": "b", "agent_name": "B", "activity": {"kind": "reasoning"}},
    ]
    assert list(out[0]) == ["agent_id", "agent_name", "activity"]
    assert normalize({**snap(row()), "other": [1, {}]}, "self")[0]["agent_id"] == "b"
    assert normalize(snap(row(agent_name=None)), "self")[0]["agent_name"] == ""
    assert normalize(snap(row("")), "self")[0]["agent_id"] == ""


@pytest.mark.parametrize(
    ("activity", "expected"),
    [
        (None, {"kind": "reasoning"}),
        ({}, {"kind": "reasoning"}),
        ({"kind": "reasoning", "x": 1}, {"kind": "reasoning"}),
        ({"kind": "memory", "name": "n"}, {"kind": "memory"}),
        ({"kind": "permission"}, {"kind": "permission"}),
        ({"kind": "tool_call", "name": "t", "x": 1}, {"kind": "tool_call", "name": "t"}),
        ({"kind": "tool_call", "name": ""}, {"kind": "tool_call", "name": ""}),
        ({"kind": "sleeping", "name": 5}, {"kind": "reasoning"}),
        ({"kind": ""}, {"kind": "reasoning"}),
        ({"kind": "Reasoning"}, {"kind": "reasoning"}),
    ],
)
def test_activity_normalisation(activity_impl: ModuleType, activity: Any, expected: Any) -> None:
    out = activity_impl.normalize_room_activity_snapshot(snap(row(activity=activity)), "self")
    assert out[0]["activity"] == expected
    absent = activity_impl.normalize_room_activity_snapshot(snap(row()), "self")
    assert absent[0]["activity"] == {"kind": "reasoning"}


def test_self_rows_dropped_but_validated(activity_impl: ModuleType) -> None:
    normalize = activity_impl.normalize_room_activity_snapshot
    assert normalize(snap(row("self"), row("x")), "self") == [
        {"agent_id": "x", "agent_name": "", "activity": {"kind": "reasoning"}}
    ]
    assert issues_of(activity_impl, snap(row("self", working=False))) == (
        ("working_agents[0].working", "invalid_value", "working must be true"),
    )


def test_duplicates(activity_impl: ModuleType) -> None:
    normalize = activity_impl.normalize_room_activity_snapshot
    out = normalize(snap(row(agent_name="1"), row(agent_name="2")), "self")
    assert [p["agent_name"] for p in out] == ["2"]
    # observed on the reference: rows are keyed by (agent_id, execution_id)
    out = normalize(
        snap(
            row(execution_id="2", agent_name="y"),
            row(execution_id="2", agent_name="x"),
            row(execution_id="1", agent_name="z"),
            row(agent_name="n"),
            row(execution_id=None, agent_name="m"),
            row(execution_id="", agent_name="e"),
        ),
        "self",
    )
    assert [p["agent_name"] for p in out] == ["m", "e", "z", "x"]


def test_structure_issues(activity_impl: ModuleType) -> None:
    raws: list[Any] = [[], "x", None, 1]
    for raw in raws:
        assert issues_of(activity_impl, raw) == (("", "wrong_type", "snapshot must be an object"),)
    assert issues_of(activity_impl, {}) == (
        ("working_agents", "missing", "working_agents must be an array"),
    )
    values: list[Any] = [{}, None, "x"]
    for value in values:
        assert issues_of(activity_impl, {"working_agents": value}, tc="t") == (
            ("working_agents", "wrong_type", "working_agents must be an array"),
        )
    assert issues_of(activity_impl, snap(5, row(), [], None)) == (
        ("working_agents[0]", "wrong_type", "row must be an object"),
        ("working_agents[2]", "wrong_type", "row must be an object"),
        ("working_agents[3]", "wrong_type", "row must be an object"),
    )


def test_row_issues_in_order(activity_impl: ModuleType) -> None:
    raw = snap(
        {
            "execution_id": 1,
            "agent_name": 2,
            "working": False,
            "activity": {"kind": None, "name": 3},
        },
        {"working": 1, "activity": 5},
        {"agent_id": None, "activity": {"kind": "tool_call", "name": None}},
        row("z", activity={"kind": "tool_call"}),
        row("y", working="true"),
        row("w", working=None),
        row(5),
    )
    p = "working_agents"
    assert issues_of(activity_impl, raw, tc="tc") == (
        (f"{p}[0].agent_id", "missing", "expected a string"),
        (f"{p}[0].execution_id", "wrong_type", "expected a string"),
        (f"{p}[0].agent_name", "wrong_type", "expected a string"),
        (f"{p}[0].working", "invalid_value", "working must be true"),
        (f"{p}[0].activity.kind", "wrong_type", "activity kind must be a string"),
        (f"{p}[1].agent_id", "missing", "expected a string"),
        (f"{p}[1].working", "wrong_type", "working must be a boolean true"),
        (f"{p}[1].activity", "wrong_type", "activity must be an object or null"),
        (f"{p}[2].agent_id", "wrong_type", "expected a string"),
        (f"{p}[2].working", "missing", "working must be a boolean true"),
        (f"{p}[2].activity.name", "wrong_type", "expected a string"),
        (f"{p}[3].activity.name", "missing", "expected a string"),
        (f"{p}[4].working", "wrong_type", "working must be a boolean true"),
        (f"{p}[5].working", "wrong_type", "working must be a boolean true"),
        (f"{p}[6].agent_id", "wrong_type", "expected a string"),
    )


def test_argument_checks(activity_impl: ModuleType) -> None:
    normalize = activity_impl.normalize_room_activity_snapshot
    for args in ((snap(), 1), (snap(), None), (snap(), "a", 1), ((), 1)):
        with pytest.raises(TypeError, match=r"^expected a string$"):
            normalize(*args)


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ((), "expected JSON-native null, bool, number, string, list or dict"),
        ({"a": {1}}, "expected JSON-native null, bool, number, string, list or dict"),
        ([b"x"], "expected JSON-native null, bool, number, string, list or dict"),
        (collections.UserDict(), "expected JSON-native null, bool, number, string, list or dict"),
        ({1: 2}, "expected a string"),
        ([float("nan")], "nonfinite JSON number"),
        ({"a": float("-inf")}, "nonfinite JSON number"),
        ([2**64], "integer must be between -2**63 and 2**64 - 1"),
        ([-(2**63) - 1], "integer must be between -2**63 and 2**64 - 1"),
        ("\ud800", "string must contain Unicode scalar values"),
        ({"\udc00": 1}, "string must contain Unicode scalar values"),
    ],
)
def test_conversion_errors(activity_impl: ModuleType, raw: Any, message: str) -> None:
    with pytest.raises(TypeError) as info:
        activity_impl.normalize_room_activity_snapshot(raw, "self")
    assert str(info.value) == message


def test_conversion_in_input_order(activity_impl: ModuleType) -> None:
    normalize = activity_impl.normalize_room_activity_snapshot
    with pytest.raises(TypeError, match=r"^expected JSON-native"):
        normalize({"a": (), "b": float("nan")}, "x")
    with pytest.raises(TypeError, match=r"^nonfinite JSON number$"):
        normalize({"b": float("nan"), "a": ()}, "x")


def test_accepted_native_values(activity_impl: ModuleType) -> None:
    raw = collections.OrderedDict(
        working_agents=[row()], x=[None, True, 1, 1.5, 2**64 - 1, -(2**63), "s", {}]
    )
    assert activity_impl.normalize_room_activity_snapshot(raw, "self")[0]["agent_id"] == "b"


def test_string_byte_budget(activity_impl: ModuleType) -> None:
    normalize = activity_impl.normalize_room_activity_snapshot
    limit = 1_048_576
    with pytest.raises(ValueError):
        normalize({"": "a" * (limit - 1)}, "", "x")  # exactly at the limit: structural error
    with pytest.raises(TypeError, match=r"^room activity input exceeds string byte limit$"):
        normalize({"x": "a" * limit}, "")
    with pytest.raises(TypeError, match=r"^room activity input exceeds string byte limit$"):
        normalize({"": "a" * (limit - 1)}, "", "xy")
    with pytest.raises(TypeError, match=r"^room activity input exceeds string byte limit$"):
        normalize([1], "a" * (limit + 1))
    with pytest.raises(TypeError, match=r"^room activity input exceeds string byte limit$"):
        normalize([()], "", "a" * (limit + 1))  # checked before the raw value
    with pytest.raises(TypeError, match=r"^string must contain Unicode scalar values$"):
        normalize([1], "\ud800", "a" * (limit + 1))
    with pytest.raises(TypeError, match=r"^string must contain Unicode scalar values$"):
        normalize([1], "\ud800", 1)  # the agent id is checked before the trace context
    with pytest.raises(TypeError, match=r"^room activity input exceeds string byte limit$"):
        normalize([()], "a" * (limit + 1), 1)
    with pytest.raises(TypeError, match=r"^string must contain Unicode scalar values$"):
        normalize([1], "a", "\udfff")
    with pytest.raises(TypeError, match=r"^room activity input exceeds string byte limit$"):
        normalize(["é" * (limit // 2 + 1)], "")


def test_value_budget(activity_impl: ModuleType) -> None:
    normalize = activity_impl.normalize_room_activity_snapshot
    with pytest.raises(ValueError):
        normalize([0] * 65_535, "")
    with pytest.raises(TypeError, match=r"^room activity input exceeds value limit$"):
        normalize([0] * 65_536, "")
    with pytest.raises(TypeError, match=r"^room activity input exceeds value limit$"):
        normalize([0] * 65_536 + [()], "")


def nested(depth: int, as_dict: bool) -> Any:
    value: Any = {} if as_dict else []
    for _ in range(depth - 1):
        value = {"k": value} if as_dict else [value]
    return value


@pytest.mark.parametrize("as_dict", [False, True])
def test_depth_budget(activity_impl: ModuleType, as_dict: bool) -> None:
    normalize = activity_impl.normalize_room_activity_snapshot
    # the reference accepts 65 nested containers (root included) and rejects 66
    with pytest.raises(ValueError):
        normalize(nested(65, as_dict), "")
    for depth in (66, 100):
        with pytest.raises(TypeError, match=r"^room activity input exceeds depth or value limit$"):
            normalize(nested(depth, as_dict), "")


def test_input_not_mutated(activity_impl: ModuleType) -> None:
    raw = snap(row(activity={"kind": "memory", "x": 1}), row("self"))
    before = repr(raw)
    out = activity_impl.normalize_room_activity_snapshot(raw, "self")
    assert repr(raw) == before
    assert out[0]["activity"] is not raw["working_agents"][0]["activity"]


ROW_VALUES: st.SearchStrategy[Any] = (
    st.none() | st.booleans() | st.integers() | st.text(max_size=3) | st.just({})
)
ROWS = st.lists(
    st.dictionaries(
        st.sampled_from(["agent_id", "execution_id", "agent_name", "working", "activity", "x"]),
        ROW_VALUES
        | st.dictionaries(
            st.sampled_from(["kind", "name"]), ROW_VALUES | st.sampled_from(["tool_call", "memory"])
        ),
        max_size=6,
    )
    | ROW_VALUES,
    max_size=4,
)


@settings(max_examples=200, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=ROWS, wrap=st.booleans())
def test_fuzz_errors_and_no_mutation(activity_impl: ModuleType, rows: Any, wrap: bool) -> None:
    raw = {"working_agents": rows} if wrap else rows
    before = repr(raw)
    try:
        out = activity_impl.normalize_room_activity_snapshot(raw, "self")
    except ValueError as error:
        assert type(error) is ValueError
        assert cast(Any, error).issues
    except TypeError:
        pass
    else:
        assert [peer["agent_id"] for peer in out] == sorted(peer["agent_id"] for peer in out)
        assert all(list(peer) == ["agent_id", "agent_name", "activity"] for peer in out)
        assert "self" not in [peer["agent_id"] for peer in out]
    assert repr(raw) == before
