"""Run every core test against both implementations (ids ``py`` and ``c``).

A test that takes ``<topic>_impl`` (e.g. ``retry_impl``) receives the
implementation module of that topic: ``band_sdk_core._<topic>_py`` and, when
the topic is compiled, ``band_sdk_core._<topic>_c``.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Iterator
from types import ModuleType
from typing import TYPE_CHECKING

import pytest

from band_sdk_core import _compat

if TYPE_CHECKING:
    from bandtest.platform import Live

TOPICS = (
    "json",
    "payload",
    "delivery",
    "activity",
    "failure",
    "retry",
    "claims",
    "roster",
    "subscriptions",
    "decisions",
    "session",
    "turn",
    "push",
)


def _compiled_topics() -> set[str]:
    return {name[1:-2] for name in _compat.COMPILED_MODULES}


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--no-compiled", action="store_true", help="deselect tests of the compiled modules"
    )


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    compiled = _compiled_topics()
    for topic in TOPICS:
        fixture = f"{topic}_impl"
        if fixture not in metafunc.fixturenames:
            continue
        params = [pytest.param(f"band_sdk_core._{topic}_py", id="py")]
        if topic in compiled:
            params.append(
                pytest.param(f"band_sdk_core._{topic}_c", id="c", marks=pytest.mark.compiled)
            )
        metafunc.parametrize(fixture, params, indirect=True)


def _load(request: pytest.FixtureRequest) -> ModuleType:
    name = request.param
    if request.node.get_closest_marker("compiled"):
        if request.config.getoption("--no-compiled") or _compat.NO_EXTENSIONS:
            pytest.skip("compiled implementation disabled by BAND_SDK_CORE_NO_EXTENSIONS")
        if not _compat.REQUIRE_EXTENSIONS:
            try:
                return importlib.import_module(name)
            except ImportError:
                pytest.skip(f"{name} is not built (set BAND_SDK_CORE_REQUIRE_EXTENSIONS=1 to fail)")
    return importlib.import_module(name)


def _make_fixture(topic: str):  # type: ignore[no-untyped-def]
    @pytest.fixture(name=f"{topic}_impl")
    def _fixture(request: pytest.FixtureRequest) -> ModuleType:
        return _load(request)

    return _fixture


for _topic in TOPICS:
    globals()[f"_{_topic}_impl"] = _make_fixture(_topic)

os.environ.setdefault("HYPOTHESIS_PROFILE", "default")

if os.environ.get("BAND_CROSS_EMULATED"):
    # make test-cross runs tests/core under qemu-user (tests/cross/run.sh): an emulated example
    # can take seconds, so Hypothesis' per-example deadline would fail a correct run
    from hypothesis import settings

    settings.register_profile("emulated", deadline=None)
    settings.load_profile("emulated")


@pytest.fixture
def live() -> Iterator[Live]:
    """A real local Band platform (uvicorn on a free 127.0.0.1 port, in-memory DB)."""
    # imported here so the core tests run where only band_sdk_core is installed (wheel tests)
    from bandtest.platform import live_platform

    yield from live_platform()


#: skips that are expected by design (a core implementation switched off, another OS)
EXPECTED_SKIPS = ("compiled implementation disabled", "the compiled modules are not built", "POSIX")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    """Under CI (``CI`` set, as .ci/run has it) an unexpected skip fails: green means all ran."""
    outcome = yield
    report = outcome.get_result()
    if not (os.environ.get("CI") and report.skipped) or hasattr(report, "wasxfail"):
        return
    reason = str(report.longrepr[2]) if isinstance(report.longrepr, tuple) else str(report.longrepr)
    if not any(expected in reason for expected in EXPECTED_SKIPS):
        report.outcome = "failed"
        report.longrepr = f"unexpected skip under CI (a fresh machine runs every test): {reason}"
