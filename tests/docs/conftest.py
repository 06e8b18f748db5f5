"""The documentation site, built once per run with ``mkdocs build --strict`` (as ``make docs``)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The built site's folder; the build fails the tests that use it on any warning."""
    pytest.importorskip("mkdocs", reason="the docs extra is not installed (pip install .[docs])")
    out = tmp_path_factory.mktemp("site")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    build = subprocess.run(
        [sys.executable, "-Im", "mkdocs", "build", "--strict", "--site-dir", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert build.returncode == 0, f"mkdocs build --strict failed:\n{build.stderr[-4000:]}"
    yield out
