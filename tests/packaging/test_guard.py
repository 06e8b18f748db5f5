"""The guard: importing band or band_sdk_core beside the official distributions fails at once."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from bandtest.refsdk import REFSDK_PYTHON, requires_refsdk

from band_sdk_core import _guard


def _site(python: Path) -> str:
    """The site-packages directory of ``python``'s environment."""
    code = "import sysconfig; print(sysconfig.get_paths()['purelib'])"
    return subprocess.run(
        [str(python), "-I", "-c", code], capture_output=True, text=True, check=True
    ).stdout.strip()


def test_this_environment_has_no_official_distribution() -> None:
    assert _guard.official_distributions() == []


@requires_refsdk
def test_it_finds_the_official_distributions_by_their_metadata() -> None:
    site = _site(REFSDK_PYTHON)
    found = _guard.official_distributions([site, "/nonexistent"])
    # band-client-rest and band-mcp install other packages (band_rest, band_mcp): not conflicts
    assert sorted(found) == [("band-sdk", "6.0.1", site), ("band-sdk-core", "2.8.0", site)]


@requires_refsdk
@pytest.mark.parametrize("module", ["band", "band_sdk_core"])
def test_importing_beside_them_raises_one_line_with_the_fix(module: str) -> None:
    site = _site(REFSDK_PYTHON)
    code = f"import sys; sys.path.append({site!r}); import {module}"
    done = subprocess.run(
        [sys.executable, "-I", "-c", code], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 1
    last = done.stderr.strip().splitlines()[-1]
    assert last == (
        "ImportError: band-open-sdk cannot be imported next to the official band-sdk 6.0.1, "
        f"band-sdk-core 2.8.0 (installed in {site}): both install the 'band' and "
        "'band_sdk_core' packages, so the files on disk are a mix of the two. Fix: pip "
        "uninstall -y band-sdk band-sdk-core band-open-sdk && pip install band-open-sdk"
    )
