"""The is_remote/is_external alias cases against the reference band-sdk-core 6.1.1, both twins."""

from __future__ import annotations

import inspect
from types import ModuleType
from typing import Any

import pytest
from bandtest.refcore import requires_refcore, run_reference
from bandtest.remote_alias import CASES, outcome, payload

pytestmark = requires_refcore

_SCRIPT = f"""
from __future__ import annotations
import json, sys
import band_sdk_core
{inspect.getsource(outcome)}
cases = json.load(sys.stdin)
print(json.dumps([outcome(band_sdk_core.validate_event_payload, e, raw) for e, raw in cases]))
"""


@pytest.fixture(scope="module")
def reference() -> list[Any]:
    """The reference's outcome of every case, in CASES order (one interpreter run)."""
    return list(run_reference(_SCRIPT, [[e, payload(e, r, x)] for e, r, x in CASES]))


def test_every_combination_matches_reference(
    payload_impl: ModuleType, reference: list[Any]
) -> None:
    assert len(reference) == len(CASES)
    differ = []
    for (event, remote, external), theirs in zip(CASES, reference, strict=True):
        ours = outcome(payload_impl.validate_event_payload, event, payload(event, remote, external))
        if ours != theirs:
            differ.append((event, remote, external, ours, theirs))
    assert not differ, f"{len(differ)} case(s) differ from the reference, first: {differ[0]}"
