"""The benchmark suite and compare.py write results that the dashboard reads (tiny time budget)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from bandtest.process import run_ok
from dashboard_page import ROOT, render

from band_sdk_core import _compat


def _compiled_topics() -> set[str]:
    return set() if not _compat.USING_EXTENSIONS else {m[1:-2] for m in _compat.COMPILED_MODULES}


def _run(*args: str | Path) -> None:
    """Run the interpreter with ``args`` in the checkout; fail with its output."""
    # a pytest-xdist worker's variables would make the child pytest switch pytest-benchmark off
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    run_ok([sys.executable, *args], cwd=ROOT, env=env, timeout=300)


def test_suite_and_compare_results_make_a_dashboard(tmp_path: Path) -> None:
    suite, compare = tmp_path / "run.json", tmp_path / "run.compare.json"
    # -I: the installed package (with its compiled modules), not the checkout's sources
    _run(
        "-I", "-m", "pytest", ROOT / "bench", "-q", "-p", "no:cacheprovider",
        "--benchmark-max-time=0.002", "--benchmark-min-rounds=1",
        "--benchmark-min-time=0.00001", f"--benchmark-json={suite}",
    )  # fmt: skip
    _run(ROOT / "bench" / "compare.py", "--rounds", "1", "--seconds", "0.01", "--json", compare)

    benchmarks = json.loads(suite.read_text())["benchmarks"]
    compared = json.loads(compare.read_text())
    operations = list(compared["ops_per_s"]["c"])
    # bench/operations.py: 13 operations, and the 9 sized registry rows at 3 sizes each
    assert len(operations) == 40
    seen = {(b["extra_info"]["operation"], b["extra_info"]["implementation"]) for b in benchmarks}
    topics = {b["extra_info"]["operation"]: b["extra_info"]["topic"] for b in benchmarks}
    assert set(topics) == set(operations)
    compiled = _compiled_topics()
    assert seen == {(op, "py") for op in operations} | {
        (op, "c") for op in operations if topics[op] in compiled
    }
    for bench in benchmarks:
        info = bench["extra_info"]
        assert {"machine", "python", "implementation", "commit"} <= set(info)
        assert info["python"].startswith("CPython 3.") and info["commit"]
        assert bench["stats"]["ops"] > 0
        assert "data" not in bench["stats"]  # raw timings dropped: results stay small

    assert compared["baseline"] == "py" and set(compared["ops_per_s"]) == {"c", "py"}
    assert compared["implementations"]["c"]["using_extensions"] is True
    assert compared["implementations"]["py"]["using_extensions"] is False
    ratios = compared["ratios"]["c/py"]
    for op in operations:
        assert ratios[op] == compared["ops_per_s"]["c"][op] / compared["ops_per_s"]["py"][op]

    page = render([suite, compare], tmp_path / "dashboard.html")
    assert len(page.find("svg", "bar-chart")) == len(operations)
    assert {a["data-impl"] for a in page.find("rect", "bar")} == {"c", "py"}
    assert "measured by bench/compare.py" in page.markdown
