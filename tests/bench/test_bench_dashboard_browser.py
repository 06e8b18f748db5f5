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
from dashboard_page import Rendered

# every chart's drawn geometry, as the browser laid it out
GEOMETRY = """() => [...document.querySelectorAll('svg.chart')].map(svg => ({
  kind: svg.classList.contains('bar-chart') ? 'bar' : 'line',
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
    for chart in charts:
        assert chart["box"]["width"] > 300 and chart["box"]["height"] > 100
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
