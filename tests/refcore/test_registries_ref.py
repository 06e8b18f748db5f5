"""The bounded registries against the reference band-sdk-core 6.1.1: long random replays.

Each seed replays thousands of RetryTracker, ClaimRegistry and DecisionRegistry calls (small
bounds, so every kind of eviction happens many times) in the reference, in our compiled core
and in our pure core, each in its own interpreter, and compares every result.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from bandtest import registries_replay
from bandtest.refcore import REFCORE_PYTHON, requires_refcore

from band_sdk_core import _compat

pytestmark = requires_refcore

SEEDS = (1, 2, 3)
_SCRIPT = Path(registries_replay.__file__)


def _replay(python: str, seed: int, **env: str) -> list[Any]:
    """The results of ``seed``'s replay under ``python`` (its installed band_sdk_core)."""
    base = {k: v for k, v in os.environ.items() if not k.startswith("BAND_SDK_CORE_")}
    # cwd "/": the interpreter imports its installed core, never this checkout's sources
    done = subprocess.run(
        [python, str(_SCRIPT), "--emit", str(seed)],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
        env={**base, **env},
        cwd="/",
    )
    assert done.returncode == 0, f"replay under {python} failed:\n{done.stderr[-3000:]}"
    result: list[Any] = json.loads(done.stdout)
    return result


def _first_difference(ours: list[Any], theirs: list[Any]) -> str:
    for index, (mine, reference) in enumerate(zip(ours, theirs, strict=False)):
        if mine != reference:
            return f"result {index}: ours {mine!r}, reference {reference!r}"
    return f"lengths: ours {len(ours)}, reference {len(theirs)}"


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize(
    "twin",
    [
        pytest.param("pure", id="py"),
        pytest.param("compiled", id="c", marks=pytest.mark.compiled),
    ],
)
def test_replay_matches_reference(twin: str, seed: int) -> None:
    if twin == "compiled":
        if _compat.NO_EXTENSIONS:
            pytest.skip("compiled implementation disabled by BAND_SDK_CORE_NO_EXTENSIONS")
        ours = _replay(sys.executable, seed, BAND_SDK_CORE_REQUIRE_EXTENSIONS="1")
    else:
        ours = _replay(sys.executable, seed, BAND_SDK_CORE_NO_EXTENSIONS="1")
    reference = _replay(str(REFCORE_PYTHON), seed)
    assert len(reference) > 10_000  # the replay really ran
    assert ours == reference, _first_difference(ours, reference)
