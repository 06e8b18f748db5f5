"""The reference core, band-sdk-core 6.1.1, run in its own interpreter for differential tests.

Its interpreter comes from ``BAND_REFCORE_PYTHON`` only (``make test`` creates the venv with
``make refcore`` and sets it); no machine path is assumed. Without it those tests skip with a
reason that says how to get it, and under ``CI`` a skip fails the run (tests/conftest.py).
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

_SET = os.environ.get("BAND_REFCORE_PYTHON", "").strip()
#: the reference core venv's python, or a path that does not exist when unset
REFCORE_PYTHON = Path(_SET) if _SET else Path("BAND_REFCORE_PYTHON-is-unset")

#: skip marker for the tests that run the reference core
requires_refcore = pytest.mark.skipif(
    not REFCORE_PYTHON.exists(),
    reason=(
        f"reference band-sdk-core 6.1.1 venv not found (BAND_REFCORE_PYTHON={_SET or 'unset'}); "
        "`make test` creates it, or run `make refcore` and export BAND_REFCORE_PYTHON"
    ),
)


def run_reference(script: str, data: Any) -> Any:
    """Run ``script`` under the reference interpreter with ``data`` as JSON on stdin; its JSON."""
    # -I: the installed reference is imported, never this checkout's band_sdk_core
    done = subprocess.run(
        [str(REFCORE_PYTHON), "-I", "-c", script],
        input=json.dumps(data),
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, f"reference interpreter failed:\n{done.stderr}"
    return json.loads(done.stdout)
