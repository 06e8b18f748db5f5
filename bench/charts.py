"""Inline SVG charts for the benchmark dashboard: bars, lines over commits, log scales, bands.

Every chart is an ``<svg role="img">`` named by its own ``<title>`` and ``<desc>`` (the numbers
in words), drawn with colours that keep 3:1 against white and that also differ by dash and
marker shape. Noise is drawn where the data has it: a whisker from the slowest to the fastest
round on a bar, a shaded band from min to max over rounds around a line.
"""

from __future__ import annotations

import html
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

# Okabe-Ito hues (colour-blind safe), each >= 3:1 against white; dashes and markers also differ
STYLE = {
    "c": ("#0072B2", "", "circle"),
    "py": ("#C0392B", "7 4", "square"),
    "ref": ("#333333", "2 3", "diamond"),
    "c/ref": ("#0072B2", "", "circle"),
    "py/ref": ("#C0392B", "7 4", "square"),
    "c/py": ("#007A5A", "2 3", "diamond"),
}
FALLBACK_STYLE = ("#6A3D9A", "4 2 1 2", "circle")
# for series that are not implementations or ratios (end-to-end figures): Okabe-Ito again
PALETTE = (
    ("#0072B2", "", "circle"),
    ("#C0392B", "7 4", "square"),
    ("#007A5A", "2 3", "diamond"),
    ("#6A3D9A", "4 2 1 2", "circle"),
    ("#8A5A00", "10 3", "square"),
)
SHORT_COLOUR = "#B00020"


def style(name: str) -> tuple[str, str, str]:
    """Colour, dash pattern and marker shape of an implementation or a ratio."""
    return STYLE.get(name, FALLBACK_STYLE)


def esc(text: object) -> str:
    """Text for HTML and SVG, quotes escaped."""
    return html.escape(str(text), quote=True)


def short(value: float) -> str:
    """Compact number for axes: 1.2M, 350k, 0."""
    for div, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if value >= div:
            return f"{value / div:.3g}{suffix}"
    return f"{value:.3g}"


def full(value: float) -> str:
    """Number for tables and text: 1,234,567."""
    return f"{value:,.0f}"


def times(value: float) -> str:
    """A ratio: 2.36x."""
    return f"{value:.2f}x"


def ticks(top: float, count: int = 4) -> list[float]:
    """Round axis ticks from 0 to at least ``top``."""
    if top <= 0:
        return [0.0, 1.0]
    raw = top / count
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
    return [i * step for i in range(math.ceil(top / step - 1e-9) + 1)]


def _nice_125(value: float, up: bool) -> float:
    """The 1-2-5 step value at or beyond ``value`` (upwards or downwards)."""
    mag = 10.0 ** math.floor(math.log10(value))
    steps = [m * mag for m in (1, 2, 5, 10)]
    if up:
        return next(s for s in steps if s >= value * (1 - 1e-9))
    return next(s for s in reversed(steps) if s <= value * (1 + 1e-9))


@dataclass(frozen=True)
class LogScale:
    """A logarithmic axis from ``lo`` to ``hi`` (both > 0), mapped onto ``length`` pixels."""

    lo: float
    hi: float
    length: float

    @classmethod
    def around(cls, values: Sequence[float], length: float, *, include: float = 0) -> LogScale:
        """Bounds at 1-2-5 values around every value (and ``include`` when given)."""
        known = [v for v in values if v > 0] + ([include] if include > 0 else [])
        lo, hi = min(known, default=1.0), max(known, default=1.0)
        lo, hi = _nice_125(lo, up=False), _nice_125(hi, up=True)
        if hi <= lo:
            hi = _nice_125(lo * 1.5, up=True)
        return cls(lo, hi, length)

    def at(self, value: float) -> float:
        """Pixels from the axis start."""
        span = math.log10(self.hi) - math.log10(self.lo)
        return (math.log10(max(value, self.lo * 1e-3)) - math.log10(self.lo)) / span * self.length

    def ticks(self) -> list[float]:
        """1-2-5 values within the bounds; decades only when that is too many."""
        out: list[float] = []
        mag = 10 ** math.floor(math.log10(self.lo))
        while mag <= self.hi:
            out += [
                m * mag for m in (1, 2, 5) if self.lo * (1 - 1e-9) <= m * mag <= self.hi * 1.000001
            ]
            mag *= 10
        if len(out) > 7:
            out = [t for t in out if math.isclose(10 ** round(math.log10(t)), t)]
        return out


