"""Run bench/dashboard.py as a user does and parse the page it writes."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = Path(__file__).resolve().parent / "fixtures"
DASHBOARD = ROOT / "bench" / "dashboard.py"


@dataclass
class Rendered:
    """One run of the dashboard command: the page, its elements and the Markdown printed."""

    html: str
    elements: list[tuple[str, dict[str, str]]]
    markdown: str
    path: Path

    def find(self, tag: str, cls: str | None = None) -> list[dict[str, str]]:
        """Attributes of every ``tag`` element (with ``cls`` among its classes)."""
        return [
            attrs
            for name, attrs in self.elements
            if name == tag and (cls is None or cls in attrs.get("class", "").split())
        ]


class _Elements(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.elements: list[tuple[str, dict[str, str]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.elements.append((tag, {k: v or "" for k, v in attrs}))

    handle_startendtag = handle_starttag


def run_script(script: Path, *args: str | Path) -> subprocess.CompletedProcess[str]:
    """Run ``python SCRIPT ARGS`` as a user does, capturing its text output."""
    return subprocess.run(
        [sys.executable, str(script), *map(str, args)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def run_dashboard(*args: str | Path) -> subprocess.CompletedProcess[str]:
    """Run ``python bench/dashboard.py ARGS``."""
    return run_script(DASHBOARD, *args)


def render(files: list[Path], out: Path) -> Rendered:
    """Render ``files`` to ``out`` with --markdown; fail on a non-zero exit."""
    done = run_dashboard(*files, "-o", out, "--markdown")
    assert done.returncode == 0, done.stderr
    page = out.read_text(encoding="utf-8")
    parser = _Elements()
    parser.feed(page)
    return Rendered(page, parser.elements, done.stdout, out)
