"""pytest-benchmark: every operation of bench/operations.py against ``py`` and ``c``.

``make bench`` runs it and keeps the JSON under bench/results/; by hand:
``.venv/bin/python -Im pytest bench --benchmark-json=out.json``.
"""

from __future__ import annotations

from types import ModuleType, SimpleNamespace
from typing import Any

import pytest
from operations import OPERATIONS, Operation

import band_sdk_core


def _core(impl: ModuleType) -> SimpleNamespace:
    """The package's public names, with those the implementation module has taken from it.

    The claim cycle, for example, gets ``ClaimRegistry`` from the claims module
    under test and ``RetryTracker`` from the package, as a user would. A plain
    namespace, so a name lookup costs what a module attribute lookup costs.
    """
    names = {name: getattr(band_sdk_core, name) for name in band_sdk_core.__all__}
    names.update((name, value) for name, value in vars(impl).items() if name in names)
    return SimpleNamespace(**names)


def _of(topic: str) -> list[Any]:
    return [pytest.param(op, id=op.slug) for op in OPERATIONS if op.topic == topic]


def _run(benchmark: Any, operation: Operation, impl: ModuleType, info: dict[str, Any]) -> None:
    implementation = impl.__name__.rsplit("_", 1)[1]  # band_sdk_core._roster_c -> c
    benchmark.group = operation.name
    benchmark.extra_info.update(
        info, operation=operation.name, topic=operation.topic, implementation=implementation
    )
    benchmark(operation.build(_core(impl)))


@pytest.mark.parametrize("operation", _of("payload"))
def test_payload(benchmark: Any, operation: Operation, payload_impl: ModuleType, run_info: Any):
    _run(benchmark, operation, payload_impl, run_info)


@pytest.mark.parametrize("operation", _of("delivery"))
def test_delivery(benchmark: Any, operation: Operation, delivery_impl: ModuleType, run_info: Any):
    _run(benchmark, operation, delivery_impl, run_info)


@pytest.mark.parametrize("operation", _of("roster"))
def test_roster(benchmark: Any, operation: Operation, roster_impl: ModuleType, run_info: Any):
    _run(benchmark, operation, roster_impl, run_info)


@pytest.mark.parametrize("operation", _of("retry"))
def test_retry(benchmark: Any, operation: Operation, retry_impl: ModuleType, run_info: Any):
    _run(benchmark, operation, retry_impl, run_info)


@pytest.mark.parametrize("operation", _of("claims"))
def test_claims(benchmark: Any, operation: Operation, claims_impl: ModuleType, run_info: Any):
    _run(benchmark, operation, claims_impl, run_info)


@pytest.mark.parametrize("operation", _of("decisions"))
def test_decisions(
    benchmark: Any, operation: Operation, decisions_impl: ModuleType, run_info: Any
) -> None:
    _run(benchmark, operation, decisions_impl, run_info)


@pytest.mark.parametrize("operation", _of("subscriptions"))
def test_subscriptions(
    benchmark: Any, operation: Operation, subscriptions_impl: ModuleType, run_info: Any
) -> None:
    _run(benchmark, operation, subscriptions_impl, run_info)


@pytest.mark.parametrize("operation", _of("session"))
def test_session(benchmark: Any, operation: Operation, session_impl: ModuleType, run_info: Any):
    _run(benchmark, operation, session_impl, run_info)


@pytest.mark.parametrize("operation", _of("turn"))
def test_turn(benchmark: Any, operation: Operation, turn_impl: ModuleType, run_info: Any):
    _run(benchmark, operation, turn_impl, run_info)


@pytest.mark.parametrize("operation", _of("activity"))
def test_activity(benchmark: Any, operation: Operation, activity_impl: ModuleType, run_info: Any):
    _run(benchmark, operation, activity_impl, run_info)


def test_every_operation_has_a_benchmark() -> None:
    """A new operation's topic needs its test above, or it would silently go unmeasured."""
    benchmarked = {name[len("test_") :] for name in globals() if name.startswith("test_")}
    assert {op.topic for op in OPERATIONS} <= benchmarked