def _svg_open(cls: str, chart_id: str, width: float, height: float, title: str, desc: str) -> str:
    return (
        f'<svg class="chart {cls}" role="img" width="{width:.0f}" height="{height:.0f}" '
        f'viewBox="0 0 {width:.0f} {height:.0f}" aria-labelledby="{chart_id}-t {chart_id}-d">'
        f'<title id="{chart_id}-t">{esc(title)}</title><desc id="{chart_id}-d">{esc(desc)}</desc>'
    )


def marker(shape: str, x: float, y: float, color: str, tip: str, cls: str = "point") -> str:
    """A point marker (circle, square or diamond) with an optional tooltip."""
    tip_el = f"<title>{esc(tip)}</title>" if tip else ""
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


def _legend_layout(series: Sequence[Series], left: float, width: float) -> list[tuple[float, int]]:
    """(x, row) of each legend item: side by side, wrapping to a new row at ``width``."""
    places, x, row = [], left, 0
    for s in series:
        item = max(110.0, 36 + 7.5 * len(s.name) + 14)
        if x > left and x + item > left + width:
            x, row = left, row + 1
        places.append((x, row))
        x += item
    return places


def _legend_row(series: Sequence[Series], left: float, y: float, width: float = 440) -> str:
    out = []
    for s, (x, row) in zip(series, _legend_layout(series, left, width), strict=True):
        color, dash, shape = s.look or style(s.name)
        ly = y + 18 * row
        dash_attr = f' stroke-dasharray="{dash}"' if dash else ""
        out.append(
            f'<g class="legend-item" aria-hidden="true"><line x1="{x}" x2="{x + 30}" y1="{ly}" '
            f'y2="{ly}" stroke="{color}" stroke-width="2.5"{dash_attr}/>'
            f"{marker(shape, x + 15, ly, color, '', 'legend-mark')}"
            f'<text x="{x + 36}" y="{ly + 4}">{esc(s.name)}</text></g>'
        )
    return "".join(out)


Spread = tuple[float, float, float]  # min, median, max


