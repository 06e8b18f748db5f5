"""validate_memory_type_for_system (spec §4), against every implementation."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import pytest
from bandtest.core_cases import validation_issues

from band_sdk_core import EventType as _EventType
from band_sdk_core import MemorySystem as _MemorySystem
from band_sdk_core import MemoryType as _MemoryType

EventType: Any = _EventType
MemorySystem: Any = _MemorySystem
MemoryType: Any = _MemoryType

ALLOWED = {
    "sensory": ["iconic", "echoic", "haptic"],
    "working": ["episodic", "semantic", "procedural"],
    "long_term": ["episodic", "semantic", "procedural"],
}
TYPES = ["iconic", "echoic", "haptic", "episodic", "semantic", "procedural"]


def issues_of(impl: ModuleType, system: Any, memory_type: Any, tc: str | None = None) -> Any:
    return validation_issues(
        lambda: impl.validate_memory_type_for_system(system, memory_type, tc), tc
    )


@pytest.mark.parametrize("system", sorted(ALLOWED))
@pytest.mark.parametrize("memory_type", TYPES)
def test_matrix(payload_impl: ModuleType, system: str, memory_type: str) -> None:
    check = payload_impl.validate_memory_type_for_system
    members = (MemorySystem.from_wire_name(system), MemoryType.from_wire_name(memory_type))
    if memory_type in ALLOWED[system]:
        assert check(system, memory_type) is None
        assert check(*members) is None
        assert check(members[0], memory_type) is None
        assert check(system, members[1], "tc") is None
    else:
        expected = (
            (
                "type",
                "invalid_value",
                f"type `{memory_type}` is not valid for system `{system}`; "
                f"expected one of: {', '.join(ALLOWED[system])}",
            ),
        )
        assert issues_of(payload_impl, system, memory_type) == expected
        assert issues_of(payload_impl, *members, "tc") == expected


def test_example_message(payload_impl: ModuleType) -> None:
    with pytest.raises(ValueError) as info:
        payload_impl.validate_memory_type_for_system("working", "iconic")
    assert str(info.value) == (
        "1 validation issue(s): type `iconic` is not valid for system `working`; "
        "expected one of: episodic, semantic, procedural (type)"
    )


def test_unknown_names(payload_impl: ModuleType) -> None:
    assert issues_of(payload_impl, "nope", "iconic") == (
        ("system", "invalid_value", "unknown memory system `nope`"),
    )
    assert issues_of(payload_impl, "sensory", "Iconic") == (
        ("type", "invalid_value", "unknown memory type `Iconic`"),
    )
    assert issues_of(payload_impl, "a", "b", "") == (
        ("system", "invalid_value", "unknown memory system `a`"),
        ("type", "invalid_value", "unknown memory type `b`"),
    )
    assert issues_of(payload_impl, "", "")[0][2] == "unknown memory system ``"
    assert issues_of(payload_impl, "LongTerm", "episodic")[0][0] == "system"
    assert issues_of(payload_impl, "nope", MemoryType.Iconic) == (
        ("system", "invalid_value", "unknown memory system `nope`"),
    )


def test_type_errors(payload_impl: ModuleType) -> None:
    check = payload_impl.validate_memory_type_for_system
    for bad in (1, None, MemoryType.Iconic, EventType.Supersede):
        with pytest.raises(TypeError, match=r"^system must be a str$"):
            check(bad, "iconic")
    for bad in (1, None, MemorySystem.Sensory):
        with pytest.raises(TypeError, match=r"^memory_type must be a str$"):
            check("sensory", bad)
    with pytest.raises(TypeError, match=r"^system must be a str$"):
        check(1, 2)
    with pytest.raises(TypeError):
        check("sensory", "iconic", 1)
    assert check(system="sensory", memory_type="haptic", trace_context=None) is None


def test_trace_context_checked_first(payload_impl: ModuleType) -> None:
    # observed on the reference: a bad trace_context wins over a bad system
    with pytest.raises(TypeError, match=r"^'float' object is not an instance of 'str'$"):
        payload_impl.validate_memory_type_for_system(1, 2, 2.5)
