"""The official band-sdk 6.0.1 / band-mcp 2.2.7 venv the compatibility tests run.

Its interpreter comes from ``BAND_REFSDK_PYTHON`` only (bandtest/refvenv.py).
"""

from __future__ import annotations

import os
import subprocess

from bandtest.refvenv import reference_python

#: the official SDK venv's python, and the skip marker for the tests that run it
REFSDK_PYTHON, requires_refsdk = reference_python(
    "BAND_REFSDK_PYTHON", "official band-sdk 6.0.1", "refsdk"
)


def run_refsdk(code: str) -> str:
    """Run ``code`` under the official venv's python, away from this checkout; its stdout."""
    done = subprocess.run(
        [str(REFSDK_PYTHON), "-c", code],
        capture_output=True,
        text=True,
        timeout=120,
        cwd="/",
        env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"},
        check=True,
    )
    return done.stdout