def bar_chart(
    chart_id: str,
    title: str,
    values: dict[str, float],
    *,
    unit: str = "ops/s",
    spreads: dict[str, Spread | None] | None = None,
    better: str = "higher",
    fmt: Callable[[float], str] = short,
    order: Sequence[str] = ("c", "py", "ref"),
    labels: dict[str, str] | None = None,
    cls: str = "bar-chart",
    plot_w: int = 340,
) -> str:
    """Horizontal bars per implementation, each labelled; a min-max whisker over rounds."""
    names = [i for i in (*order, *sorted(set(values) - set(order))) if i in values]
    spreads = spreads or {}
    label_w = max(64, 8 + 7 * max(len((labels or {}).get(i, i)) for i in names))
    bar_h, gap, top = 26, 12, 10
    high = max([values[i] for i in names] + [s[2] for s in spreads.values() if s])
    axis = ticks(high)
    scale = plot_w / axis[-1]
    height = top + len(names) * (bar_h + gap) + 28
    width = label_w + plot_w + 70
    summary = "; ".join(
        f"{i} {full(values[i]) if unit == 'ops/s' else fmt(values[i])}" for i in names
    )
    out = [
        _svg_open(
            cls, chart_id, width, height, title, f"Bar chart, {better} is better: {summary} {unit}."
        )
    ]
    base_y = top + len(names) * (bar_h + gap)
    for tick in axis:
        x = label_w + tick * scale
        out.append(
            f'<line class="grid" x1="{x:.1f}" x2="{x:.1f}" y1="{top - 4}" y2="{base_y}"/>'
            f'<text class="tick" x="{x:.1f}" y="{base_y + 16}" text-anchor="middle">'
            f"{short(tick)}</text>"
        )
    for n, name in enumerate(names):
        y = top + n * (bar_h + gap)
        w = max(values[name] * scale, 1.0)
        color = style(name)[0]
        label = (labels or {}).get(name, name)
        out.append(
            f'<text class="label" x="{label_w - 8}" y="{y + bar_h / 2 + 5:.1f}" '
            f'text-anchor="end">{esc(label)}</text>'
            f'<rect class="bar" data-impl="{esc(name)}" data-value="{values[name]:.1f}" '
            f'x="{label_w}" y="{y}" width="{w:.1f}" height="{bar_h}" fill="{color}">'
            f"<title>{esc(label)}: {esc(fmt(values[name]))} {esc(unit)}</title></rect>"
        )
        value_x = label_w + w + 6
        spread = spreads.get(name)
        if spread:
            lo, _, hi = spread
            x1, x2, mid = label_w + lo * scale, label_w + hi * scale, y + bar_h / 2
            out.append(
                f'<g class="noise" data-impl="{esc(name)}" data-min="{lo:.1f}" data-max="{hi:.1f}">'
                f"<title>{esc(label)}: rounds from {esc(fmt(lo))} to {esc(fmt(hi))}</title>"
                f'<line x1="{x1:.1f}" x2="{x2:.1f}" y1="{mid:.1f}" y2="{mid:.1f}"/>'
                f'<line x1="{x1:.1f}" x2="{x1:.1f}" y1="{mid - 6:.1f}" y2="{mid + 6:.1f}"/>'
                f'<line x1="{x2:.1f}" x2="{x2:.1f}" y1="{mid - 6:.1f}" y2="{mid + 6:.1f}"/></g>'
            )
            value_x = max(value_x, x2 + 6)
        out.append(
            f'<text class="value" x="{value_x:.1f}" y="{y + bar_h / 2 + 5:.1f}">'
            f"{esc(fmt(values[name]))}</text>"
        )
    out.append("</svg>")
    return "".join(out)


@dataclass
class Series:
    """One line: a value (or None) per x position, with an optional min-max band per position."""

    name: str
    values: list[float | None]
    bands: list[Spread | None]
    look: tuple[str, str, str] | None = None  # colour, dash, marker; else the name's style


def _path(coords: Sequence[tuple[float, float] | None]) -> str:
    parts, pen_down = [], False
    for xy in coords:
        if xy is None:
            pen_down = False
            continue
        parts.append(f"{'L' if pen_down else 'M'}{xy[0]:.1f} {xy[1]:.1f}")
        pen_down = True
    return " ".join(parts)


def _band(xs: Sequence[float], bands: Sequence[Spread | None], y: Callable[[float], float]) -> str:
    """A polygon from min to max over each run of consecutive positions with a band."""
    out, run = [], []
    for x, band in [*zip(xs, bands, strict=True), (0.0, None)]:
        if band is not None:
            run.append((x, band))
            continue
        if run:
            if len(run) == 1:  # one position: a short vertical bar of its spread
                ((bx, (lo, _, hi)),) = run
                run = [(bx - 4, (lo, 0, hi)), (bx + 4, (lo, 0, hi))]
            upper = [f"{bx:.1f},{y(b[2]):.1f}" for bx, b in run]
            lower = [f"{bx:.1f},{y(b[0]):.1f}" for bx, b in reversed(run)]
            out.append(" ".join(upper + lower))
            run = []
    return "".join(f'<polygon points="{pts}"/>' for pts in out)


@dataclass(frozen=True)
class Tick:
    """An x position's label: the commit, and its date under it."""

    commit: str
    date: str


