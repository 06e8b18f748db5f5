"""The kept history (bench/history.py append and check) and the dashboard's headline built on it."""

from __future__ import annotations

import json
import math
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
from dashboard_page import ROOT, Rendered, render, run_dashboard, run_script
from synthetic import COMMITS, SHORT_ROW, compare_record, e2e_record, names, write_history

HISTORY = ROOT / "bench" / "history.py"


def _history(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return run_script(HISTORY, *args)


def _files(tmp_path: Path) -> list[Path]:
    """Each synthetic commit's compare.py record as its own result file, oldest first."""
    ops = names()
    paths = []
    for n in range(len(COMMITS)):
        path = tmp_path / f"{COMMITS[n]}.compare.json"
        path.write_text(json.dumps(compare_record(n, ops), indent=2))
        paths.append(path)
    return paths


def _geo(record: dict[str, Any], num: str, den: str) -> float:
    ops = record["ops_per_s"]
    logs = [math.log(ops[num][op] / ops[den][op]) for op in ops[num]]
    return math.exp(sum(logs) / len(logs))


def test_append_adds_each_run_once_and_refuses_what_is_not_a_result(tmp_path: Path) -> None:
    files = _files(tmp_path)
    kept = tmp_path / "kept" / "history.jsonl"
    done = _history("append", kept, *files[:3])
    assert done.returncode == 0, done.stderr
    assert "3 run(s) added" in done.stderr
    done = _history("append", kept, *files[:4])  # a re-run of the workflow step
    assert done.returncode == 0 and "1 run(s) added" in done.stderr
    lines = kept.read_text().splitlines()
    assert [json.loads(line)["commit"] for line in lines] == COMMITS[:4]
    # each line is the result file's record as written: the same fields, every round kept
    assert json.loads(lines[0]) == json.loads(files[0].read_text())

    other = tmp_path / "other.json"
    other.write_text('{"hello": 1}')
    done = _history("append", kept, files[4], other)
    assert done.returncode == 2
    assert "neither pytest-benchmark JSON nor bench/compare.py --json output" in done.stderr
    assert kept.read_text().splitlines() == lines  # nothing written


def test_check_fails_on_a_regression_and_passes_otherwise(tmp_path: Path) -> None:
    files = _files(tmp_path)
    kept = tmp_path / "history.jsonl"
    assert _history("append", kept, *files[:5]).returncode == 0

    done = _history("check", "--history", kept, files[5])
    assert done.returncode == 1, done.stdout + done.stderr
    assert "### Benchmark regressions (a ratio more than 25% below its median" in done.stdout
    assert "(once 3 are kept), in its best round too" in done.stdout
    (line,) = [x for x in done.stdout.splitlines() if x.startswith("- ")]
    assert line.startswith(f"- `{COMMITS[5]}` {SHORT_ROW}: c/ref 0.7")

    # the fifth run against the four before it: no ratio fell
    before = tmp_path / "before.jsonl"
    assert _history("append", before, *files[:4]).returncode == 0
    done = _history("check", "--history", before, files[4])
    assert done.returncode == 0, done.stdout
    assert done.stdout.startswith("No benchmark regression") and "4 run(s)" in done.stdout

    # the same fall after only two kept runs: their median is still their noise
    young = tmp_path / "young.jsonl"
    assert _history("append", young, *files[:2]).returncode == 0
    done = _history("check", "--history", young, files[5])
    assert done.returncode == 0 and done.stdout.startswith("No benchmark regression")

    # a ref without history (the branch does not exist yet): nothing to compare with, no failure
    done = _history("check", "--history-ref", "refs/heads/no-such-bench-history", files[5])
    assert done.returncode == 0 and "has no history yet" in done.stdout


@pytest.fixture
def kept_page(tmp_path: Path) -> Rendered:
    """The dashboard of a six-commit history file plus the latest end-to-end result file."""
    kept = tmp_path / "history.jsonl"
    write_history(kept)
    e2e = tmp_path / "latest.e2e.json"
    e2e.write_text(json.dumps(e2e_record()))
    return render([Path("--history"), kept, e2e], tmp_path / "dashboard.html")


def test_headline_opens_the_page_with_the_geometric_means(kept_page: Rendered) -> None:
    records = [json.loads(x) for x in (kept_page.path.parent / "history.jsonl").open()]
    latest = records[len(COMMITS) - 1]
    body = kept_page.html.split("<main>", 1)[1]
    sections = re.findall(r'<section id="([\w-]+)"', body)
    assert sections[:4] == ["headline", "short", "regressions-s", "e2e"]
    assert sections.index("detail") > sections.index("scale")
    tiles = {
        t["data-ratio"]: float(t["data-value"])
        for t in kept_page.find("li", "tile")
        if "data-ratio" in t
    }
    assert tiles.keys() == {"c/ref", "py/ref", "c/py"}
    for key, value in tiles.items():
        num, den = key.split("/")
        assert value == pytest.approx(_geo(latest, num, den), rel=1e-3)
    assert f"{len(COMMITS)} commits since 2026-11-25" in kept_page.html
    # the ratios over commits: three lines on a log scale with the 1.0x line drawn
    (chart,) = kept_page.find("svg", "ratio-chart")
    assert chart["data-y-scale"] == "log"
    assert 'class="par"' in kept_page.html and ">1.00x</text>" in kept_page.html
    assert f"Geometric mean: c/ref **{tiles['c/ref']:.2f}x**" in kept_page.markdown


def test_a_row_short_of_target_and_the_regression_are_marked(kept_page: Rendered) -> None:
    (short,) = kept_page.find("li", "shortfall")
    assert short["data-operation"] == SHORT_ROW and short["data-ratio"] == "c/ref"
    assert "Short of target: 1 row(s)" in kept_page.html
    # in the table, the one short cell is that row's c/ref
    row = re.search(
        r'<tr class="short"><th scope="row"><a href="[^"]+">([^<]+)</a>', kept_page.html
    )
    assert row and row.group(1) == SHORT_ROW
    assert len(kept_page.find("td", "short")) == 1
    assert f"{SHORT_ROW} (c/ref 0.7" in kept_page.markdown
    # the last commit regressed: listed, and marked on the chart at its position
    assert len(kept_page.find("li", "regression-item")) == 1
    assert "Regressions: 1</h3>" in kept_page.html
    (mark,) = kept_page.find("g", "regression")
    assert mark["data-index"] == str(len(COMMITS) - 1)
    assert f"Regressions: {SHORT_ROW}: c/ref 0.7" in kept_page.markdown


def test_size_axes_are_logarithmic(kept_page: Rendered) -> None:
    charts = kept_page.find("svg", "size-chart")
    # one chart per operation family measured at several sizes ("<family> @<size>")
    families = {op.rpartition(" @")[0] for op in names() if " @" in op}
    assert len(charts) == len(families) >= 4
    assert all(c["data-x-scale"] == "log" and c["data-y-scale"] == "log" for c in charts)
    xs: dict[int, list[float]] = {}
    for tag, attrs in kept_page.elements:  # c's markers are circles: their centre is cx
        if tag == "circle" and attrs.get("class") == "point" and "data-size" in attrs:
            xs.setdefault(int(attrs["data-size"]), []).append(float(attrs["cx"]))
    assert sorted(xs) == [100, 10_000, 100_000]
    x100, x10k, x100k = (xs[s][0] for s in (100, 10_000, 100_000))
    # 100 -> 10,000 is two decades, 10,000 -> 100,000 one: twice the distance
    assert (x10k - x100) == pytest.approx(2 * (x100k - x10k), rel=0.01)


def test_end_to_end_headline_against_the_official_sdk(kept_page: Rendered) -> None:
    record = e2e_record()
    rows = {r["variant"]: r for r in record["rows"]}
    tiles = {
        t["data-metric"]: float(t["data-value"])
        for t in kept_page.find("li", "tile")
        if t.get("data-bench") == "e2e"
    }
    for metric in ("msgs_per_s", "p99_ms", "agent_cpu_ms", "per_room_kib"):
        assert tiles[metric] == pytest.approx(rows["c"][metric] / rows["ref"][metric], rel=1e-3)
    assert len(kept_page.find("svg", "e2e-chart")) == 4
    noise = [a for tag, a in kept_page.elements if tag == "g" and a.get("class") == "noise"]
    msgs = [n for n in noise if n["data-min"] == f"{rows['c']['msgs_per_s'] * 0.9:.1f}"]
    assert msgs and msgs[0]["data-max"] == f"{rows['c']['msgs_per_s'] * 1.1:.1f}"
    # the scale run from the history file too
    assert len(kept_page.find("svg", "scale-chart")) == 5


def test_dashboard_without_the_history_branch_says_how_to_get_it(tmp_path: Path) -> None:
    files = _files(tmp_path)
    done = run_dashboard(
        "--history-ref", "refs/heads/no-such-bench-history", files[0], "--markdown"
    )
    assert done.returncode == 0, done.stderr
    assert "git fetch origin bench-history" in done.stderr
    done = run_dashboard("--markdown")
    assert done.returncode == 0 and done.stdout == "No benchmark results.\n"
    done = run_dashboard("-o", tmp_path / "empty.html")
    assert done.returncode == 2 and "run `make bench` first" in done.stderr


def test_end_to_end_ratios_over_runs(tmp_path: Path) -> None:
    kept = tmp_path / "history.jsonl"
    write_history(kept)
    earlier = e2e_record()
    earlier["commit"], earlier["datetime"] = COMMITS[2], "2026-11-27T10:00:00+00:00"
    for row in earlier["rows"]:
        if row["variant"] == "c":
            row["msgs_per_s"] = 148.0  # 2.00x the official 74.0, then 3.38x at the latest
    older = tmp_path / "older.e2e.json"
    older.write_text(json.dumps(earlier))
    page = render([Path("--history"), kept, older], tmp_path / "dashboard.html")
    (chart,) = page.find("svg", "e2e-history")
    assert chart["data-y-scale"] == "log"
    desc = re.search(r'<desc id="e2e-history-d">([^<]+)</desc>', page.html)
    assert desc and "msgs/s from 2.00x to 3.38x" in desc.group(1)
    assert "oldest run first" in desc.group(1)
    assert "2 run(s) kept." in page.html
    assert (
        "End to end, ours (compiled) / official SDK: msgs/s 3.38x, p99 latency 0.27x, "
        "agent CPU 0.09x, RSS per room 0.32x." in page.markdown
    )
    assert "Scale, ours (compiled) / official SDK: msgs/s 4.15x" in page.markdown


def test_the_rows_issue_40_named_are_held_to_their_own_target(tmp_path: Path) -> None:
    # the named rows must reach 1.2x the reference; every other row 1.0x
    record = compare_record(0, names())
    named = "claim ack completion churn (5 calls) @100,000"
    other = "retry exhausted churn @100,000"
    for op in (named, other):
        for impl in ("c", "ref"):
            record["rounds_ops_per_s"][impl][op] = [1.1e6 if impl == "c" else 1e6] * 3
            record["ops_per_s"][impl][op] = 1.1e6 if impl == "c" else 1e6
        record["ratios"]["c/ref"][op] = 1.1
    path = tmp_path / "one.compare.json"
    path.write_text(json.dumps(record))
    page = render([path], tmp_path / "dashboard.html")
    (short,) = page.find("li", "shortfall")
    assert short["data-operation"] == named
    text = " ".join(re.sub(r"<[^>]+>", "", page.html).split())
    assert f"{named}: c/ref 1.10x (target 1.20x)" in text
    assert "1.20x on claim ack completion churn rows" in page.html
