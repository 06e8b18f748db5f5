"""bench/dashboard.py renders the committed result fixtures into the expected page and table."""

from __future__ import annotations

import html
import json
import math
import re
from pathlib import Path

from dashboard_page import FIXTURES, Rendered, render, run_dashboard

LATEST = "3333333ccccc"
COMMITS = ["1111111aaaaa", "2222222bbbbb", LATEST]


def _compare(commit: str) -> dict[str, dict[str, float]]:
    """ops/s per implementation and operation of a commit's compare.py fixture."""
    (path,) = FIXTURES.glob(f"{commit}-*.compare.json")
    return json.loads(path.read_text())["ops_per_s"]  # type: ignore[no-any-return]


def _pytest_ops(commit: str) -> dict[tuple[str, str], float]:
    """ops/s per (operation, implementation) of a commit's pytest-benchmark fixture."""
    (path,) = FIXTURES.glob(f"{commit}-*Z.json")
    benchmarks = json.loads(path.read_text())["benchmarks"]
    return {
        (b["extra_info"]["operation"], b["extra_info"]["implementation"]): b["stats"]["ops"]
        for b in benchmarks
    }


OPS = list(_compare(LATEST)["c"])


def _bars(page: Rendered) -> dict[tuple[str, str], float]:
    """(chart id, implementation) -> bar value, checking bars sit inside their chart."""
    bars: dict[tuple[str, str], float] = {}
    chart = ""
    for tag, attrs in page.elements:
        if tag == "svg" and "bar-chart" in attrs.get("class", ""):
            chart = attrs["aria-labelledby"].split()[0]
        elif tag == "rect" and attrs.get("class") == "bar":
            bars[chart, attrs["data-impl"]] = float(attrs["data-value"])
    return bars


def test_every_operation_has_a_bar_chart_of_c_py_and_ref(page: Rendered) -> None:
    latest = _compare(LATEST)
    assert len(OPS) == 13
    assert len(page.find("svg", "bar-chart")) == len(OPS)
    bars = _bars(page)
    assert len(bars) == 3 * len(OPS)
    for n, op in enumerate(OPS):
        assert f">{html.escape(op)}</h2>" in page.html
        for impl in ("c", "py", "ref"):
            # the latest commit has both kinds of file: the side-by-side compare.py run wins
            assert bars[f"bar-{n}-t", impl] == round(latest[impl][op], 1)
    assert bars["bar-0-t", "c"] != round(_pytest_ops(LATEST)[OPS[0], "c"], 1)


def test_bar_lengths_follow_the_values(page: Rendered) -> None:
    rects = page.find("rect", "bar")
    for c, py, ref in zip(rects[0::3], rects[1::3], rects[2::3], strict=True):
        assert [c["data-impl"], py["data-impl"], ref["data-impl"]] == ["c", "py", "ref"]
        for bar in (py, ref):
            want = float(bar["data-value"]) / float(c["data-value"])
            got = float(bar["width"]) / float(c["width"])
            assert math.isclose(got, want, rel_tol=0.01)


def _in_charts(page: Rendered, cls: str) -> list[tuple[str, dict[str, str]]]:
    """The elements inside the ``svg.<cls>`` charts."""
    out, inside = [], False
    for tag, attrs in page.elements:
        if tag == "svg":
            inside = cls in attrs.get("class", "").split()
        elif inside:
            out.append((tag, attrs))
    return out


def test_line_chart_over_commits(page: Rendered) -> None:
    assert len(page.find("svg", "line-chart")) == len(OPS)
    inside = _in_charts(page, "line-chart")
    series = [a for tag, a in inside if a.get("class") == "series"]
    assert len(series) == 3 * len(OPS)
    points = {s["data-impl"]: len(re.findall(r"[ML]", s["d"])) for s in series[:3]}
    # ref was measured (compare.py --against) for the two latest commits only
    assert points == {"c": 3, "py": 3, "ref": 2}
    markers = [a for tag, a in inside if a.get("class") == "point"]
    assert len(markers) == (3 + 3 + 2) * len(OPS)
    labels = [m.start() for m in (re.search(f">{c[:7]}</text>", page.html) for c in COMMITS) if m]
    assert len(labels) == 3 and labels == sorted(labels)  # oldest commit first
    # each commit's date under its hash
    assert ">11-30</text>" in page.html and ">12-02</text>" in page.html