def over_commits(
    chart_id: str,
    cls: str,
    title: str,
    desc: str,
    series: Sequence[Series],
    xs_labels: Sequence[Tick],
    *,
    log: bool,
    unit: str,
    par: float | None = None,
    flagged: dict[int, str] | None = None,
    fmt: Callable[[float], str] = short,
    plot_w: int = 400,
) -> str:
    """Lines over commits (oldest left) with noise bands; log or linear y; a par line."""
    left, plot_h, top = 60, 180, 30
    rows = 1 + max((row for _, row in _legend_layout(series, left, plot_w)), default=0)
    width, height = left + plot_w + 40, top + plot_h + 56 + 18 * rows
    count = len(xs_labels)
    step = plot_w / max(count - 1, 1)
    xs = [left + (n * step if count > 1 else plot_w / 2) for n in range(count)]
    every = [v for s in series for v in s.values if v] + [
        b[k] for s in series for b in s.bands if b for k in (0, 2)
    ]
    if log:
        scale = LogScale.around(every, plot_h, include=par or 0)
        axis = scale.ticks()

        def y(value: float) -> float:
            return top + plot_h - scale.at(value)
    else:
        axis = ticks(max(every, default=1.0))

        def y(value: float) -> float:
            return top + plot_h - value / axis[-1] * plot_h

    out = [
        _svg_open(cls, chart_id, width, height, title, desc).replace(
            "<svg ", f'<svg data-y-scale="{"log" if log else "linear"}" ', 1
        ),
        f'<text class="tick" x="{left - 6}" y="{top - 14}" text-anchor="end">{esc(unit)}</text>',
    ]
    for tick in axis:
        ty = y(tick)
        out.append(
            f'<line class="grid" data-value="{tick:g}" x1="{left}" x2="{left + plot_w}" '
            f'y1="{ty:.1f}" y2="{ty:.1f}"/><text class="tick" x="{left - 6}" y="{ty + 4:.1f}" '
            f'text-anchor="end">{esc(fmt(tick))}</text>'
        )
    if par is not None:
        py_ = y(par)
        out.append(
            f'<line class="par" x1="{left}" x2="{left + plot_w}" y1="{py_:.1f}" y2="{py_:.1f}"/>'
            f'<text class="par-label" x="{left + plot_w + 4}" y="{py_ + 4:.1f}">'
            f"{esc(fmt(par))}</text>"
        )
    shown = max(1, math.ceil(count / 8))  # at most 8 labels: they must not overlap
    for n, (x, label) in enumerate(zip(xs, xs_labels, strict=True)):
        if n % shown and n != count - 1:
            continue
        out.append(
            f'<text class="tick commit" x="{x:.1f}" y="{top + plot_h + 18}" '
            f'text-anchor="middle">{esc(label.commit[:7])}</text>'
            f'<text class="tick date" x="{x:.1f}" y="{top + plot_h + 32}" '
            f'text-anchor="middle">{esc(label.date)}</text>'
        )
    for s in series:
        color, dash, shape = s.look or style(s.name)
        if any(s.bands):
            out.append(
                f'<g class="noise-band" data-impl="{esc(s.name)}" fill="{color}" '
                f'fill-opacity="0.16">{_band(xs, s.bands, y)}</g>'
            )
        coords = [(x, y(v)) if v else None for x, v in zip(xs, s.values, strict=True)]
        dash_attr = f' stroke-dasharray="{dash}"' if dash else ""
        out.append(
            f'<path class="series" data-impl="{esc(s.name)}" d="{_path(coords)}" fill="none" '
            f'stroke="{color}" stroke-width="2.5"{dash_attr}/>'
        )
        for n, xy in enumerate(coords):
            if xy and s.values[n]:
                value = s.values[n] or 0.0
                tip = f"{s.name} at {xs_labels[n].commit} ({xs_labels[n].date}): {fmt(value)}"
                out.append(marker(shape, *xy, color, tip))
    for n, why in (flagged or {}).items():
        x = xs[n]
        out.append(
            f'<g class="regression" data-index="{n}"><title>{esc(why)}</title>'
            f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{top}" y2="{top + plot_h}"/>'
            f'<text x="{x:.1f}" y="{top - 4}" text-anchor="middle">regression</text></g>'
        )
    out.append(_legend_row(series, left, top + plot_h + 56, plot_w))
    out.append("</svg>")
    return "".join(out)


