# cython: annotation_typing=False
"""Room activity snapshot normalisation (§14) with its own strict converter."""

from __future__ import annotations

from typing import Any

from ._errors import Issue, validation_error

__all__ = ["normalize_room_activity_snapshot"]

_MAX_BYTES = 1_048_576
_MAX_VALUES = 65_536
_MAX_DEPTH = 65  # nested arrays/objects, root included (observed on the reference)
_SIMPLE_KINDS = frozenset({"reasoning", "memory", "permission"})
_EXPECTED_STRING = "expected a string"
_ABSENT: Any = object()


class _Budget:
    """Running totals of the strict converter."""

    __slots__ = ("size", "values")

    def __init__(self, size: int) -> None:
        self.size = size
        self.values = 0


def _plain(text: str) -> str:
    """Return ``text`` as an exact str (str subclasses are copied)."""
    return text if type(text) is str else str.__str__(text)


def _utf8_len(text: str) -> int:
    """Return the UTF-8 length of ``text``, rejecting lone surrogates."""
    if text.isascii():
        return len(text)
    try:
        return len(text.encode("utf-8"))
    except UnicodeEncodeError:
        raise TypeError("string must contain Unicode scalar values") from None


def _add_string(text: str, budget: _Budget) -> str:
    """Account for one string and return it as an exact str."""
    if type(text) is not str:
        text = str.__str__(text)
    budget.size += _utf8_len(text)
    if budget.size > _MAX_BYTES:
        raise TypeError("room activity input exceeds string byte limit")
    return text


def _convert(value: Any, budget: _Budget, depth: int) -> Any:
    """Convert one JSON-native value (fresh containers), enforcing the budgets."""
    budget.values += 1
    if budget.values > _MAX_VALUES:
        raise TypeError("room activity input exceeds value limit")
    tp = type(value)
    # exact str, dict and list first: nearly every value of a real snapshot
    if tp is str:
        return _add_string(value, budget)
    if tp is dict:
        return _convert_dict(value, budget, depth)
    if tp is list:
        return _convert_list(value, budget, depth)
    if value is None or value is True or value is False:
        return value
    if isinstance(value, str):
        return _add_string(value, budget)
    if isinstance(value, bool):
        return bool(value)
    if isinstance(value, int):
        number = int(value)
        if not -(2**63) <= number <= 2**64 - 1:
            raise TypeError("integer must be between -2**63 and 2**64 - 1")
        return number
    if isinstance(value, float):
        real = float(value)
        if real - real != 0.0:
            raise TypeError("nonfinite JSON number")
        return real
    if isinstance(value, list):
        return _convert_list(value, budget, depth)
    if isinstance(value, dict):
        return _convert_dict(value, budget, depth)
    raise TypeError("expected JSON-native null, bool, number, string, list or dict")


def _convert_list(value: list[Any], budget: _Budget, depth: int) -> list[Any]:
    """Convert the items of a list one level deeper."""
    if depth > _MAX_DEPTH:
        raise TypeError("room activity input exceeds depth or value limit")
    return [_convert(item, budget, depth + 1) for item in value]


def _convert_dict(value: dict[Any, Any], budget: _Budget, depth: int) -> dict[str, Any]:
    """Convert the entries of a dict one level deeper (keys must be strings)."""
    if depth > _MAX_DEPTH:
        raise TypeError("room activity input exceeds depth or value limit")
    out = {}
    for key, item in value.items():
        if not isinstance(key, str):
            raise TypeError(_EXPECTED_STRING)
        out[_add_string(key, budget)] = _convert(item, budget, depth + 1)
    return out


def _at(index: int, field: str) -> str:
    """The issue path of ``field`` (e.g. ``".agent_id"``) in row ``index``."""
    return f"working_agents[{index}]{field}"


