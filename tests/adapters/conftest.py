"""The framework adapters' tests: a local platform and a scripted model for each test."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from band.testing import LocalBand, ScriptedModel, local_band

from .framework_helpers import TIMEOUT


@pytest.fixture
def band() -> Iterator[LocalBand]:
    """A started local platform (``band dev`` in process)."""
    with local_band(timeout=TIMEOUT) as b:
        yield b


@pytest.fixture
def model() -> Iterator[ScriptedModel]:
    """A started scripted model server with an empty script."""
    with ScriptedModel() as m:
        yield m