def size_chart(chart_id: str, family: str, sizes: Sequence[int], series: Sequence[Series]) -> str:
    """Ops/s against the number of tracked ids, both axes logarithmic: flat means O(1)."""
    left, plot_w, plot_h, top = 56, 360, 160, 30
    width, height = left + plot_w + 40, top + plot_h + 70
    values = [v for s in series for v in s.values if v] + [
        b[k] for s in series for b in s.bands if b for k in (0, 2)
    ]
    ys = LogScale.around(values, plot_h)
    # sizes sit at their log position; the axis spans the decades around them
    lo_x = 10 ** math.floor(math.log10(min(sizes)))
    hi_x = 10 ** math.ceil(math.log10(max(sizes)))
    xscale = LogScale(lo_x, hi_x if hi_x > lo_x else lo_x * 10, plot_w)

    def x(size: float) -> float:
        return left + xscale.at(size)

    def y(value: float) -> float:
        return top + plot_h - ys.at(value)

    summary = "; ".join(
        f"{s.name}: "
        + ", ".join(f"{full(v)} at {size:,}" for size, v in zip(sizes, s.values, strict=True) if v)
        for s in series
    )
    out = [
        _svg_open(
            "size-chart",
            chart_id,
            width,
            height,
            f"{family}: operations per second against tracked ids",
            f"Line chart, both axes on a log scale: {summary} ops/s.",
        ).replace("<svg ", '<svg data-x-scale="log" data-y-scale="log" ', 1),
        f'<text class="tick" x="{left - 6}" y="{top - 14}" text-anchor="end">ops/s</text>',
    ]
    for tick in ys.ticks():
        ty = y(tick)
        out.append(
            f'<line class="grid" data-value="{tick:g}" x1="{left}" x2="{left + plot_w}" '
            f'y1="{ty:.1f}" y2="{ty:.1f}"/><text class="tick" x="{left - 6}" y="{ty + 4:.1f}" '
            f'text-anchor="end">{short(tick)}</text>'
        )
    decade = lo_x
    while decade <= xscale.hi:
        tx = x(decade)
        out.append(
            f'<line class="grid" x1="{tx:.1f}" x2="{tx:.1f}" y1="{top}" y2="{top + plot_h}"/>'
            f'<text class="tick size" data-size="{decade:g}" x="{tx:.1f}" y="{top + plot_h + 18}" '
            f'text-anchor="middle">{decade:,.0f}</text>'
        )
        decade *= 10
    out.append(
        f'<text class="tick" x="{left + plot_w / 2:.1f}" y="{top + plot_h + 34}" '
        'text-anchor="middle">tracked ids (log scale)</text>'
    )
    for s in series:
        color, dash, shape = style(s.name)
        xs = [x(size) for size in sizes]
        if any(s.bands):
            out.append(
                f'<g class="noise-band" data-impl="{esc(s.name)}" fill="{color}" '
                f'fill-opacity="0.16">{_band(xs, s.bands, y)}</g>'
            )
        coords = [(xs[k], y(v)) if v else None for k, v in enumerate(s.values)]
        dash_attr = f' stroke-dasharray="{dash}"' if dash else ""
        out.append(
            f'<path class="series" data-impl="{esc(s.name)}" d="{_path(coords)}" fill="none" '
            f'stroke="{color}" stroke-width="2.5"{dash_attr}/>'
        )
        for k, xy in enumerate(coords):
            if xy:
                tip = f"{s.name} at {sizes[k]:,} ids: {full(s.values[k] or 0)} ops/s"
                out.append(
                    marker(shape, *xy, color, tip).replace(
                        ' class="point"', f' class="point" data-size="{sizes[k]}"', 1
                    )
                )
    out.append(_legend_row(series, left, top + plot_h + 56))
    out.append("</svg>")
    return "".join(out)
