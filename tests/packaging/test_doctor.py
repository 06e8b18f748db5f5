"""``band doctor`` reports the install, the active core and why, the extras and conflicts."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path

import band
import band_sdk_core
from band_sdk_core import _compat

BAND = shutil.which("band", path=str(Path(sys.executable).parent))


def _doctor(**env: str) -> subprocess.CompletedProcess[str]:
    assert BAND is not None, "the band console script is not installed next to this python"
    return subprocess.run(
        [BAND, "doctor"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={**os.environ, **env},
    )


def test_a_clean_install_reports_no_conflict() -> None:
    done = _doctor()
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert (
        lines[0] == f"band-open-sdk {band.__version__} (band_sdk_core {band_sdk_core.__version__})"
    )
    assert f"  {band.__file__}" in lines and f"  {band_sdk_core.__file__}" in lines
    for extra in ("mcp", "acp", "anthropic", "openai"):  # the dev install has every extra
        assert f"  [{extra}] installed" in lines
    assert lines[-1] == "conflicts: none"


def test_it_says_which_core_is_active_and_why() -> None:
    if _compat.USING_EXTENSIONS:  # make test requires the compiled core
        core = next(line for line in _doctor().stdout.splitlines() if line.startswith("core:"))
        # as many as the build put in the package (not a written-down count: it went stale)
        package = Path(band_sdk_core.__file__ or "").parent
        built = [p for p in package.iterdir() if p.name.endswith(tuple(EXTENSION_SUFFIXES))]
        assert core.startswith(f"core: compiled: {len(built)} Cython modules")
    forced = _doctor(BAND_SDK_CORE_NO_EXTENSIONS="1", BAND_SDK_CORE_REQUIRE_EXTENSIONS="")
    assert "core: pure Python: BAND_SDK_CORE_NO_EXTENSIONS is set" in forced.stdout.splitlines()
