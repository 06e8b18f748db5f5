"""bench/compare.py --against an interpreter without the reference core: a clear error, no run."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

from bandtest.refsdk import REFSDK_PYTHON, requires_refsdk
from dashboard_page import ROOT

COMPARE = ROOT / "bench" / "compare.py"


def _compare(against: str | Path, out: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            sys.executable,
            str(COMPARE),
            "--against",
            str(against),
            "--rounds",
            "1",
            "--json",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@requires_refsdk
def test_the_official_sdk_venv_is_refused_naming_its_core_and_make_refcore(tmp_path: Path) -> None:
    # the venv `make test` creates: band-sdk 6.0.1 pins band-sdk-core 2.8.0 (no guarded_claim)
    out = tmp_path / "out.json"
    done = _compare(REFSDK_PYTHON, out)
    assert done.returncode == 1
    assert done.stderr.strip() == (
        f"compare.py: --against {REFSDK_PYTHON} has band-sdk-core 2.8.0, not the reference "
        "6.1.1 the benchmarks compare with; `make refcore` builds a venv with "
        f"band-sdk-core==6.1.1 at {_refcore()}, then run "
        f'`make bench BENCH_ARGS="--against {_refcore()}/bin/python"`'
    )
    assert "round 1" not in done.stderr and not out.exists()  # refused before measuring


def test_an_interpreter_without_band_sdk_core_is_refused(tmp_path: Path) -> None:
    # this interpreter with its site-packages switched off: no band_sdk_core to import
    bare = tmp_path / "bare-python"
    bare.write_text(f'#!/bin/sh\nexec "{sys.executable}" -S "$@"\n')
    bare.chmod(bare.stat().st_mode | stat.S_IXUSR)
    done = _compare(bare, tmp_path / "out.json")
    assert done.returncode == 1
    assert f"compare.py: --against {bare} has no band_sdk_core (ModuleNotFoundError" in done.stderr
    assert "`make refcore` builds a venv with band-sdk-core==6.1.1" in done.stderr
    assert "Traceback" not in done.stderr

    done = _compare(tmp_path / "missing" / "python", tmp_path / "out.json")
    assert done.returncode == 1
    assert "missing/python: cannot run it" in done.stderr and "`make refcore`" in done.stderr


def _refcore() -> str:
    return os.path.join(os.environ.get("TMPDIR") or "/tmp", "band-refcore-venv")
