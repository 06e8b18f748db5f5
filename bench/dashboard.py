"""Benchmark results as one static HTML page (inline SVG charts) and a Markdown summary.

    make dashboard        # the kept history (origin/bench-history) plus bench/results/*.json
    python bench/dashboard.py bench/results/*.json -o bench/dashboard.html
    python bench/dashboard.py --history-ref origin/bench-history RESULT... --markdown

Reads every kind of result file the benchmarks write (bench/results.py): pytest-benchmark's
JSON and ``bench/compare.py --json`` (the core, ``c`` and ``py`` and, with ``--against``, the
reference ``ref``), ``bench/e2e/run.py --json`` and ``bench/scale/run.py --json`` (an agent's
user's view, against the official SDK), from files and from the history the bench workflow
keeps (JSON lines). The page opens on the headline: the geometric-mean ratios of the latest run
and over commits, the rows short of their target and any regression (bench/thresholds.py);
then the end-to-end and scale figures; then the detail per operation. It needs no server and no
network: open the file.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from charts import (
    PALETTE,
    Series,
    Spread,
    Tick,
    bar_chart,
    esc,
    full,
    over_commits,
    size_chart,
    style,
    times,
)
from results import (
    COMPARE,
    E2E,
    IMPL_ORDER,
    PYTEST,
    SCALE,
    Point,
    Record,
    Regression,
    ResultError,
    Run,
    UserRun,
    baseline,
    geo_ratio,
    geo_spread,
    history,
    history_at,
    implementations,
    is_short,
    is_short_overall,
    latest_per_commit,
    load,
    operations,
    parse,
    ratio_keys,
    read_history,
    regressions,
    shortfalls,
    spread,
)
from thresholds import GEOMEAN_TARGETS, ROW_TARGETS, TARGETS, regression_rule, target

SOURCE_NOTES = {
    COMPARE: "measured by bench/compare.py, implementations interleaved in one run, best round",
    PYTEST: "measured by pytest-benchmark, 1 / mean round time",
}
IMPL_LABELS = {"c": "c (compiled)", "py": "py (pure Python)", "ref": "ref (band-sdk-core)"}
RATIO_WORDS = {
    "c/ref": ("compiled", "reference"),
    "py/ref": ("pure Python", "reference"),
    "c/py": ("compiled", "pure Python"),
}
SDK_LABELS = {"c": "ours, compiled", "py": "ours, pure", "ref": "official SDK"}


@dataclass(frozen=True)
class Metric:
    """One end-to-end or scale figure: its key in the JSON, its words, which way is better."""

    key: str
    tile: str  # a few words
    label: str
    unit: str
    higher_is_better: bool
    digits: int = 1


E2E_METRICS = (
    Metric("msgs_per_s", "msgs/s", "answered messages per second", "msgs/s", True),
    Metric("p99_ms", "p99 latency", "p99 send-to-reply latency", "ms", False),
    Metric("agent_cpu_ms", "agent CPU", "agent CPU per answered message", "ms", False, 2),
    Metric("per_room_kib", "RSS per room", "agent memory (RSS) per room", "KiB", False, 0),
)
SCALE_METRICS = (
    Metric("msgs_per_s", "msgs/s", "answered messages per second", "msgs/s", True),
    Metric("p99_ms", "p99 latency", "p99 send-to-reply latency", "ms", False, 0),
    Metric("subscribe_s", "join every room", "time to join every room", "s", False, 2),
    Metric(
        "resubscribe_s",
        "rejoin after restart",
        "time to rejoin every room after a restart",
        "s",
        False,
        2,
    ),
    Metric("rss_per_room_kib", "RSS per room", "agent memory (RSS) per room", "KiB", False, 1),
)


def _date(stamp: str) -> str:
    """``2026-12-02T10:00:00+00:00`` -> ``2026-12-02``."""
    return stamp[:10] if stamp else "undated"


def _context(run: Run) -> str:
    pythons = ", ".join(f"{i}: {p}" for i, p in sorted(run.pythons.items()) if p)
    parts = [run.machine, pythons, SOURCE_NOTES[run.source]]
    return "; ".join(p for p in parts if p)


def point_regressions(points: Sequence[Point]) -> list[list[Regression]]:
    """Per point, its regressions against the points before it (the workflow's rule)."""
    return [regressions([p.run for p in points[:n]], point.run) for n, point in enumerate(points)]


# -- Markdown -------------------------------------------------------------------


def markdown(
    points: Sequence[Point], e2e: Sequence[UserRun] = (), scale: Sequence[UserRun] = ()
) -> str:
    """The headline and the summary table of the latest commit, with c's change since the last."""
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
    geo = {key: geo_ratio(latest.run, key) for key in ratio_keys(impls)}
    heads = [f"{key} **{times(v)}**" for key, v in geo.items() if v is not None]
    if heads:
        lines += ["Geometric mean: " + ", ".join(heads) + ".", ""]
    short = shortfalls(latest.run)
    if short:
        items = ", ".join(f"{s.operation} ({s.key} {times(s.ratio)})" for s in short)
        lines += [f"Short of target ({_targets()}): {items}.", ""]
    found = point_regressions(points)[-1]
    if found:
        lines += ["Regressions: " + "; ".join(r.describe() for r in found) + ".", ""]
    for title, runs, metrics in (("End to end", e2e, E2E_METRICS), ("Scale", scale, SCALE_METRICS)):
        figures = [(m.tile, user_ratio(runs[-1], m.key)) for m in metrics] if runs else []
        known = [f"{tile} {times(v)}" for tile, v in figures if v is not None]
        if known:
            lines += [f"{title}, ours (compiled) / official SDK: {', '.join(known)}.", ""]
    header = ["operation", *(f"{i} ops/s" for i in impls), *(f"{i}/{base}" for i in others)]
    if previous:
        header.append(f"c vs `{previous.commit}`")
    lines += ["| " + " | ".join(header) + " |", "|" + " --- |" * len(header)]
    ratios: dict[str, list[float]] = {i: [] for i in others}
    for op in operations([latest]):
        values = latest.run.ops[op]
        row = [op, *(full(values[i]) if i in values else "n/a" for i in impls)]
        for i in others:
            if base and i in values and base in values:
                ratio = values[i] / values[base]
                ratios[i].append(ratio)
                mark = " ▼ short" if is_short(f"{i}/{base}", ratio, op) else ""
                row.append(f"{times(ratio)}{mark}")
            else:
                row.append("n/a")
        if previous:
            before = previous.run.ops.get(op, {}).get("c")
            now = values.get("c")
            row.append(f"{(now / before - 1) * 100:+.1f}%" if before and now else "n/a")
        lines.append("| " + " | ".join(row) + " |")
    if others:
        geo_cells = [times(geo[f"{i}/{base}"] or 0) if ratios[i] else "n/a" for i in others]
        tail = [""] if previous else []
        lines.append(
            "| **geometric mean** | " + " | ".join([""] * len(impls) + geo_cells + tail) + " |"
        )
    return "\n".join(lines) + "\n"


def _targets() -> str:
    return ", ".join(f"{key} {times(t)}" for key, t in TARGETS.items())


# -- HTML: the headline -----------------------------------------------------------


def _ticks(points: Sequence[Point]) -> list[Tick]:
    return [Tick(p.commit, _date(p.run.datetime)[5:] or "undated") for p in points]


def headline(points: Sequence[Point], found: Sequence[Sequence[Regression]]) -> str:
    """The geometric-mean ratios (latest run as tiles, every commit as lines with noise bands),
    beside them the rows short of target and the regressions."""
    latest = points[-1]
    keys = ratio_keys(implementations(points))
    tiles = []
    for key in keys:
        now = geo_ratio(latest.run, key)
        if now is None:
            continue
        who, whom = RATIO_WORDS.get(key, (key.split("/")[0], key.split("/")[1]))
        band = geo_spread(latest.run, key)
        noise = f"rounds {times(band[0])} to {times(band[2])}" if band else "one figure per run"
        past = [(p, geo_ratio(p.run, key)) for p in points]
        known = [(p, v) for p, v in past if v is not None]
        over = (
            f"{len(known)} commits since {_date(known[0][0].run.datetime)}: "
            f"{times(min(v for _, v in known))} to {times(max(v for _, v in known))}"
            if len(known) > 1
            else "first run with this ratio"
        )
        flag = " short" if is_short_overall(key, now) else ""
        tiles.append(
            f'<li class="tile{flag}" data-ratio="{esc(key)}" data-value="{now:.4f}">'
            f'<span class="big" style="color:{style(key)[0]}">{times(now)}</span>'
            f'<span class="what">{esc(who)} vs {esc(whom)} <code>{esc(key)}</code></span>'
            f'<span class="noise-note">{esc(noise)}</span><span class="over">{esc(over)}</span>'
            "</li>"
        )
    series = []
    for key in keys:
        values = [geo_ratio(p.run, key) for p in points]
        if any(values):
            series.append(Series(key, values, [geo_spread(p.run, key) for p in points]))
    flagged = {n: "; ".join(r.describe() for r in regs) for n, regs in enumerate(found) if regs}
    moves = "; ".join(
        f"{s.name} from {times(next(v for v in s.values if v))} to "
        f"{times(next(v for v in reversed(s.values) if v))}"
        for s in series
    )
    chart = over_commits(
        "headline",
        "ratio-chart",
        f"Geometric-mean ratios over {len(points)} commits",
        f"Line chart, log scale, 1.00x line drawn, oldest commit first "
        f"({points[0].commit}, {_date(points[0].run.datetime)} to {latest.commit}, "
        f"{_date(latest.run.datetime)}): {moves}. Shaded: min to max over rounds.",
        series,
        _ticks(points),
        log=True,
        unit="ratio",
        par=1.0,
        flagged=flagged,
        fmt=times,
        plot_w=440,
    )
    return (
        '<section id="headline" aria-labelledby="headline-h">'
        '<h2 id="headline-h">Headline: geometric mean over every operation</h2>'
        f'<ul class="tiles">{"".join(tiles)}</ul><div class="headline-grid">'
        f"<figure>{chart}<figcaption>Each ratio per commit, log scale (0.5x and 2x sit equally "
        "far from the 1.00x line); shaded: slowest to fastest round; a red line marks a "
        "regression.</figcaption></figure>"
        f'<div class="aside">{shortfall_section(latest)}{regression_section(points, found)}'
        "</div></div></section>"
    )


def shortfall_section(latest: Point) -> str:
    """The rows of the latest run below their target, or a sentence that there are none."""
    short = shortfalls(latest.run)
    base = baseline(implementations([latest]))
    rows = [
        f"{k} at least {times(t)} on every row"
        + "".join(f", {times(r)} on {name} rows" for name, r in ROW_TARGETS.get(k, {}).items())
        for k, t in TARGETS.items()
        if k.endswith(f"/{base}")
    ]
    overall = [
        f"{k} at least {times(t)}" for k, t in GEOMEAN_TARGETS.items() if k.endswith(f"/{base}")
    ]
    rule = "; ".join(rows) + (f"; geometric mean: {', '.join(overall)}" if overall else "")
    if short:
        items = "".join(
            f'<li class="shortfall" data-operation="{esc(s.operation)}" data-ratio="{esc(s.key)}">'
            f'<a href="#{_op_id(s.operation)}">{esc(s.operation)}</a>: <code>{esc(s.key)}</code> '
            f"<strong>{times(s.ratio)}</strong> (target {times(s.target)})</li>"
            for s in short
        )
        body = f'<ul class="shortfalls">{items}</ul>'
    else:
        body = '<p class="ok">Every row meets its target.</p>'
    return (
        '<section id="short" aria-labelledby="short-h">'
        f'<h3 id="short-h">Short of target: {len(short)} row(s)</h3>'
        f'<p class="note">Targets (bench/thresholds.py): {esc(rule)}.</p>{body}</section>'
    )


def regression_section(points: Sequence[Point], found: Sequence[Sequence[Regression]]) -> str:
    """The latest run's regressions against the runs before it (the workflow fails on these)."""
    rule = regression_rule()
    latest = found[-1] if found else []
    earlier = sum(1 for regs in found[:-1] if regs)
    if latest:
        items = "".join(f'<li class="regression-item">{esc(r.describe())}</li>' for r in latest)
        body = f'<ul class="regressions">{items}</ul>'
    elif len(points) > 1:
        body = '<p class="ok">None in the latest run.</p>'
    else:
        body = '<p class="ok">One run: nothing to compare with yet.</p>'
    note = f" {earlier} earlier commit(s) regressed (marked on the chart)." if earlier else ""
    return (
        '<section id="regressions-s" aria-labelledby="regressions-h">'
        f'<h3 id="regressions-h">Regressions: {len(latest)}</h3>'
        f'<p class="note">A regression is {esc(rule)}.{esc(note)}</p>{body}</section>'
    )


# -- HTML: end to end and scale ------------------------------------------------------


def _fmt(metric: Metric) -> Callable[[float], str]:
    return lambda v: f"{v:,.{metric.digits}f}"


def user_section(kind: str, runs: Sequence[UserRun]) -> str:
    """The latest end-to-end (or scale) run as one bar chart per figure, ours against official."""
    if not runs:
        return ""
    latest = runs[-1]
    metrics = E2E_METRICS if kind == E2E else SCALE_METRICS
    slug = "e2e" if kind == E2E else "scale"
    heading = (
        "End to end: agents answering through band dev"
        if kind == E2E
        else "Scale: one agent in many rooms"
    )
    ref = latest.figures.get("ref")
    tiles, figures = [], []
    for n, metric in enumerate(metrics):
        # 0 is a figure (an agent back in every room before the harness looked), None is not
        values = {v: f[metric.key] for v, f in latest.figures.items() if metric.key in f}
        if not values:
            continue
        spreads: dict[str, Spread | None] = {}
        for variant, rounds in latest.rounds.items():
            got = rounds.get(metric.key)
            if got and len(got) > 1:
                spreads[variant] = (min(got), statistics.median(got), max(got))
        better = "higher" if metric.higher_is_better else "lower"
        if ref and ref.get(metric.key) and "c" in values:
            ratio = values["c"] / ref[metric.key]
            good = ratio >= 1 if metric.higher_is_better else ratio <= 1
            tiles.append(
                f'<li class="tile{"" if good else " short"}" data-bench="{slug}" '
                f'data-metric="{metric.key}" '
                f'data-value="{ratio:.4f}"><span class="big">{times(ratio)}</span>'
                f'<span class="what">{esc(metric.tile)}</span><span class="over">ours '
                f"(compiled) / official, {better} is better</span></li>"
            )
        fmt = _fmt(metric)
        chart = bar_chart(
            f"{slug}-{n}",
            f"{metric.label} ({metric.unit}), {better} is better",
            values,
            unit=metric.unit,
            spreads=spreads,
            better=better,
            fmt=fmt,
            labels=SDK_LABELS,
            cls=f"bar-chart {slug}-chart",
            plot_w=220,
        )
        figures.append(
            f"<figure>{chart}<figcaption>{esc(metric.label)} ({esc(metric.unit)}), {better} is "
            "better.</figcaption></figure>"
        )
    against = f"official band-sdk {latest.against_sdk}" if latest.against_sdk else "no official SDK"
    meta = "; ".join(
        p
        for p in (
            f"commit {latest.commit}",
            _date(latest.datetime),
            latest.setup,
            latest.machine,
            f"Python {latest.python}" if latest.python else "",
            against,
        )
        if p
    )
    lost = "; ".join(
        f"{SDK_LABELS.get(v, v)} {f.get('lost', 0):.0f}/{f.get('dup', f.get('duplicated', 0)):.0f}"
        for v, f in latest.figures.items()
        if "lost" in f
    )
    if lost:  # a run with any fails (the benchmark's exit status): say whose
        meta += f". Lost/duplicated answers: {lost}"
    over = f" {len(runs)} run(s) kept." if len(runs) > 1 else ""
    over += " Whiskers: min to max over rounds." if latest.rounds else ""
    if len(runs) > 1:
        figures.insert(0, _user_history(slug, runs, metrics))
    return (
        f'<section id="{slug}" aria-labelledby="{slug}-h"><h2 id="{slug}-h">{esc(heading)}</h2>'
        f'<p class="meta">{esc(meta)}.{esc(over)}</p>'
        f'<ul class="tiles">{"".join(tiles)}</ul><div class="charts">{"".join(figures)}</div>'
        "</section>"
    )


def user_ratio(run: UserRun, key: str) -> float | None:
    """Ours (compiled) over the official SDK for one figure, when both were measured."""
    ours, theirs = run.figures.get("c", {}).get(key), run.figures.get("ref", {}).get(key)
    return ours / theirs if ours is not None and theirs else None


def _user_history(slug: str, runs: Sequence[UserRun], metrics: Sequence[Metric]) -> str:
    """Each figure's ours/official ratio over the kept runs (log scale, 1.00x drawn)."""
    series = [
        Series(m.tile, [user_ratio(r, m.key) for r in runs], [None] * len(runs), PALETTE[n])
        for n, m in enumerate(metrics)
    ]
    series = [s for s in series if any(s.values)]
    moves = "; ".join(
        f"{s.name} from {times(next(v for v in s.values if v))} to "
        f"{times(next(v for v in reversed(s.values) if v))}"
        for s in series
    )
    chart = over_commits(
        f"{slug}-history",
        f"ratio-chart {slug}-history",
        f"Ours (compiled) over the official SDK, {len(runs)} runs",
        f"Line chart, log scale, 1.00x line drawn, oldest run first: {moves}.",
        series,
        [Tick(r.commit, _date(r.datetime)[5:] or "undated") for r in runs],
        log=True,
        unit="ratio",
        par=1.0,
        fmt=times,
    )
    return (
        f"<figure>{chart}<figcaption>Each figure's ratio per run (msgs/s: higher is better; "
        "the others: lower is better).</figcaption></figure>"
    )


# -- HTML: detail ------------------------------------------------------------------


def _op_id(op: str) -> str:
    return "op-" + "".join(ch if ch.isalnum() else "-" for ch in op.lower()).strip("-")


def _legend(impls: Sequence[str]) -> str:
    items = []
    for impl in impls:
        color, dash, _ = style(impl)
        dash_attr = f' stroke-dasharray="{dash}"' if dash else ""
        items.append(
            f'<li><svg width="34" height="12" aria-hidden="true"><line x1="1" x2="33" y1="6" '
            f'y2="6" stroke="{color}" stroke-width="4"{dash_attr}/></svg>'
            f"{esc(IMPL_LABELS.get(impl, impl))}</li>"
        )
    return f'<ul class="legend" aria-label="Implementations">{"".join(items)}</ul>'


def _summary_table(latest: Point) -> str:
    impls = implementations([latest])
    base = baseline(impls)
    others = [i for i in impls if i != base] if base else []
    head = "".join(f'<th scope="col">{esc(i)} ops/s</th>' for i in impls)
    head += "".join(f'<th scope="col">{esc(i)}/{esc(base)}</th>' for i in others)
    rows = []
    for op in operations([latest]):
        values = latest.run.ops[op]
        cells = "".join(f"<td>{full(values[i]) if i in values else 'n/a'}</td>" for i in impls)
        row_short = False
        for i in others:
            if base and i in values and base in values:
                key, ratio = f"{i}/{base}", values[i] / values[base]
                if is_short(key, ratio, op):
                    row_short = True
                    cells += (
                        f'<td class="short" data-ratio="{esc(key)}">{times(ratio)}'
                        f'<span class="flag" aria-hidden="true"> ▼</span><span class="sr"> '
                        f"(below the {times(target(key, op) or 0)} target)</span></td>"
                    )
                else:
                    cells += f"<td>{times(ratio)}</td>"
            else:
                cells += "<td>n/a</td>"
        link = f'<a href="#{_op_id(op)}">{esc(op)}</a>'
        cls = ' class="short"' if row_short else ""
        rows.append(f'<tr{cls}><th scope="row">{link}</th>{cells}</tr>')
    if others:
        geo = "".join(
            f"<td>{times(g)}</td>"
            if (g := geo_ratio(latest.run, f"{i}/{base}"))
            else "<td>n/a</td>"
            for i in others
        )
        blank = "<td></td>" * len(impls)
        rows.append(f'<tr><th scope="row">geometric mean</th>{blank}{geo}</tr>')
    return (
        f'<div class="scroll"><table><caption>Operations per second at commit '
        f"{esc(latest.commit)} (higher is better; ▼ marks a ratio short of its target)"
        f'</caption><thead><tr><th scope="col">operation</th>{head}</tr>'
        f"</thead><tbody>{''.join(rows)}</tbody></table></div>"
    )


def _data_table(op: str, points: Sequence[Point], impls: Sequence[str]) -> str:
    head = "".join(f'<th scope="col">{esc(i)} ops/s</th>' for i in impls)
    rows = []
    for point in points:
        values = point.run.ops.get(op, {})
        cells = "".join(f"<td>{full(values[i]) if i in values else 'n/a'}</td>" for i in impls)
        rows.append(
            f'<tr><th scope="row"><code>{esc(point.commit)}</code></th>'
            f"<td>{esc(_date(point.run.datetime))}</td>{cells}"
            f"<td>{esc(point.run.source)}</td></tr>"
        )
    return (
        f'<details><summary>Data table: {esc(op)}</summary><div class="scroll"><table>'
        f"<caption>{esc(op)}, operations per second per commit</caption><thead><tr>"
        f'<th scope="col">commit</th><th scope="col">date</th>{head}<th scope="col">source</th>'
        f"</tr></thead><tbody>{''.join(rows)}</tbody></table></div></details>"
    )


def _size_section(latest: Point) -> str:
    """One chart per sized operation family: does the cost stay flat as the registry grows?"""
    families: dict[str, dict[int, str]] = {}
    for op in latest.run.ops:
        family, sep, size = op.rpartition(" @")
        if sep and size.replace(",", "").isdigit():
            families.setdefault(family, {})[int(size.replace(",", ""))] = op
    if not families:
        return ""
    figures = []
    for n, (family, by_size) in enumerate(families.items()):
        sizes = sorted(by_size)
        names = [i for i in IMPL_ORDER if any(i in latest.run.ops[by_size[s]] for s in sizes)]
        series = [
            Series(
                impl,
                [latest.run.ops[by_size[s]].get(impl) for s in sizes],
                [spread(latest.run, by_size[s], impl) for s in sizes],
            )
            for impl in names
        ]
        figures.append(
            f"<figure>{size_chart(f'size-{n}', family, sizes, series)}<figcaption>"
            f"{esc(family)}: registries full and evicting on every call.</figcaption></figure>"
        )
    return (
        '<section id="sizes" aria-labelledby="sizes-h"><h2 id="sizes-h">Cost against size</h2>'
        "<p>Each bounded registry at each size, kept full so every call evicts. Both axes are "
        "logarithmic: an O(1) eviction keeps its line flat, and a fall by half looks the same "
        "at any height.</p>"
        f'<div class="charts">{"".join(figures)}</div></section>'
    )


def _operation_sections(points: Sequence[Point]) -> str:
    latest = points[-1]
    impls = implementations(points)
    sections = []
    for n, op in enumerate(operations(points)):
        values = latest.run.ops.get(op, {})
        figures = []
        if values:
            spreads = {i: spread(latest.run, op, i) for i in values}
            chart = bar_chart(
                f"bar-{n}",
                f"{op}: operations per second at commit {latest.commit}",
                values,
                spreads=spreads,
            )
            figures.append(
                f"<figure>{chart}<figcaption>Latest commit <code>{esc(latest.commit)}</code>; "
                "whiskers: slowest to fastest round.</figcaption></figure>"
            )
        if len(points) > 1:
            series = [
                Series(
                    impl,
                    [p.run.ops.get(op, {}).get(impl) for p in points],
                    [spread(p.run, op, impl) for p in points],
                )
                for impl in impls
            ]
            moves = []
            for s in series:
                known = [v for v in s.values if v]
                if known:
                    moves.append(f"{s.name} from {full(known[0])} to {full(known[-1])}")
            chart = over_commits(
                f"line-{n}",
                "line-chart",
                f"{op}: operations per second over {len(points)} commits",
                f"Line chart, oldest commit first ({points[0].commit} to {latest.commit}): "
                f"{'; '.join(moves)} ops/s.",
                series,
                _ticks(points),
                log=False,
                unit="ops/s",
            )
            figures.append(
                f"<figure>{chart}<figcaption>Over {len(points)} commits, oldest first; shaded: "
                "min to max over rounds.</figcaption></figure>"
            )
        sections.append(
            f'<section id="{_op_id(op)}" class="operation" aria-labelledby="{_op_id(op)}-h">'
            f'<h2 id="{_op_id(op)}-h">{esc(op)}</h2><div class="charts">{"".join(figures)}</div>'
            f"{_data_table(op, points, impls)}</section>"
        )
    return "".join(sections)


CSS = """
:root { color-scheme: light; }
* { box-sizing: border-box; }
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
  color: #1a1a1a; background: #fff; margin: 0; }
main { max-width: 1040px; margin: 0 auto; padding: 16px; }
h1 { font-size: 1.5rem; margin: 0 0 4px; }
h2 { font-size: 1.15rem; margin: 24px 0 8px; border-top: 1px solid #ccc; padding-top: 14px; }
h3 { font-size: 1.02rem; margin: 4px 0 4px; }
#headline h2 { border-top: 0; padding-top: 0; margin-top: 12px; }
.headline-grid { display: flex; flex-wrap: wrap; gap: 8px 28px; align-items: flex-start; }
.headline-grid .aside { flex: 1 1 300px; min-width: 0; }
.aside section + section { margin-top: 12px; }
.aside .note { font-size: 0.88rem; margin: 2px 0; }
.aside ul { margin: 4px 0; padding-left: 20px; }
.meta, figcaption, .note { color: #404040; }
code { font-family: ui-monospace, "SFMono-Regular", Menlo, monospace; font-size: 0.92em; }
.tiles { list-style: none; padding: 0; margin: 8px 0 12px; display: grid; gap: 10px;
  grid-template-columns: repeat(auto-fit, minmax(170px, 1fr)); }
.tile { border: 1px solid #bbb; border-radius: 6px; padding: 8px 12px; display: flex;
  flex-direction: column; gap: 2px; }
.tile .big { font-size: 2.1rem; font-weight: 700; line-height: 1.1;
  font-variant-numeric: tabular-nums; }
.tile .what { font-weight: 600; }
.tile .noise-note, .tile .over { font-size: 0.85rem; color: #404040; }
.tile.short { border: 2px solid #B00020; background: #fdecee; }
.shortfalls li, .regressions li { margin: 2px 0; }
.shortfalls strong, .regressions li { color: #B00020; }
.ok { color: #1b5e20; font-weight: 600; }
.scroll { overflow-x: auto; position: relative; } /* holds .sr spans: no page overflow */
table { border-collapse: collapse; margin: 8px 0 16px; font-variant-numeric: tabular-nums; }
caption { text-align: left; font-weight: 600; padding-bottom: 4px; }
th, td { border: 1px solid #bbb; padding: 4px 10px; text-align: right; }
th:first-child, td:first-child { text-align: left; }
thead th { background: #f0f0f0; }
td.short { background: #fdecee; color: #B00020; font-weight: 700; }
.sr { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0);
  white-space: nowrap; }
.charts { display: flex; flex-wrap: wrap; gap: 24px; align-items: flex-start; }
figure { margin: 0; max-width: 100%; }
figcaption { font-size: 0.9rem; max-width: 500px; }
svg.chart { max-width: 100%; height: auto; }
.legend { list-style: none; padding: 0; margin: 8px 0; display: flex; gap: 18px; flex-wrap: wrap; }
.legend svg { vertical-align: middle; margin-right: 6px; }
svg.chart text { font: 13px system-ui, sans-serif; fill: #1a1a1a; }
svg.chart text.tick { font-size: 11px; fill: #404040; }
svg.chart .grid { stroke: #d9d9d9; stroke-width: 1; }
svg.chart .par { stroke: #1a1a1a; stroke-width: 1.5; stroke-dasharray: 6 3; }
svg.chart .par-label { font-size: 11px; font-weight: 700; }
svg.chart .noise line { stroke: #1a1a1a; stroke-width: 1.5; }
svg.chart .regression line { stroke: #B00020; stroke-width: 2; stroke-dasharray: 3 2; }
svg.chart .regression text { fill: #B00020; font-size: 11px; font-weight: 700; }
details { margin: 4px 0 8px; }
summary { cursor: pointer; color: #0b5394; }
a { color: #0b5394; }
@media (max-width: 600px) {
  main { padding: 10px; }
  .tile .big { font-size: 1.7rem; }
  th, td { padding: 3px 6px; }
}
"""


def render(
    points: Sequence[Point], files: int, e2e: Sequence[UserRun] = (), scale: Sequence[UserRun] = ()
) -> str:
    """The whole page: headline, shortfalls, regressions, end to end, scale, detail."""
    if not points and not e2e and not scale:
        raise ResultError("no benchmark results to show (run `make bench` first)")
    parts = []
    title = "band benchmarks"
    meta = ""
    if points:
        latest = points[-1]
        found = point_regressions(points)
        title = f"band_sdk_core benchmarks: {latest.commit}"
        when = latest.run.datetime.replace("T", " ")[:16] + (" UTC" if latest.run.datetime else "")
        meta = (
            f'<p class="meta">Latest commit <code>{esc(latest.commit)}</code>, {esc(when)}; '
            f"{len(points)} commit(s) from {files} result(s).</p>"
        )
        parts.append(headline(points, found))
    parts += [user_section(E2E, e2e), user_section(SCALE, scale)]
    if points:
        impls = implementations(points)
        parts += [
            '<section id="detail" aria-labelledby="summary-h"><h2 id="summary-h">Detail: every '
            'operation</h2><p class="note">Operations per second of each core operation: '
            "<strong>c</strong> is the compiled core, <strong>py</strong> the pure-Python core, "
            "<strong>ref</strong> the reference band-sdk-core (when measured with "
            "<code>bench/compare.py --against</code>). Higher is better; ratios within one run "
            f"matter more than absolute numbers. Latest run: {esc(_context(points[-1].run))}.</p>"
            f"{_legend(impls)}"
            f"{_summary_table(points[-1])}</section>",
            _size_section(points[-1]),
            _operation_sections(points),
        ]
    return (
        '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{esc(title)}</title><style>{CSS}</style>"
        f"</head><body><main><h1>band_sdk_core benchmarks</h1>{meta}"
        f"{''.join(parts)}</main></body></html>\n"
    )


def gather(records: Sequence[Record]) -> tuple[list[Point], list[UserRun], list[UserRun]]:
    """Core points per commit, and the end-to-end and scale runs (latest per commit)."""
    core = [r for r in records if isinstance(r, Run)]
    users = [r for r in records if isinstance(r, UserRun)]
    return (
        history(core),
        latest_per_commit(r for r in users if r.source == E2E),
        latest_per_commit(r for r in users if r.source == SCALE),
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: result files and history in, HTML and/or Markdown out."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", nargs="*", help="result JSON files (bench/results/*.json)")
    parser.add_argument(
        "--history", action="append", default=[], help="a history file (JSON lines)"
    )
    parser.add_argument(
        "--history-ref", metavar="REF", help="a git ref whose history.jsonl to read too"
    )
    parser.add_argument("-o", "--output", help="write the HTML page here")
    parser.add_argument(
        "--markdown", action="store_true", help="print a Markdown summary table to stdout"
    )
    args = parser.parse_args(argv)
    if not args.output and not args.markdown:
        parser.error("give -o PAGE.html, --markdown, or both")
    try:
        records: list[Record] = []
        kept = [line for path in args.history for line in read_history(path)]
        if args.history_ref:
            at_ref = history_at(args.history_ref)
            if at_ref is None:
                print(
                    f"dashboard: no history at {args.history_ref} (git fetch origin "
                    "bench-history to get the one the bench workflow keeps)",
                    file=sys.stderr,
                )
            kept += at_ref or []
        records += [parse(line, "history") for line in kept]
        records += [load(path) for path in args.results]
        points, e2e, scale = gather(records)
        if args.output:
            page = render(points, len(records), e2e, scale)
            Path(args.output).write_text(page, encoding="utf-8")
            print(f"wrote {args.output}", file=sys.stderr)
    except ResultError as exc:
        print(f"dashboard: {exc}", file=sys.stderr)
        return 2
    if args.markdown:
        sys.stdout.write(markdown(points, e2e, scale))
    return 0


if __name__ == "__main__":
    sys.exit(main())
