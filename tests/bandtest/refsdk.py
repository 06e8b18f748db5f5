"""The official band-sdk 6.0.1 / band-mcp 2.2.7 venv the compatibility tests run.

Its interpreter comes from ``BAND_REFSDK_PYTHON`` only (``make test`` creates the venv
and sets it); no machine path is assumed. Without it those tests skip with a reason that
says how to get it, and under ``CI`` a skip fails the run (tests/conftest.py).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

_SET = os.environ.get("BAND_REFSDK_PYTHON", "").strip()
#: the official SDK venv's python, or a path that does not exist when unset
REFSDK_PYTHON = Path(_SET) if _SET else Path("BAND_REFSDK_PYTHON-is-unset")

#: skip marker for the tests that run the official packages
requires_refsdk = pytest.mark.skipif(
    not REFSDK_PYTHON.exists(),
    reason=(
        f"official band-sdk 6.0.1 venv not found (BAND_REFSDK_PYTHON={_SET or 'unset'}); "
        "`make test` creates it, or run `make refsdk` and export BAND_REFSDK_PYTHON"
    ),
)
