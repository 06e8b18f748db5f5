"""The dashboard in headless Chromium: its charts render, it loads nothing, a screenshot is kept.

Chromium is Debian's, launched by ``bandtest.browser`` (which says how it is found, and fails
under CI / skips elsewhere when it is missing). The screenshot goes to ``$BAND_TEST_ARTIFACTS``
(default: the test's tmp dir).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from bandtest.browser import artifacts_dir, chromium
from dashboard_page import Rendered, render
from synthetic import SHORT_ROW, names, write_history

# every chart's drawn geometry, as the browser laid it out
GEOMETRY = """() => [...document.querySelectorAll('svg.chart')].map(svg => ({
  kind: svg.classList.contains('bar-chart') ? 'bar'
    : svg.classList.contains('line-chart') ? 'line' : svg.classList[1],
  box: svg.getBoundingClientRect().toJSON(),
  label: svg.getAttribute('aria-labelledby').split(' ')
    .map(id => document.getElementById(id).textContent).join(' '),
  bars: [...svg.querySelectorAll('rect.bar')].map(r => ({
    impl: r.dataset.impl, value: +r.dataset.value, box: r.getBoundingClientRect().toJSON()})),
  lines: [...svg.querySelectorAll('path.series')].map(p => ({
    impl: p.dataset.impl, length: p.getTotalLength(),
    box: p.getBoundingClientRect().toJSON()})),
}))"""


def test_charts_render_in_chromium(
    page: Rendered, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    requests: list[str] = []
    errors: list[str] = []
    with chromium() as browser:
        tab = browser.new_page(viewport={"width": 1100, "height": 900})
        tab.on("request", lambda request: requests.append(request.url))
        tab.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
        tab.on("pageerror", lambda exc: errors.append(str(exc)))
        tab.goto(page.path.as_uri())
        charts: list[dict[str, Any]] = tab.evaluate(GEOMETRY)
        shot = artifacts_dir(tmp_path) / "bench-dashboard.png"
        tab.screenshot(path=str(shot), full_page=True)
    with capsys.disabled():
        print(f"\ndashboard screenshot: {shot}")

    assert requests == [page.path.as_uri()]  # no fonts, scripts or images fetched
    assert errors == []
    bars = [c for c in charts if c["kind"] == "bar"]
    lines = [c for c in charts if c["kind"] == "line"]
    assert len(bars) == len(lines) == 13
    assert charts[0]["kind"] == "ratio-chart"  # the headline comes first
    for chart in charts:
        assert chart["box"]["width"] > 300 and chart["box"]["height"] > 100
    for chart in bars + lines:
        assert "operations per second" in chart["label"]
    for chart in bars:
        assert [b["impl"] for b in chart["bars"]] == ["c", "py", "ref"]
        widest = max(chart["bars"], key=lambda b: b["value"])
        for bar in chart["bars"]:
            box = bar["box"]
            assert box["height"] > 10 and box["width"] > 1
            # drawn inside the chart, with lengths in proportion to the values
            assert chart["box"]["left"] <= box["left"] and box["right"] <= chart["box"]["right"]
            ratio = box["width"] / widest["box"]["width"]
            assert ratio == pytest.approx(bar["value"] / widest["value"], rel=0.02)
    for chart in lines:
        assert [s["impl"] for s in chart["lines"]] == ["c", "py", "ref"]
        for series in chart["lines"]:
            assert series["length"] > 50
            assert chart["box"]["top"] <= series["box"]["top"] <= chart["box"]["bottom"]
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 20_000


# where the headline, the marks and the log axes landed, as laid out
LAYOUT = """() => {
  const box = el => el.getBoundingClientRect().toJSON();
  const q = sel => document.querySelector(sel);
  const shortCell = q('td.short');
  const ratio = q('svg.ratio-chart');
  const grid = v => box(ratio.querySelector(`line.grid[data-value="${v}"]`)).top;
  const size = q('svg.size-chart');
  const at = n => box(size.querySelector(`circle.point[data-size="${n}"]`));
  return {
    page: {width: document.documentElement.scrollWidth, viewport: innerWidth},
    headline: box(q('#headline h2')),
    tiles: [...document.querySelectorAll('#headline li.tile')].map(t => ({
      ratio: t.dataset.ratio, text: t.innerText, box: box(t)})),
    ratioChart: box(ratio),
    grid: {half: grid(0.5), one: grid(1), two: grid(2)},
    par: box(ratio.querySelector('line.par')),
    regression: box(ratio.querySelector('g.regression line')),
    lastPoint: box([...ratio.querySelectorAll('circle.point')].at(-1)),
    shortfall: {text: q('li.shortfall').innerText, box: box(q('li.shortfall'))},
    shortCell: {text: shortCell.innerText,
      row: shortCell.parentElement.querySelector('th').innerText,
      background: getComputedStyle(shortCell).backgroundColor},
    plainCell: getComputedStyle(q('tr:not(.short) td')).backgroundColor,
    sizes: {x100: at(100).x, x10k: at(10000).x, x100k: at(100000).x},
    bands: [...document.querySelectorAll('g.noise-band polygon')].map(p => box(p).height),
    whiskers: [...document.querySelectorAll('#detail ~ section svg.bar-chart g.noise')]
      .map(g => box(g).width),
  };
}"""


def test_headline_marks_and_log_axes_in_chromium(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    kept = tmp_path / "history.jsonl"
    write_history(kept)
    page = render([Path("--history"), kept], tmp_path / "dashboard.html")
    requests: list[str] = []
    with chromium() as browser:
        tab = browser.new_page(viewport={"width": 1100, "height": 900})
        tab.on("request", lambda request: requests.append(request.url))
        tab.goto(page.path.as_uri())
        wide: dict[str, Any] = tab.evaluate(LAYOUT)
        shot = artifacts_dir(tmp_path) / "bench-dashboard-headline.png"
        tab.locator("#headline").screenshot(path=str(shot))
        phone_tab = browser.new_page(viewport={"width": 390, "height": 844}, is_mobile=True)
        phone_tab.goto(page.path.as_uri())
        phone: dict[str, Any] = phone_tab.evaluate(LAYOUT)
        phone_shot = artifacts_dir(tmp_path) / "bench-dashboard-phone.png"
        phone_tab.screenshot(path=str(phone_shot))
    with capsys.disabled():
        print(f"\nheadline screenshots: {shot} {phone_shot}")
    assert requests == [page.path.as_uri()]

    # the headline opens the page: its tiles and chart within the first screen
    assert wide["headline"]["top"] < 200
    assert [t["ratio"] for t in wide["tiles"]] == ["c/ref", "py/ref", "c/py"]
    assert all(t["box"]["bottom"] < 900 for t in wide["tiles"])
    assert wide["ratioChart"]["top"] < 900
    assert "commits since 2026-11-25" in wide["tiles"][0]["text"]
    # log scale: 0.5x, 1x and 2x equally spaced; the 1.0x line drawn on 1x
    assert wide["grid"]["half"] - wide["grid"]["one"] == pytest.approx(
        wide["grid"]["one"] - wide["grid"]["two"], abs=1.0
    )
    assert wide["par"]["top"] == pytest.approx(wide["grid"]["one"], abs=2.0)
    # the regression's line stands on the last commit; the short row is listed and coloured
    regression_x = wide["regression"]["x"] + wide["regression"]["width"] / 2
    last_x = wide["lastPoint"]["x"] + wide["lastPoint"]["width"] / 2
    assert regression_x == pytest.approx(last_x, abs=2.0)
    assert wide["shortfall"]["text"].startswith(f"{SHORT_ROW}: c/ref 0.7")
    assert wide["shortfall"]["box"]["top"] < 900  # beside the chart, not pages below
    assert wide["shortCell"]["row"] == SHORT_ROW and "0.7" in wide["shortCell"]["text"]
    assert wide["shortCell"]["background"] != wide["plainCell"]
    # sizes on a log axis: 100 -> 10,000 (two decades) twice as wide as 10,000 -> 100,000
    sizes = wide["sizes"]
    assert sizes["x10k"] - sizes["x100"] == pytest.approx(
        2 * (sizes["x100k"] - sizes["x10k"]), rel=0.02
    )
    # noise drawn: bands around lines (three rounds each), whiskers on bars
    assert wide["bands"] and all(h > 0 for h in wide["bands"])
    # one whisker per implementation (c, py, ref) per operation of bench/operations.py
    assert len(wide["whiskers"]) == 3 * len(names()) and all(w > 0 for w in wide["whiskers"])

    # on a phone: nothing wider than the screen, the headline still first
    # (a mobile browser widens its layout viewport to fit what overflows: both stay at 390)
    assert phone["page"]["width"] <= 390 and phone["page"]["viewport"] == 390
    assert all(t["box"]["right"] <= 390 for t in phone["tiles"])
    assert phone["ratioChart"]["right"] <= 390
    assert phone["tiles"][0]["box"]["top"] < 300
    for image in (shot, phone_shot):
        assert image.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
