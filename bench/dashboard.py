"""Benchmark results as a static HTML page (inline SVG charts) and a Markdown summary.

    python bench/dashboard.py bench/results/*.json -o bench/dashboard.html
    python bench/dashboard.py bench/results/*.json --markdown >> "$GITHUB_STEP_SUMMARY"

Reads both kinds of result file that ``make bench`` writes: pytest-benchmark's
JSON (each benchmark's ``extra_info`` names operation, implementation, commit,
machine and python) and ``bench/compare.py --json`` (``c``, ``py`` and, with
``--against``, ``ref`` measured side by side). Per commit, a compare.py run is
preferred over a pytest-benchmark run, because its implementations, the
reference included, were measured interleaved by one method. The page needs no
server and no network: open the file.
"""

from __future__ import annotations

import argparse
import html
import json
import math
import re
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from operations import NAMES

COMPARE = "bench/compare.py"
PYTEST = "pytest-benchmark"
SOURCE_NOTES = {
    COMPARE: "measured by bench/compare.py, implementations interleaved in one run, best round",
    PYTEST: "measured by pytest-benchmark, 1 / mean round time",
}
IMPL_ORDER = ("c", "py", "ref")
IMPL_LABELS = {"c": "c (compiled)", "py": "py (pure Python)", "ref": "ref (band-sdk-core)"}
# Okabe-Ito hues (colour-blind safe), each >= 3:1 against white; dashes and markers also differ
STYLE = {
    "c": ("#0072B2", "", "circle"),
    "py": ("#C0392B", "7 4", "square"),
    "ref": ("#333333", "2 3", "diamond"),
}
FALLBACK_STYLE = ("#6A3D9A", "4 2 1 2", "circle")


class ResultError(ValueError):
    """A file that is not a band benchmark result."""


@dataclass
class Run:
    """One result file: ops/s per operation and implementation, with where it ran."""

    path: str
    source: str
    commit: str
    datetime: str
    machine: str
    pythons: dict[str, str]
    ops: dict[str, dict[str, float]] = field(default_factory=dict)  # operation -> impl -> ops/s