def _check_row(row: dict[str, Any], index: int, issues: list[Issue]) -> dict[str, Any] | None:
    """Validate one working-agent row; return its peer dict when it is valid."""
    start = len(issues)
    agent_id = row.get("agent_id")
    if type(agent_id) is not str:
        if "agent_id" not in row:
            issues.append((_at(index, ".agent_id"), "missing", _EXPECTED_STRING))
        else:
            issues.append((_at(index, ".agent_id"), "wrong_type", _EXPECTED_STRING))
    execution_id = row.get("execution_id")
    if execution_id is not None and type(execution_id) is not str:
        issues.append((_at(index, ".execution_id"), "wrong_type", _EXPECTED_STRING))
    agent_name = row.get("agent_name")
    if agent_name is not None and type(agent_name) is not str:
        issues.append((_at(index, ".agent_name"), "wrong_type", _EXPECTED_STRING))
    working = row.get("working", _ABSENT)
    if working is not True:
        if working is _ABSENT:
            issues.append((_at(index, ".working"), "missing", "working must be a boolean true"))
        elif working is False:
            issues.append((_at(index, ".working"), "invalid_value", "working must be true"))
        else:
            issues.append((_at(index, ".working"), "wrong_type", "working must be a boolean true"))
    activity = _check_activity(row.get("activity"), index, issues)
    if len(issues) > start:
        return None
    return {"agent_id": agent_id, "agent_name": agent_name or "", "activity": activity}


def _check_activity(activity: Any, index: int, issues: list[Issue]) -> dict[str, Any]:
    """Validate and normalise a row's ``activity``."""
    if activity is None:
        return {"kind": "reasoning"}
    if type(activity) is not dict:
        issues.append((_at(index, ".activity"), "wrong_type", "activity must be an object or null"))
        return {"kind": "reasoning"}
    kind = activity.get("kind", _ABSENT)
    if kind is _ABSENT:
        return {"kind": "reasoning"}
    if type(kind) is not str:
        issues.append(
            (_at(index, ".activity.kind"), "wrong_type", "activity kind must be a string")
        )
        return {"kind": "reasoning"}
    if kind == "tool_call":
        name = activity.get("name", _ABSENT)
        if type(name) is str:
            return {"kind": "tool_call", "name": name}
        if name is _ABSENT:
            issues.append((_at(index, ".activity.name"), "missing", _EXPECTED_STRING))
        else:
            issues.append((_at(index, ".activity.name"), "wrong_type", _EXPECTED_STRING))
        return {"kind": "reasoning"}
    if kind in _SIMPLE_KINDS:
        return {"kind": kind}
    return {"kind": "reasoning"}


def normalize_room_activity_snapshot(
    raw: Any, self_agent_id: str, trace_context: str | None = None
) -> list[dict[str, Any]]:
    """Return the other working agents of a room-activity snapshot, sorted by agent id."""
    if not isinstance(self_agent_id, str):
        raise TypeError(_EXPECTED_STRING)
    own = _plain(self_agent_id)
    size = _utf8_len(own)
    if size > _MAX_BYTES:
        raise TypeError("room activity input exceeds string byte limit")
    if trace_context is not None:
        if not isinstance(trace_context, str):
            raise TypeError(_EXPECTED_STRING)
        size += _utf8_len(_plain(trace_context))
        if size > _MAX_BYTES:
            raise TypeError("room activity input exceeds string byte limit")
    snapshot = _convert(raw, _Budget(size), 1)
    if type(snapshot) is not dict:
        raise validation_error([("", "wrong_type", "snapshot must be an object")], trace_context)
    rows = snapshot.get("working_agents")
    if type(rows) is not list:
        code = "missing" if "working_agents" not in snapshot else "wrong_type"
        raise validation_error(
            [("working_agents", code, "working_agents must be an array")], trace_context
        )
    issues: list[Issue] = []
    # one peer per (agent_id, execution_id); a missing execution id sorts first
    peers: dict[tuple[str, int, str], dict[str, Any]] = {}
    for index, row in enumerate(rows):
        if type(row) is not dict:
            issues.append((_at(index, ""), "wrong_type", "row must be an object"))
            continue
        peer = _check_row(row, index, issues)
        if peer is not None:
            execution_id = row.get("execution_id")
            key = (
                (peer["agent_id"], 0, "")
                if execution_id is None
                else (peer["agent_id"], 1, execution_id)
            )
            peers[key] = peer
    if issues:
        raise validation_error(issues, trace_context)
    return [peers[key] for key in sorted(peers) if key[0] != own]