def test_summary_table_and_markdown_numbers(page: Rendered) -> None:
    latest = _compare(LATEST)
    before = _compare("2222222bbbbb")
    lines = page.markdown.splitlines()
    assert lines[0] == f"### band_sdk_core benchmarks: commit `{LATEST}`"
    header = "| operation | c ops/s | py ops/s | ref ops/s | c/ref | py/ref | c vs `2222222bbbbb` |"
    rows = lines[lines.index(header) + 2 :]
    assert len(rows) == len(OPS) + 1
    for op, row in zip(OPS, rows, strict=False):
        c, py, ref = (latest[i][op] for i in ("c", "py", "ref"))
        change = (c / before["c"][op] - 1) * 100
        # a compiled row below target (bench/thresholds.py: c/ref 1.0x) is marked
        mark = " ▼ short" if c / ref < 1.0 else ""
        assert row == (
            f"| {op} | {c:,.0f} | {py:,.0f} | {ref:,.0f} | {c / ref:.2f}x{mark} "
            f"| {py / ref:.2f}x | {change:+.1f}% |"
        )
        assert f"<td>{c:,.0f}</td>" in page.html
    geo = [
        math.exp(sum(math.log(latest[i][op] / latest["ref"][op]) for op in OPS) / len(OPS))
        for i in ("c", "py")
    ]
    assert rows[-1] == f"| **geometric mean** |  |  |  | {geo[0]:.2f}x | {geo[1]:.2f}x |  |"
    assert f"<td>{geo[0]:.2f}x</td><td>{geo[1]:.2f}x</td>" in page.html
    assert f"Geometric mean: c/ref **{geo[0]:.2f}x**, py/ref **{geo[1]:.2f}x**" in page.markdown


def test_page_is_self_contained_and_accessible(page: Rendered) -> None:
    assert page.html.startswith("<!doctype html>")
    assert page.find("html")[0]["lang"] == "en"
    assert not page.find("script") and not page.find("link") and not page.find("img")
    for _, attrs in page.elements:
        for name in ("src", "href"):
            assert not attrs.get(name, "#").startswith(("http:", "https:", "//")), attrs
    assert "url(" not in page.html and "@import" not in page.html
    ids = {attrs["id"] for _, attrs in page.elements if "id" in attrs}
    charts = page.find("svg", "chart")
    assert len(charts) == 2 * len(OPS) + 1  # the headline's ratios over commits, then the detail
    for chart in charts:
        assert chart["role"] == "img"
        title, desc = chart["aria-labelledby"].split()
        assert {title, desc} <= ids
        text = re.search(f'<desc id="{desc}">([^<]+)</desc>', page.html)
        assert text
        assert "ops/s" in text.group(1) or "1.00x line drawn" in text.group(1)
    assert "c 170,862; py 166,022; ref 189,321" in page.html  # the first bar chart's alternative
    assert all(th.get("scope") in ("col", "row") for th in page.find("th"))
    assert len(page.find("details")) == len(OPS)  # a data table behind every chart pair


def test_one_commit_has_bars_and_no_line_chart(tmp_path: Path) -> None:
    files = sorted(FIXTURES.glob(f"{LATEST}-*.json"))
    page = render(files, tmp_path / "one.html")
    assert len(page.find("svg", "bar-chart")) == len(OPS)
    assert not page.find("svg", "line-chart")
    assert {a["data-impl"] for a in page.find("rect", "bar")} == {"c", "py", "ref"}
    assert "c vs" not in page.markdown


def test_pytest_benchmark_results_alone_compare_c_with_py(tmp_path: Path) -> None:
    files = sorted(FIXTURES.glob("1111111aaaaa-*.json"))
    page = render(files, tmp_path / "pytest.html")
    ops = _pytest_ops("1111111aaaaa")
    assert {a["data-impl"] for a in page.find("rect", "bar")} == {"c", "py"}
    bars = _bars(page)
    for n, op in enumerate(OPS):
        assert bars[f"bar-{n}-t", "c"] == round(ops[op, "c"], 1)
    row = next(line for line in page.markdown.splitlines() if line.startswith(f"| {OPS[0]} |"))
    c, py = ops[OPS[0], "c"], ops[OPS[0], "py"]
    assert c / py < 1.0  # compiled slower than pure Python in this fixture: marked short
    assert row == f"| {OPS[0]} | {c:,.0f} | {py:,.0f} | {c / py:.2f}x ▼ short |"
    assert "measured by pytest-benchmark" in page.markdown


def test_a_file_that_is_not_a_result_is_a_clear_error(tmp_path: Path) -> None:
    other = tmp_path / "other.json"
    other.write_text('{"hello": 1}')
    done = run_dashboard(other, "-o", tmp_path / "x.html")
    assert done.returncode == 2
    assert "neither pytest-benchmark JSON nor bench/compare.py --json output" in done.stderr
    assert not (tmp_path / "x.html").exists()
    done = run_dashboard(other)
    assert done.returncode == 2 and "give -o PAGE.html, --markdown, or both" in done.stderr


def test_one_make_bench_run_is_one_point_even_if_files_changed_midway(tmp_path: Path) -> None:
    # make bench's pytest-benchmark JSON saw a clean checkout, its compare.py JSON a dirty one
    (suite,) = FIXTURES.glob(f"{LATEST}-*Z.json")
    (compared,) = FIXTURES.glob(f"{LATEST}-*.compare.json")
    data = json.loads(compared.read_text())
    data["commit"] = f"{LATEST}-dirty"
    dirty = tmp_path / "dirty.compare.json"
    dirty.write_text(json.dumps(data))
    page = render([suite, dirty], tmp_path / "one.html")
    assert "1 commit(s) from 2 result(s)" in page.html
    assert not page.find("svg", "line-chart")
    assert page.markdown.startswith(f"### band_sdk_core benchmarks: commit `{LATEST}-dirty`")
    assert {a["data-impl"] for a in page.find("rect", "bar")} == {"c", "py", "ref"}