def load(path: str) -> Run:
    """Read one pytest-benchmark or compare.py JSON file."""
    try:
        data = json.loads(Path(path).read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise ResultError(f"{path}: cannot read benchmark JSON: {exc}") from exc
    if isinstance(data, dict) and "ops_per_s" in data:
        return _load_compare(path, data)
    if isinstance(data, dict) and isinstance(data.get("benchmarks"), list):
        return _load_pytest(path, data)
    raise ResultError(f"{path}: neither pytest-benchmark JSON nor bench/compare.py --json output")


def _load_compare(path: str, data: dict[str, Any]) -> Run:
    impls = data.get("implementations", {})
    run = Run(
        path=path,
        source=COMPARE,
        commit=str(data.get("commit") or Path(path).stem),
        datetime=str(data.get("datetime", "")),
        machine=str(data.get("machine", "")),
        pythons={name: str(info.get("python", "")) for name, info in impls.items()},
    )
    for impl, ops in data["ops_per_s"].items():
        for op, value in ops.items():
            run.ops.setdefault(op, {})[impl] = float(value)
    return run


def _load_pytest(path: str, data: dict[str, Any]) -> Run:
    commit_info = data.get("commit_info") or {}
    run = Run(
        path=path,
        source=PYTEST,
        commit=str(commit_info.get("id", ""))[:12] or Path(path).stem,
        datetime=str(data.get("datetime", "")),
        machine="",
        pythons={},
    )
    for bench in data["benchmarks"]:
        info = bench.get("extra_info") or {}
        if "operation" not in info or "implementation" not in info:
            raise ResultError(
                f"{path}: benchmark {bench.get('name')!r} has no operation in extra_info"
            )
        impl = str(info["implementation"])
        run.ops.setdefault(str(info["operation"]), {})[impl] = float(bench["stats"]["ops"])
        run.commit = str(info.get("commit") or run.commit)
        run.machine = str(info.get("machine") or run.machine)
        run.pythons[impl] = str(info.get("python", ""))
    return run


@dataclass
class Point:
    """One commit's numbers: from its latest preferred run."""

    commit: str
    run: Run


def history(runs: Iterable[Run]) -> list[Point]:
    """One point per commit, in time order; compare.py runs win over pytest-benchmark runs."""
    chosen: dict[str, Run] = {}
    first_seen: dict[str, str] = {}
    for run in sorted(runs, key=lambda r: r.datetime):
        first_seen.setdefault(run.commit, run.datetime)
        held = chosen.get(run.commit)
        if held is None or held.source == run.source or run.source == COMPARE:
            chosen[run.commit] = run
    order = sorted(chosen, key=lambda commit: first_seen[commit])
    return [Point(commit, chosen[commit]) for commit in order]


def operations(points: Sequence[Point]) -> list[str]:
    """Known operations in bench/operations.py order, then any others as first seen."""
    seen = {op for p in points for op in p.run.ops}
    extra = [op for p in points for op in p.run.ops if op not in NAMES]
    return [op for op in NAMES if op in seen] + list(dict.fromkeys(extra))


def implementations(points: Sequence[Point]) -> list[str]:
    """c, py, ref first, then any other implementation names."""
    seen = {impl for p in points for values in p.run.ops.values() for impl in values}
    return [i for i in IMPL_ORDER if i in seen] + sorted(seen - set(IMPL_ORDER))


def baseline(impls: Sequence[str]) -> str | None:
    """The ratio denominator: the reference when present, else pure Python."""
    return "ref" if "ref" in impls else "py" if "py" in impls else None


def short(value: float) -> str:
    """Compact number for axes: 1.2M, 350k, 0."""
    for div, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if value >= div:
            return f"{value / div:.3g}{suffix}"
    return f"{value:.3g}"


def full(value: float) -> str:
    """Number for tables and text: 1,234,567."""
    return f"{value:,.0f}"


def ticks(top: float, count: int = 4) -> list[float]:
    """Round axis ticks from 0 to at least ``top``."""
    if top <= 0:
        return [0.0, 1.0]
    raw = top / count
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
    return [i * step for i in range(math.ceil(top / step - 1e-9) + 1)]


def geomean(values: Sequence[float]) -> float:
    """Geometric mean of positive ratios."""
    return math.exp(sum(map(math.log, values)) / len(values))


# -- Markdown -------------------------------------------------------------------


def markdown(points: Sequence[Point]) -> str:
    """Summary table of the latest commit, with the change of ``c`` since the previous one."""
    if not points:
        return "No benchmark results.\n"
    latest = points[-1]
    impls = implementations([latest])
    base = baseline(impls)
    others = [i for i in impls if i != base] if base else []
    previous = points[-2] if len(points) > 1 else None
    lines = [
        f"### band_sdk_core benchmarks: commit `{latest.commit}`",
        "",
        f"Operations per second, higher is better. {_context(latest.run)}.",
        "",
    ]
    header = ["operation", *(f"{i} ops/s" for i in impls), *(f"{i}/{base}" for i in others)]
    if previous:
        header.append(f"c vs `{previous.commit}`")
    lines += ["| " + " | ".join(header) + " |", "|" + " --- |" * len(header)]
    logs: dict[str, list[float]] = {i: [] for i in others}
    for op in operations([latest]):
        values = latest.run.ops[op]
        row = [op, *(full(values[i]) if i in values else "n/a" for i in impls)]
        for i in others:
            if base and i in values and base in values:
                ratio = values[i] / values[base]
                logs[i].append(ratio)
                row.append(f"{ratio:.2f}x")
            else:
                row.append("n/a")
        if previous:
            before = previous.run.ops.get(op, {}).get("c")
            now = values.get("c")
            row.append(f"{(now / before - 1) * 100:+.1f}%" if before and now else "n/a")
        lines.append("| " + " | ".join(row) + " |")
    if others:
        geo = [f"{geomean(v):.2f}x" if v else "n/a" for v in logs.values()]
        tail = [""] if previous else []
        lines.append("| **geometric mean** | " + " | ".join([""] * len(impls) + geo + tail) + " |")
    return "\n".join(lines) + "\n"


def _context(run: Run) -> str:
    pythons = ", ".join(f"{i}: {p}" for i, p in sorted(run.pythons.items()) if p)
    parts = [run.machine, pythons, SOURCE_NOTES[run.source]]
    return "; ".join(p for p in parts if p)


# -- SVG charts -----------------------------------------------------------------


def _style(impl: str) -> tuple[str, str, str]:
    return STYLE.get(impl, FALLBACK_STYLE)


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


def bar_chart(chart_id: str, op: str, commit: str, values: dict[str, float]) -> str:
    """Horizontal bars of ops/s per implementation, each labelled with its value."""
    impls = [i for i in (*IMPL_ORDER, *sorted(set(values) - set(IMPL_ORDER))) if i in values]
    label_w, plot_w, bar_h, gap, top = 64, 340, 26, 12, 10
    axis = ticks(max(values.values()))
    scale = plot_w / axis[-1]
    height = top + len(impls) * (bar_h + gap) + 28
    width = label_w + plot_w + 90
    summary = "; ".join(f"{i} {full(values[i])}" for i in impls)
    out = [
        f'<svg class="chart bar-chart" role="img" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" aria-labelledby="{chart_id}-t {chart_id}-d">',
        f'<title id="{chart_id}-t">{_e(op)}: operations per second at commit {_e(commit)}</title>',
        f'<desc id="{chart_id}-d">Bar chart, higher is better: {_e(summary)} ops/s.</desc>',
    ]
    base_y = top + len(impls) * (bar_h + gap)
    for tick in axis:
        x = label_w + tick * scale
        out.append(
            f'<line class="grid" x1="{x:.1f}" x2="{x:.1f}" y1="{top - 4}" y2="{base_y}"/>'
            f'<text class="tick" x="{x:.1f}" y="{base_y + 16}" text-anchor="middle">'
            f"{short(tick)}</text>"
        )
    for n, impl in enumerate(impls):
        y = top + n * (bar_h + gap)
        w = max(values[impl] * scale, 1.0)
        color = _style(impl)[0]
        out.append(
            f'<text class="label" x="{label_w - 8}" y="{y + bar_h / 2 + 5:.1f}" '
            f'text-anchor="end">{_e(impl)}</text>'
            f'<rect class="bar" data-impl="{_e(impl)}" data-value="{values[impl]:.1f}" '
            f'x="{label_w}" y="{y}" width="{w:.1f}" height="{bar_h}" fill="{color}">'
            f"<title>{_e(impl)}: {full(values[impl])} ops/s</title></rect>"
            f'<text class="value" x="{label_w + w + 6:.1f}" y="{y + bar_h / 2 + 5:.1f}">'
            f"{short(values[impl])}</text>"
        )
    out.append("</svg>")
    return "".join(out)


def _marker(shape: str, x: float, y: float, color: str, tip: str, cls: str = "point") -> str:
    tip_el = f"<title>{_e(tip)}</title>" if tip else ""
    if shape == "square":
        return (
            f'<rect class="{cls}" x="{x - 4:.1f}" y="{y - 4:.1f}" width="8" height="8" '
            f'fill="{color}">{tip_el}</rect>'
        )
    if shape == "diamond":
        d = f"M{x:.1f} {y - 5:.1f}L{x + 5:.1f} {y:.1f}L{x:.1f} {y + 5:.1f}L{x - 5:.1f} {y:.1f}Z"
        return f'<path class="{cls}" d="{d}" fill="{color}">{tip_el}</path>'
    return (
        f'<circle class="{cls}" cx="{x:.1f}" cy="{y:.1f}" r="4.5" fill="{color}">{tip_el}</circle>'
    )


def line_chart(chart_id: str, op: str, points: Sequence[Point]) -> str:
    """Ops/s of each implementation over commits (oldest left)."""
    impls = implementations(points)
    series = {i: [p.run.ops.get(op, {}).get(i) for p in points] for i in impls}
    top_value = max((v for vals in series.values() for v in vals if v), default=1.0)
    axis = ticks(top_value)
    left, plot_w, plot_h, top = 56, 360, 160, 30
    width, height = left + plot_w + 40, top + plot_h + 56
    step = plot_w / max(len(points) - 1, 1)

    def xy(n: int, value: float) -> tuple[float, float]:
        return left + n * step, top + plot_h - value / axis[-1] * plot_h

    moves = []
    for impl, vals in series.items():
        known = [v for v in vals if v]
        if known:
            moves.append(f"{impl} from {full(known[0])} to {full(known[-1])}")
    out = [
        f'<svg class="chart line-chart" role="img" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" aria-labelledby="{chart_id}-t {chart_id}-d">',
        f'<title id="{chart_id}-t">{_e(op)}: operations per second over '
        f"{len(points)} commits</title>",
        f'<desc id="{chart_id}-d">Line chart, oldest commit first ({_e(points[0].commit)} to '
        f"{_e(points[-1].commit)}): {_e('; '.join(moves))} ops/s.</desc>",
    ]
    out.append(f'<text class="tick" x="{left - 6}" y="{top - 14}" text-anchor="end">ops/s</text>')
    for tick in axis:
        y = top + plot_h - tick / axis[-1] * plot_h
        out.append(
            f'<line class="grid" x1="{left}" x2="{left + plot_w}" y1="{y:.1f}" y2="{y:.1f}"/>'
            f'<text class="tick" x="{left - 6}" y="{y + 4:.1f}" text-anchor="end">'
            f"{short(tick)}</text>"
        )
    for n, point in enumerate(points):
        x = left + n * step
        out.append(
            f'<text class="tick commit" x="{x:.1f}" y="{top + plot_h + 18}" '
            f'text-anchor="middle">{_e(point.commit[:7])}</text>'
        )
    for impl, vals in series.items():
        color, dash, shape = _style(impl)
        path, pen_down = [], False
        for n, value in enumerate(vals):
            if not value:
                pen_down = False
                continue
            x, y = xy(n, value)
            path.append(f"{'L' if pen_down else 'M'}{x:.1f} {y:.1f}")
            pen_down = True
        dash_attr = f' stroke-dasharray="{dash}"' if dash else ""
        out.append(
            f'<path class="series" data-impl="{_e(impl)}" d="{" ".join(path)}" fill="none" '
            f'stroke="{color}" stroke-width="2.5"{dash_attr}/>'
        )
        for n, value in enumerate(vals):
            if value:
                x, y = xy(n, value)
                tip = f"{impl} at {points[n].commit}: {full(value)} ops/s"
                out.append(_marker(shape, x, y, color, tip))
    for n, impl in enumerate(impls):  # legend row: line style, marker and name
        color, dash, shape = _style(impl)
        x, y = left + n * 110, top + plot_h + 42
        dash_attr = f' stroke-dasharray="{dash}"' if dash else ""
        out.append(
            f'<g class="legend-item" aria-hidden="true"><line x1="{x}" x2="{x + 30}" y1="{y}" '
            f'y2="{y}" stroke="{color}" stroke-width="2.5"{dash_attr}/>'
            f"{_marker(shape, x + 15, y, color, '', 'legend-mark')}"
            f'<text x="{x + 36}" y="{y + 4}">{_e(impl)}</text></g>'
        )
    out.append("</svg>")
    return "".join(out)


SIZED = re.compile(r"^(?P<family>.+) @(?P<size>[\d,]+)$")


def sized_families(ops: Iterable[str]) -> dict[str, dict[int, str]]:
    """Operations measured at several sizes (``"<name> @<size>"``): family -> size -> name."""
    families: dict[str, dict[int, str]] = {}
    for op in ops:
        match = SIZED.match(op)
        if match:
            size = int(match["size"].replace(",", ""))
            families.setdefault(match["family"], {})[size] = op
    return {family: dict(sorted(sizes.items())) for family, sizes in families.items()}


def size_chart(chart_id: str, family: str, sizes: dict[int, str], run: Run) -> str:
    """Ops/s of each implementation against the number of tracked ids (log-scale sizes)."""
    impls = [
        i
        for i in implementations([Point("", run)])
        if any(i in run.ops.get(op, {}) for op in sizes.values())
    ]
    series = {i: [run.ops.get(op, {}).get(i) for op in sizes.values()] for i in impls}
    axis = ticks(max((v for vals in series.values() for v in vals if v), default=1.0))
    left, plot_w, plot_h, top = 56, 360, 160, 30
    width, height = left + plot_w + 40, top + plot_h + 56
    step = plot_w / max(len(sizes) - 1, 1)

    def xy(n: int, value: float) -> tuple[float, float]:
        return left + n * step, top + plot_h - value / axis[-1] * plot_h

    summary = "; ".join(
        f"{i}: "
        + ", ".join(f"{full(v)} at {size:,}" for size, v in zip(sizes, vals, strict=True) if v)
        for i, vals in series.items()
    )
    out = [
        f'<svg class="chart size-chart" role="img" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" aria-labelledby="{chart_id}-t {chart_id}-d">',
        f'<title id="{chart_id}-t">{_e(family)}: operations per second against tracked ids</title>',
        f'<desc id="{chart_id}-d">Line chart, sizes on a log scale: {_e(summary)} ops/s.</desc>',
        f'<text class="tick" x="{left - 6}" y="{top - 14}" text-anchor="end">ops/s</text>',
    ]
    for tick in axis:
        y = top + plot_h - tick / axis[-1] * plot_h
        out.append(
            f'<line class="grid" x1="{left}" x2="{left + plot_w}" y1="{y:.1f}" y2="{y:.1f}"/>'
            f'<text class="tick" x="{left - 6}" y="{y + 4:.1f}" text-anchor="end">'
            f"{short(tick)}</text>"
        )
    for n, size in enumerate(sizes):
        out.append(
            f'<text class="tick size" x="{left + n * step:.1f}" y="{top + plot_h + 18}" '
            f'text-anchor="middle">{size:,} ids</text>'
        )
    for n, impl in enumerate(impls):
        color, dash, shape = _style(impl)
        dots = [(k, v) for k, v in enumerate(series[impl]) if v]
        path = " ".join(
            f"{'M' if j == 0 else 'L'}{xy(k, v)[0]:.1f} {xy(k, v)[1]:.1f}"
            for j, (k, v) in enumerate(dots)
        )
        dash_attr = f' stroke-dasharray="{dash}"' if dash else ""
        out.append(
            f'<path class="series" data-impl="{_e(impl)}" d="{path}" fill="none" '
            f'stroke="{color}" stroke-width="2.5"{dash_attr}/>'
        )
        sizes_list = list(sizes)
        for k, v in dots:
            tip = f"{impl} at {sizes_list[k]:,} ids: {full(v)} ops/s"
            out.append(_marker(shape, *xy(k, v), color, tip))
        x, y = left + n * 110, top + plot_h + 42
        out.append(
            f'<g class="legend-item" aria-hidden="true"><line x1="{x}" x2="{x + 30}" y1="{y}" '
            f'y2="{y}" stroke="{color}" stroke-width="2.5"{dash_attr}/>'
            f"{_marker(shape, x + 15, y, color, '', 'legend-mark')}"
            f'<text x="{x + 36}" y="{y + 4}">{_e(impl)}</text></g>'
        )
    out.append("</svg>")
    return "".join(out)


def _size_section(latest: Point) -> str:
    """One chart per sized operation family: does the cost stay flat as the registry grows?"""
    families = sized_families(latest.run.ops)
    if not families:
        return ""
    figures = "".join(
        f"<figure>{size_chart(f'size-{n}', family, sizes, latest.run)}<figcaption>"
        f"{_e(family)}: registries full and evicting on every call.</figcaption></figure>"
        for n, (family, sizes) in enumerate(families.items())
    )
    return (
        '<section aria-labelledby="sizes-h"><h2 id="sizes-h">Cost against size</h2>'
        "<p>Each bounded registry at each size, kept full so every call evicts; an O(1) "
        "eviction keeps its line flat.</p>"
        f'<div class="charts">{figures}</div></section>'
    )


# -- HTML -----------------------------------------------------------------------

CSS = """
:root { color-scheme: light; }
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
  color: #1a1a1a; background: #fff; margin: 0; }
main { max-width: 1040px; margin: 0 auto; padding: 24px; }
h1 { font-size: 1.6rem; margin: 0 0 4px; }
h2 { font-size: 1.15rem; margin: 28px 0 8px; border-top: 1px solid #ccc; padding-top: 16px; }
.meta, figcaption, .note { color: #404040; }
code { font-family: ui-monospace, "SFMono-Regular", Menlo, monospace; font-size: 0.92em; }
table { border-collapse: collapse; margin: 8px 0 16px; font-variant-numeric: tabular-nums; }
caption { text-align: left; font-weight: 600; padding-bottom: 4px; }
th, td { border: 1px solid #bbb; padding: 4px 10px; text-align: right; }
th:first-child, td:first-child { text-align: left; }
thead th { background: #f0f0f0; }
.charts { display: flex; flex-wrap: wrap; gap: 24px; align-items: flex-start; }
figure { margin: 0; }
figcaption { font-size: 0.9rem; max-width: 470px; }
.legend { list-style: none; padding: 0; margin: 8px 0; display: flex; gap: 18px; flex-wrap: wrap; }
.legend svg { vertical-align: middle; margin-right: 6px; }
svg.chart text { font: 13px system-ui, sans-serif; fill: #1a1a1a; }
svg.chart text.tick { font-size: 11px; fill: #404040; }
svg.chart .grid { stroke: #d9d9d9; stroke-width: 1; }
details { margin: 4px 0 8px; }
summary { cursor: pointer; color: #0b5394; }
a { color: #0b5394; }
"""


def _legend(impls: Sequence[str]) -> str:
    items = []
    for impl in impls:
        color, dash, _ = _style(impl)
        dash_attr = f' stroke-dasharray="{dash}"' if dash else ""
        items.append(
            f'<li><svg width="34" height="12" aria-hidden="true"><line x1="1" x2="33" y1="6" '
            f'y2="6" stroke="{color}" stroke-width="4"{dash_attr}/></svg>'
            f"{_e(IMPL_LABELS.get(impl, impl))}</li>"
        )
    return f'<ul class="legend" aria-label="Implementations">{"".join(items)}</ul>'


def _summary_table(latest: Point) -> str:
    impls = implementations([latest])
    base = baseline(impls)
    others = [i for i in impls if i != base] if base else []
    head = "".join(f'<th scope="col">{_e(i)} ops/s</th>' for i in impls)
    head += "".join(f'<th scope="col">{_e(i)}/{_e(base)}</th>' for i in others)
    rows = []
    ratios: dict[str, list[float]] = {i: [] for i in others}
    for n, op in enumerate(operations([latest])):
        values = latest.run.ops[op]
        cells = "".join(f"<td>{full(values[i]) if i in values else 'n/a'}</td>" for i in impls)
        for i in others:
            if base and i in values and base in values:
                ratio = values[i] / values[base]
                ratios[i].append(ratio)
                cells += f"<td>{ratio:.2f}x</td>"
            else:
                cells += "<td>n/a</td>"
        link = f'<a href="#op-{n}">{_e(op)}</a>'
        rows.append(f'<tr><th scope="row">{link}</th>{cells}</tr>')
    if others:
        geo = "".join(
            f"<td>{geomean(v):.2f}x</td>" if v else "<td>n/a</td>" for v in ratios.values()
        )
        blank = "<td></td>" * len(impls)
        rows.append(f'<tr><th scope="row">geometric mean</th>{blank}{geo}</tr>')
    return (
        f"<table><caption>Operations per second at commit {_e(latest.commit)} "
        f'(higher is better)</caption><thead><tr><th scope="col">operation</th>{head}</tr>'
        f"</thead><tbody>{''.join(rows)}</tbody></table>"
    )


def _data_table(op: str, points: Sequence[Point], impls: Sequence[str]) -> str:
    head = "".join(f'<th scope="col">{_e(i)} ops/s</th>' for i in impls)
    rows = []
    for point in points:
        values = point.run.ops.get(op, {})
        cells = "".join(f"<td>{full(values[i]) if i in values else 'n/a'}</td>" for i in impls)
        rows.append(
            f'<tr><th scope="row"><code>{_e(point.commit)}</code></th>{cells}'
            f"<td>{_e(point.run.source)}</td></tr>"
        )
    return (
        f"<details><summary>Data table: {_e(op)}</summary><table><caption>{_e(op)}, "
        f'operations per second per commit</caption><thead><tr><th scope="col">commit</th>'
        f'{head}<th scope="col">source</th></tr></thead><tbody>{"".join(rows)}</tbody>'
        "</table></details>"
    )


def render(points: Sequence[Point], files: int) -> str:
    """The whole page."""
    if not points:
        raise ResultError("no benchmark results to show")
    latest = points[-1]
    impls = implementations(points)
    sections = []
    for n, op in enumerate(operations(points)):
        values = latest.run.ops.get(op, {})
        figures = []
        if values:
            figures.append(
                f"<figure>{bar_chart(f'bar-{n}', op, latest.commit, values)}<figcaption>"
                f"Latest commit <code>{_e(latest.commit)}</code>.</figcaption></figure>"
            )
        if len(points) > 1:
            figures.append(
                f"<figure>{line_chart(f'line-{n}', op, points)}<figcaption>Over "
                f"{len(points)} commits, oldest first.</figcaption></figure>"
            )
        sections.append(
            f'<section id="op-{n}" class="operation" aria-labelledby="op-{n}-h">'
            f'<h2 id="op-{n}-h">{_e(op)}</h2><div class="charts">{"".join(figures)}</div>'
            f"{_data_table(op, points, impls)}</section>"
        )
    when = latest.run.datetime.replace("T", " ")
    return (
        '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>band_sdk_core benchmarks: {_e(latest.commit)}</title><style>{CSS}</style>"
        "</head><body><main><h1>band_sdk_core benchmarks</h1>"
        f'<p class="meta">Latest commit <code>{_e(latest.commit)}</code>, {_e(when)}. '
        f"{_e(_context(latest.run))}. {len(points)} commit(s) from {files} result file(s).</p>"
        '<p class="note">Operations per second of each core operation: <strong>c</strong> is '
        "the compiled core, <strong>py</strong> the pure-Python core, <strong>ref</strong> the "
        "reference band-sdk-core (when measured with <code>bench/compare.py --against</code>). "
        "Higher is better; ratios within one run matter more than absolute numbers.</p>"
        f"{_legend(impls)}"
        f'<section aria-labelledby="summary-h"><h2 id="summary-h">Summary</h2>'
        f"{_summary_table(latest)}</section>{_size_section(latest)}{''.join(sections)}"
        "</main></body></html>\n"
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: result files in, HTML and/or Markdown out."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", nargs="+", help="pytest-benchmark or compare.py JSON files")
    parser.add_argument("-o", "--output", help="write the HTML page here")
    parser.add_argument(
        "--markdown", action="store_true", help="print a Markdown summary table to stdout"
    )
    args = parser.parse_args(argv)
    if not args.output and not args.markdown:
        parser.error("give -o PAGE.html, --markdown, or both")
    try:
        points = history(load(path) for path in args.results)
        if args.output:
            Path(args.output).write_text(render(points, len(args.results)), encoding="utf-8")
            print(f"wrote {args.output}", file=sys.stderr)
    except ResultError as exc:
        print(f"dashboard: {exc}", file=sys.stderr)
        return 2
    if args.markdown:
        sys.stdout.write(markdown(points))
    return 0


if __name__ == "__main__":
    sys.exit(main())
