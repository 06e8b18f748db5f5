"""Smoke test of the e2e bench harness (bench/e2e): one tiny run of our SDK, end to end."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

RUN = Path(__file__).resolve().parents[2] / "bench" / "e2e" / "run.py"


def test_e2e_bench_runs_and_reports(tmp_path: Path) -> None:
    out = tmp_path / "e2e.json"
    args = ["--only", "c", "-n", "1", "-m", "2", "-k", "2", "--rounds", "1", "--settle", "0.2"]
    proc = subprocess.run(
        [sys.executable, str(RUN), *args, "--tmpdir", str(tmp_path), "--json", str(out)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "| ours, compiled core |" in proc.stdout
    [row] = json.loads(out.read_text())["rows"]
    assert row["variant"] == "c" and row["answered"] == 1 * 2 * 2
    assert row["lost"] == 0 and row["dup"] == 0
    assert row["msgs_per_s"] > 0 and 0 < row["p50_ms"] <= row["p99_ms"]
    assert row["idle_agent_kib"] > 10_000  # a Python process: megabytes, not nothing
