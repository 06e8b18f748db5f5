"""Python -> JSON conversion (spec §2.3), against every implementation."""

from __future__ import annotations

import collections
import dataclasses
import decimal
import enum
import math
import types
from collections import UserDict
from types import ModuleType
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st


class _Str(str):
    pass


class _Int(int):
    pass


class _Float(float):
    pass


class _Color(str, enum.Enum):  # noqa: UP042 - the str mixin is the point
    RED = "red"


class _Level(enum.IntEnum):
    HIGH = 3


@dataclasses.dataclass
class _Point:
    y: int
    x: Any


def test_scalars(json_impl: ModuleType) -> None:
    conv = json_impl.to_json
    assert conv(None) is None
    assert conv(True) is True
    assert conv(False) is False
    assert conv(0) == 0
    assert conv(2**64 - 1) == 2**64 - 1
    assert conv(-(2**63)) == -(2**63)
    assert conv(3.0) == 3.0 and type(conv(3.0)) is float
    assert math.copysign(1.0, conv(-0.0)) == -1.0
    assert conv("hé") == "hé"


@pytest.mark.parametrize("value", [float("nan"), float("inf"), float("-inf")])
def test_nonfinite_becomes_null(json_impl: ModuleType, value: float) -> None:
    assert json_impl.to_json(value) is None
    assert json_impl.to_json([value]) == [None]


def test_subclasses_become_plain(json_impl: ModuleType) -> None:
    out = json_impl.to_json([_Str("a"), _Int(3), _Float(1.5), _Color.RED, _Level.HIGH])
    assert out == ["a", 3, 1.5, "red", 3]
    assert [type(x) for x in out] == [str, int, float, str, int]
    keys = json_impl.to_json({_Str("k"): 1})
    assert [type(k) for k in keys] == [str]


@pytest.mark.parametrize("value", [2**64, -(2**63) - 1, _Int(2**64)])
def test_number_out_of_range(json_impl: ModuleType, value: int) -> None:
    with pytest.raises(TypeError, match=r"^JSON number out of range$"):
        json_impl.to_json({"a": [value]})


def test_sorted_fresh_objects(json_impl: ModuleType) -> None:
    raw = {"id": "r", "x": {"b": 1, "a": {"d": 1, "c": 2}}}
    out = json_impl.to_json(raw)
    assert out == raw
    assert list(out) == ["id", "x"]
    assert list(out["x"]) == ["a", "b"]
    assert list(out["x"]["a"]) == ["c", "d"]
    assert out is not raw and out["x"] is not raw["x"]
    lst = [1, [2]]
    copied = json_impl.to_json(lst)
    assert copied == lst and copied is not lst and copied[1] is not lst[1]


def test_code_point_order(json_impl: ModuleType) -> None:
    out = json_impl.to_json({"b": 1, "B": 2, "é": 3, "a": 4, "": 5})
    assert list(out) == ["", "B", "a", "b", "é"]


def test_mappings_and_sequences(json_impl: ModuleType) -> None:
    conv = json_impl.to_json
    assert conv(UserDict({"b": 1, "a": 2})) == {"a": 2, "b": 1}
    assert conv(types.MappingProxyType({"a": (1, 2)})) == {"a": [1, 2]}
    assert list(conv(collections.OrderedDict([("b", 1), ("a", 2)]))) == ["a", "b"]
    assert conv((1, 2)) == [1, 2]
    assert conv(range(3)) == [0, 1, 2]
    assert conv({3}) == [3]
    assert conv(frozenset({"x"})) == ["x"]
    assert conv(collections.deque([1])) == [1]


def test_dataclass(json_impl: ModuleType) -> None:
    out = json_impl.to_json(_Point(1, _Point(2, None)))
    assert out == {"x": {"x": None, "y": 2}, "y": 1}
    assert list(out) == ["x", "y"]


def test_bytes_and_bytearray(json_impl: ModuleType) -> None:
    with pytest.raises(
        TypeError, match=r"^invalid type: byte array, expected any valid JSON value$"
    ):
        json_impl.to_json(b"x")
    with pytest.raises(
        TypeError, match=r"^unexpected type: 'bytearray' object is not an instance of 'bytes'$"
    ):
        json_impl.to_json([bytearray(b"x")])


@pytest.mark.parametrize(
    ("value", "name"),
    [
        (object(), "object"),
        (decimal.Decimal(1), "Decimal"),
        (1j, "complex"),
        ((i for i in range(1)), "generator"),
        (_Point, "type"),
    ],
)
def test_unsupported(json_impl: ModuleType, value: object, name: str) -> None:
    with pytest.raises(TypeError) as info:
        json_impl.to_json({"k": value})
    assert str(info.value) == f"unsupported type {name}"


@pytest.mark.parametrize(
    ("key", "shown"), [(1, "'int' object"), (None, "'None'"), (b"k", "'bytes' object")]
)
def test_non_str_key(json_impl: ModuleType, key: object, shown: str) -> None:
    with pytest.raises(TypeError) as info:
        json_impl.to_json({key: 1})
    assert str(info.value) == f"unexpected type: {shown} is not an instance of 'str'"


@pytest.mark.parametrize("value", ["\ud800", ["x", "\udfff"], {"\ud800": 1}, {"a": "b\ud800"}])
def test_lone_surrogate(json_impl: ModuleType, value: object) -> None:
    with pytest.raises(TypeError) as info:
        json_impl.to_json(value)
    message = str(info.value)
    assert message.startswith("UnicodeEncodeError: 'utf-8' codec can't encode character '\\ud")
    assert message.endswith(": surrogates not allowed")


def test_surrogate_message_exact(json_impl: ModuleType) -> None:
    with pytest.raises(TypeError) as info:
        json_impl.to_json("\ud800")
    assert str(info.value) == (
        "UnicodeEncodeError: 'utf-8' codec can't encode character '\\ud800' "
        "in position 0: surrogates not allowed"
    )


def test_deep_nesting(json_impl: ModuleType) -> None:
    value: Any = "leaf"
    for _ in range(200):
        value = {"k": [value]}
    assert json_impl.to_json(value) == value


JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**64 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=4), children, max_size=4)
    ),
    max_leaves=20,
)


@settings(max_examples=200, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(value=JSON)
def test_roundtrip_equal_and_sorted(json_impl: ModuleType, value: Any) -> None:
    out = json_impl.to_json(value)
    assert out == value

    def check(node: Any) -> None:
        if isinstance(node, dict):
            assert list(node) == sorted(node)
            for item in node.values():
                check(item)
        elif isinstance(node, list):
            for item in node:
                check(item)

    check(out)
