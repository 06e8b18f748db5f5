"""Exactly once through a faulty network and agent kills: nothing lost, nothing answered twice.

A seeded fault proxy (``faultproxy.Chaos``) sits between an echo agent process's REST calls and
the real local platform, and faults each lifecycle request (``/next``, ``/processing``, the
reply POST, ``/processed``, ``/failed``, events) with probability 0.2: the answer lost after
the platform applied it, a connection reset before it, 502/503/504/429 before forwarding (with
and without ``Retry-After``), or a delay. Each fault class gets its own agent, rooms and proxy;
the classes run side by side. The kill schedules SIGKILL the agent from inside the proxy at the
points where exactly-once is decided (before the reply POST, after it, before and after the
processed mark) and start it again.

Every mention must be answered exactly once, every message end ``processed``, and every answer
land within ``BOUND`` seconds of its mention. ``make bench-faults`` runs the same scenarios
with the official SDK beside ours and prints the table (bench/faults.py).
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from bandtest.platform import Live, live_platform

from .faultproxy import FAULTS, KILL_POINTS, Chaos
from .faultrun import Outcome, run

#: Fault classes: which faults each scenario injects.
SCENARIOS: dict[str, tuple[str, ...]] = {
    "lost": ("lost",),
    "reset": ("reset",),
    "status": ("502", "503", "504", "429", "429+ra", "503+ra"),
    "delay": ("delay",),
    "all": FAULTS,
}
P = 0.2
#: The delay fault's range here (CI time); the bench uses the issue's 3-6 s.
DELAY = (1.0, 4.0)
#: A turn's path to its answer crosses at most three faulted calls in a row that each may wait
#: the longest delay (the previous processed mark, the processing mark, the reply), and the
#: retries' backoff (the client's ceilings 0.5+1+2+4 s); then slack for a loaded machine and,
#: for a kill, the agent process starting again (up to 13 s measured on 2 cores at load 19).
BOUND = 3 * DELAY[1] + 7.5 + 25.0


@pytest.fixture
def live(tmp_path: Path) -> Iterator[Live]:
    """The local platform on a SQLite file."""
    yield from live_platform(str(tmp_path / "band.sqlite3"))


def _check(outcomes: list[Outcome]) -> None:
    """Ours: 0 lost, 0 duplicated, all settled, each answer within ``BOUND``."""
    for o in outcomes:
        faults = dict(o.injected) if o.injected else f"{o.kills} kills, {o.starts} starts"
        print(f"\n{o.name}: {o.sent} sent, {o.row()}; {faults}")
    bad = {
        o.name: (o.lost, o.duplicated, o.unsettled, round(o.slowest, 1), o.late)
        for o in outcomes
        if o.lost or o.duplicated or o.unsettled or o.slowest > BOUND or o.late
    }
    assert not bad, f"(lost, duplicated, unsettled, slowest, late) per scenario: {bad}"


@pytest.mark.parametrize("seed", [11, 12, 13])
def test_fault_classes_answered_exactly_once(live: Live, tmp_path: Path, seed: int) -> None:
    """Every fault class, side by side: each mention answered once, in time, and settled."""

    async def scenarios() -> list[Outcome]:
        runs = [
            run(
                live,
                tmp_path / name,
                f"{name}-{seed}",
                python=sys.executable,
                chaos=Chaos(seed * 100 + i, faults=faults, p=P, delay=DELAY),
                rooms=4,
                mentions=2,
                wait=BOUND + 10,
            )
            for i, (name, faults) in enumerate(SCENARIOS.items())
        ]
        return list(await asyncio.gather(*runs))

    outcomes = asyncio.run(scenarios())
    _check(outcomes)
    # the faults did strike, in each class
    assert all(sum(o.injected.values()) > 0 for o in outcomes), [o.injected for o in outcomes]


def test_kill_points_answered_exactly_once(live: Live, tmp_path: Path) -> None:
    """SIGKILL at each point where exactly-once is decided, twice per point: each mention
    answered once (a re-served message already answered is settled, not run again)."""

    async def scenarios() -> list[Outcome]:
        runs = [
            run(
                live,
                tmp_path / point,
                point,
                python=sys.executable,
                kill_point=point,
                rooms=2,
                mentions=3,
                wait=BOUND + 10,
            )
            for point in KILL_POINTS
        ]
        return list(await asyncio.gather(*runs))

    outcomes = asyncio.run(scenarios())
    _check(outcomes)
    assert all(o.kills == 2 for o in outcomes), [(o.name, o.kills) for o in outcomes]
