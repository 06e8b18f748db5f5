"""band-mcp tests: one local platform and one clean working directory per module."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from bandtest.platform import Live, live_platform


@pytest.fixture(scope="module")
def plat() -> Iterator[Live]:
    """One real local Band platform for the tests of a module."""
    yield from live_platform()


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An empty working directory (no stray ``.env``) for the module's servers."""
    return tmp_path_factory.mktemp("band-mcp")
