"""Benchmark suite set-up: the ``py``/``c`` fixtures of tests/conftest.py, run metadata.

The implementation fixtures (``<topic>_impl``, ids ``py`` and ``c``) are the
test suite's own, imported from tests/conftest.py so both suites pick
implementations the same way.
"""

from __future__ import annotations

import importlib.util
import sys
from typing import Any

import pytest
import runinfo

_NAME = "band_core_impl_fixtures"
_spec = importlib.util.spec_from_file_location(_NAME, runinfo.ROOT / "tests" / "conftest.py")
assert _spec is not None and _spec.loader is not None
impls = importlib.util.module_from_spec(_spec)
sys.modules[_NAME] = impls
_spec.loader.exec_module(impls)

pytest_generate_tests = impls.pytest_generate_tests
for _topic in impls.TOPICS:
    globals()[f"_{_topic}_impl"] = getattr(impls, f"_{_topic}_impl")


def pytest_addoption(parser: pytest.Parser) -> None:
    """Register the fixtures' options, unless tests/conftest.py did in this same run."""
    try:
        impls.pytest_addoption(parser)
    except ValueError:  # "option names ... already added"
        pass


@pytest.fixture(scope="session")
def run_info() -> dict[str, Any]:
    """Commit, machine and python of this run, for every result's ``extra_info``."""
    return {"commit": runinfo.commit(), "machine": runinfo.machine(), "python": runinfo.python()}


def pytest_benchmark_update_json(
    config: pytest.Config, benchmarks: list[Any], output_json: dict[str, Any]
) -> None:
    """Keep the statistics, drop the raw round timings (megabytes per run) from the JSON."""
    for bench in output_json["benchmarks"]:
        bench["stats"].pop("data", None)
