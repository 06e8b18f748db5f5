"""Fixtures: the dashboard rendered from the committed result files in fixtures/."""

from __future__ import annotations

from pathlib import Path

import pytest
from dashboard_page import FIXTURES, Rendered, render


@pytest.fixture
def fixture_files() -> list[Path]:
    """Three commits: the oldest pytest-benchmark only, the others also compare.py with ref."""
    return sorted(FIXTURES.glob("*.json"))


@pytest.fixture
def page(fixture_files: list[Path], tmp_path: Path) -> Rendered:
    """The dashboard of every fixture file."""
    return render(fixture_files, tmp_path / "dashboard.html")
