"""The reference core, band-sdk-core 6.1.1, run in its own interpreter for differential tests.

Its interpreter comes from ``BAND_REFCORE_PYTHON`` only (bandtest/refvenv.py).
"""

from __future__ import annotations

import json
import subprocess
from typing import Any

from bandtest.refvenv import reference_python

#: the reference core venv's python, and the skip marker for the tests that run it
REFCORE_PYTHON, requires_refcore = reference_python(
    "BAND_REFCORE_PYTHON", "reference band-sdk-core 6.1.1", "refcore"
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
