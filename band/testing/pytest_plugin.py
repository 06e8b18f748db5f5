"""Pytest fixtures for testing Band agents against a real local platform.

Loaded by ``pytest -p band.testing`` or, once the package is installed, automatically (the
``pytest11`` entry point; ``-p no:band.testing.pytest_plugin`` turns it off)::

    def test_echo(band_platform):
        bot = band_platform.run_agent(EchoAdapter(), name="Echo")
        room = band_platform.room(bot)
        assert room.ask(bot, "hello").text == "hello"

Only pytest and the standard library are imported here; the platform loads when a fixture
is first used.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from .fake_tools import FakeAgentTools
    from .live import LocalBand
    from .scripted_model import ScriptedModel

__all__ = ["band_fake_tools", "band_platform", "scripted_model"]


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("band", "Band agent testing")
    group.addoption(
        "--band-timeout",
        type=float,
        default=10.0,
        help="seconds the band_platform fixture waits for start-up, agents and replies",
    )


@pytest.fixture
def band_platform(request: pytest.FixtureRequest) -> Iterator[LocalBand]:
    """A fresh ``band dev`` (in-memory database) on a free 127.0.0.1 port; agents started
    with ``run_agent`` are stopped, then the platform, when the test ends."""
    from .live import LocalBand

    band = LocalBand(timeout=float(request.config.getoption("--band-timeout")))
    band.start()
    try:
        yield band
    finally:
        band.stop()


@pytest.fixture
def band_fake_tools() -> FakeAgentTools:
    """A ``FakeAgentTools`` with no seeded state."""
    from .fake_tools import FakeAgentTools

    return FakeAgentTools()


@pytest.fixture
def scripted_model() -> Iterator[ScriptedModel]:
    """A started ``ScriptedModel`` with an empty script (``scripted_model.script(...)`` adds
    turns), stopped when the test ends."""
    from .scripted_model import ScriptedModel

    with ScriptedModel() as model:
        yield model
