"""The is_remote/is_external alias cases: every combination of the two fields' values.

Shared by tests/core (both implementations against the rule) and tests/refcore (both
implementations against the reference wheel, case by case).
"""

from __future__ import annotations

from typing import Any

#: the events whose schema has both fields
EVENTS: dict[str, dict[str, Any]] = {
    "participant_added": {"id": "p", "type": "User", "name": "N"},
    "participant_removed": {"id": "p", "type": "User", "name": "N"},
    "contact_added": {"id": "c", "type": "User", "inserted_at": "t", "handle": None, "name": None},
}
#: a field's value by label; "absent" leaves the key out
VALUES: dict[str, Any] = {
    "absent": None,
    "true": True,
    "false": False,
    "null": None,
    "int 1": 1,
    "int 0": 0,
    "float 1.0": 1.0,
    "str": "true",
    "list": [],
    "object": {},
}
FIELDS = ("is_remote", "is_external")


def payload(event: str, remote: str, external: str) -> dict[str, Any]:
    """The event's minimal valid payload with the two fields set as labelled."""
    raw = {**EVENTS[event], "zz_unknown": 1}
    for field, label in zip(FIELDS, (remote, external), strict=True):
        if label != "absent":
            raw[field] = VALUES[label]
    return raw


#: (event, is_remote label, is_external label) for every combination
CASES = [(e, r, x) for e in EVENTS for r in VALUES for x in VALUES]


def outcome(validate: Any, event: str, raw: Any) -> dict[str, Any]:
    """What ``validate(event, raw)`` gives, as JSON: the output or the issues of the ValueError."""
    try:
        out = validate(event, raw)
    except ValueError as error:
        return {"issues": [list(issue) for issue in error.issues]}
    return {"output": out, "keys": list(out)}
