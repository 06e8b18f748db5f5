"""Smoke test of the e2e bench harness (bench/e2e): one tiny run of our SDK, end to end."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from bandtest.process import run_ok

RUN = Path(__file__).resolve().parents[2] / "bench" / "e2e" / "run.py"


def test_e2e_bench_runs_and_reports(tmp_path: Path) -> None:
    out = tmp_path / "e2e.json"
    args = ["--only", "c", "-n", "1", "-m", "2", "-k", "2", "--rounds", "1", "--settle", "0.2"]
    argv = [sys.executable, RUN, *args, "--tmpdir", tmp_path, "--json", out]
    proc = run_ok(argv, cwd=tmp_path, timeout=120)
    assert "| ours, compiled core |" in proc.stdout
    [row] = json.loads(out.read_text())["rows"]
    assert row["variant"] == "c" and row["answered"] == 1 * 2 * 2
    assert row["lost"] == 0 and row["dup"] == 0
    assert row["msgs_per_s"] > 0 and 0 < row["p50_ms"] <= row["p99_ms"]
    assert row["idle_agent_kib"] > 10_000  # a Python process: megabytes, not nothing
