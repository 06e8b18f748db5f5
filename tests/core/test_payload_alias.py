"""is_remote and is_external are aliases (participant_added/_removed, contact_added), both twins.

The rule, as the reference band-sdk-core 6.1.1 applies it (tests/refcore compares case by case):
each field is checked on its own (bool or null, else ``wrong_type``); then when one is a bool and
the other is absent or null, the other takes that bool. Two nulls, or null and absent, stay.
"""

from __future__ import annotations

import copy
from types import ModuleType
from typing import Any

import pytest
from bandtest.remote_alias import CASES, FIELDS, VALUES, outcome, payload


def expected(event: str, remote: str, external: str) -> dict[str, Any]:
    """The outcome the rule gives for one combination."""
    labels = dict(zip(FIELDS, (remote, external), strict=True))
    wrong = [f for f, label in labels.items() if label not in ("absent", "null", "true", "false")]
    if wrong:
        return {"issues": [[f, "wrong_type", f"`{f}` must be a boolean"] for f in wrong]}
    out = payload(event, remote, external)
    bools = [VALUES[label] for label in labels.values() if label in ("true", "false")]
    if len(bools) == 1:  # the other one is absent or null: it takes the bool
        out["is_remote"] = out["is_external"] = bools[0]
    out = dict(sorted(out.items()))
    return {"output": out, "keys": list(out)}


@pytest.mark.parametrize(("event", "remote", "external"), CASES)
def test_alias_combinations(
    payload_impl: ModuleType, event: str, remote: str, external: str
) -> None:
    raw = payload(event, remote, external)
    before = copy.deepcopy(raw)
    got = outcome(payload_impl.validate_event_payload, event, raw)
    assert got == expected(event, remote, external)
    assert raw == before  # the caller's payload is never changed


@pytest.mark.parametrize("event", ["participant_added", "participant_removed", "contact_added"])
def test_alias_examples(payload_impl: ModuleType, event: str) -> None:
    validate = payload_impl.validate_event_payload
    base = payload(event, "absent", "absent")
    out = validate(event, {**base, "is_external": False})
    assert out["is_external"] is False and out["is_remote"] is False
    out = validate(event, {**base, "is_remote": True, "is_external": None})
    assert out["is_external"] is True and out["is_remote"] is True
    # both given: each keeps its own value
    out = validate(event, {**base, "is_remote": True, "is_external": False})
    assert (out["is_remote"], out["is_external"]) == (True, False)
    # neither a bool: nothing is added
    out = validate(event, {**base, "is_remote": None})
    assert out["is_remote"] is None and "is_external" not in out
    assert "is_remote" not in validate(event, base)


@pytest.mark.parametrize("event", ["room_added", "contact_removed", "event_created"])
def test_no_alias_elsewhere(payload_impl: ModuleType, event: str) -> None:
    raw = {"id": "r", "inserted_at": "t", "updated_at": "t", "is_remote": True}
    assert "is_external" not in payload_impl.validate_event_payload(event, raw)
