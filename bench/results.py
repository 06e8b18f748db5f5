"""Benchmark result records: reading them, one point per commit, ratios, shortfalls, regressions.

A record is what ``make bench`` (pytest-benchmark JSON and ``bench/compare.py --json``),
``make bench-e2e`` and ``make bench-scale`` write, one per file, or one per line of the history
(``history.jsonl`` on the ``bench-history`` branch, which the bench workflow appends to). The
dashboard and the workflow's regression check (bench/history.py) read them through this module,
so both judge by the same rule (bench/thresholds.py).
"""

from __future__ import annotations

import json
import math
import statistics
import subprocess
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from operations import NAMES
from thresholds import (
    GEOMEAN_TARGETS,
    REGRESSION_MARGIN,
    REGRESSION_MIN_RUNS,
    REGRESSION_WINDOW,
    TARGETS,
    target,
)

COMPARE = "bench/compare.py"
PYTEST = "pytest-benchmark"
E2E = "bench/e2e"
SCALE = "bench/scale"
IMPL_ORDER = ("c", "py", "ref")
HISTORY_FILE = "history.jsonl"  # at the root of the history branch
ROOT = Path(__file__).resolve().parent.parent


class ResultError(ValueError):
    """A file or line that is not a band benchmark result."""


@dataclass
class Run:
    """One core benchmark run: ops/s per operation and implementation, with where it ran."""

    path: str
    source: str
    commit: str
    datetime: str
    machine: str
    pythons: dict[str, str]
    ops: dict[str, dict[str, float]] = field(default_factory=dict)  # operation -> impl -> ops/s
    # impl -> operation -> every round's ops/s (compare.py's interleaved rounds), for noise bands
    rounds: dict[str, dict[str, list[float]]] = field(default_factory=dict)


@dataclass
class UserRun:
    """One end-to-end or scale run through band dev: per SDK variant, the figures a user feels."""

    path: str
    source: str  # E2E or SCALE
    commit: str
    datetime: str
    machine: str
    python: str
    setup: str  # agents, rooms, messages
    against_sdk: str | None
    figures: dict[str, dict[str, float]]  # variant -> metric -> value (median over rounds)
    rounds: dict[str, dict[str, list[float]]] = field(default_factory=dict)  # variant -> metric


Record = Run | UserRun


def parse(data: Any, where: str) -> Record:
    """One result record (a decoded JSON object) as a Run or a UserRun."""
    if isinstance(data, dict) and "ops_per_s" in data:
        return _parse_compare(where, data)
    if isinstance(data, dict) and isinstance(data.get("benchmarks"), list):
        return _parse_pytest(where, data)
    if isinstance(data, dict) and isinstance(data.get("rows"), list):
        return _parse_e2e(where, data)
    if isinstance(data, dict) and isinstance(data.get("results"), dict):
        return _parse_scale(where, data)
    raise ResultError(
        f"{where}: neither pytest-benchmark JSON nor bench/compare.py --json output "
        "(nor bench/e2e or bench/scale --json)"
    )


def load(path: str | Path) -> Record:
    """Read one result file."""
    try:
        data = json.loads(Path(path).read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise ResultError(f"{path}: cannot read benchmark JSON: {exc}") from exc
    return parse(data, str(path))


def read_history(path: str | Path) -> list[dict[str, Any]]:
    """The records of a history file (JSON lines); none when it does not exist yet."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        return []
    return _lines(text, str(path))


def history_at(ref: str) -> list[dict[str, Any]] | None:
    """The history file of a git ref (``origin/bench-history``); None when the ref has none."""
    done = subprocess.run(
        ["git", "show", f"{ref}:{HISTORY_FILE}"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    return _lines(done.stdout, f"{ref}:{HISTORY_FILE}") if done.returncode == 0 else None


def _lines(text: str, where: str) -> list[dict[str, Any]]:
    records = []
    for n, line in enumerate(text.splitlines(), 1):
        if line.strip():
            try:
                records.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise ResultError(f"{where}:{n}: not a JSON line: {exc}") from exc
    return records


def _parse_compare(path: str, data: dict[str, Any]) -> Run:
    impls = data.get("implementations", {})
    run = Run(
        path=path,
        source=COMPARE,
        commit=str(data.get("commit") or Path(path).stem),
        datetime=str(data.get("datetime", "")),
        machine=str(data.get("machine", "")),
        pythons={name: str(info.get("python", "")) for name, info in impls.items()},
    )
    for impl, ops in data["ops_per_s"].items():
        for op, value in ops.items():
            run.ops.setdefault(op, {})[impl] = float(value)
    for impl, ops in (data.get("rounds_ops_per_s") or {}).items():
        run.rounds[impl] = {op: [float(v) for v in values] for op, values in ops.items()}
    return run


def _parse_pytest(path: str, data: dict[str, Any]) -> Run:
    commit_info = data.get("commit_info") or {}
    run = Run(
        path=path,
        source=PYTEST,
        commit=str(commit_info.get("id", ""))[:12] or Path(path).stem,
        datetime=str(data.get("datetime", "")),
        machine="",
        pythons={},
    )
    for bench in data["benchmarks"]:
        info = bench.get("extra_info") or {}
        if "operation" not in info or "implementation" not in info:
            raise ResultError(
                f"{path}: benchmark {bench.get('name')!r} has no operation in extra_info"
            )
        impl, op = str(info["implementation"]), str(info["operation"])
        stats = bench["stats"]
        run.ops.setdefault(op, {})[impl] = float(stats["ops"])
        if stats.get("max") and stats.get("min") and stats.get("median"):
            # rounds' extremes as ops/s: the slowest round is the lowest rate
            run.rounds.setdefault(impl, {})[op] = [
                1 / float(stats[k]) for k in ("max", "median", "min")
            ]
        run.commit = str(info.get("commit") or run.commit)
        run.machine = str(info.get("machine") or run.machine)
        run.pythons[impl] = str(info.get("python", ""))
    return run


def _numbers(row: dict[str, Any]) -> dict[str, float]:
    return {
        k: float(v)
        for k, v in row.items()
        if isinstance(v, int | float) and not isinstance(v, bool)
    }


def _parse_e2e(path: str, data: dict[str, Any]) -> UserRun:
    params = data.get("params") or {}
    run = UserRun(
        path=path,
        source=E2E,
        commit=str(data.get("commit") or Path(path).stem),
        datetime=str(data.get("datetime", "")),
        machine=str(data.get("machine", "")),
        python=str(data.get("python", "")),
        setup=(
            f"{params.get('agents', '?')} agents x {params.get('rooms', '?')} rooms x "
            f"{params.get('messages', '?')} messages, {params.get('rounds', '?')} rounds"
        ),
        against_sdk=data.get("against_sdk"),
        figures={str(row["variant"]): _numbers(row) for row in data["rows"]},
    )
    for variant, rounds in (data.get("rounds") or {}).items():
        for one in rounds:
            for metric, value in _numbers(one).items():
                run.rounds.setdefault(variant, {}).setdefault(metric, []).append(value)
    return run


def _parse_scale(path: str, data: dict[str, Any]) -> UserRun:
    params = data.get("params") or {}
    return UserRun(
        path=path,
        source=SCALE,
        commit=str(data.get("commit") or Path(path).stem),
        datetime=str(data.get("datetime", "")),
        machine=str(data.get("machine", "")),
        python=str(data.get("python", "")),
        setup=(
            f"1 agent in {params.get('rooms', '?')} rooms, "
            f"{params.get('messages_per_room', '?')} messages per room, a reconnect storm"
        ),
        against_sdk=data.get("against_sdk"),
        figures={str(v): _numbers(r) for v, r in data["results"].items() if isinstance(r, dict)},
    )


# -- one point per commit --------------------------------------------------------


@dataclass
class Point:
    """One commit's numbers: from its latest preferred run."""

    commit: str
    run: Run


def history(runs: Iterable[Run]) -> list[Point]:
    """One point per commit, in time order; compare.py runs win over pytest-benchmark runs.

    A ``-dirty`` commit (files changed after the commit) is the same commit here: one
    ``make bench`` run can write its pytest-benchmark JSON before a file changes and its
    compare.py JSON after, and they must not become two points.
    """
    chosen: dict[str, Run] = {}
    first_seen: dict[str, str] = {}
    for run in sorted(runs, key=lambda r: r.datetime):
        key = run.commit.removesuffix("-dirty")
        first_seen.setdefault(key, run.datetime)
        held = chosen.get(key)
        if held is None or held.source == run.source or run.source == COMPARE:
            chosen[key] = run
    order = sorted(chosen, key=lambda key: first_seen[key])
    return [Point(chosen[key].commit, chosen[key]) for key in order]


def latest_per_commit(runs: Iterable[UserRun]) -> list[UserRun]:
    """The latest end-to-end (or scale) run of each commit, oldest commit first."""
    chosen: dict[str, UserRun] = {}
    for run in sorted(runs, key=lambda r: r.datetime):
        chosen.pop(run.commit, None)
        chosen[run.commit] = run
    return list(chosen.values())


def operations(points: Sequence[Point]) -> list[str]:
    """Known operations in bench/operations.py order, then any others as first seen."""
    seen = {op for p in points for op in p.run.ops}
    extra = [op for p in points for op in p.run.ops if op not in NAMES]
    return [op for op in NAMES if op in seen] + list(dict.fromkeys(extra))


def implementations(points: Sequence[Point]) -> list[str]:
    """c, py, ref first, then any other implementation names."""
    seen = {impl for p in points for values in p.run.ops.values() for impl in values}
    return [i for i in IMPL_ORDER if i in seen] + sorted(seen - set(IMPL_ORDER))


def baseline(impls: Sequence[str]) -> str | None:
    """The ratio denominator: the reference when present, else pure Python."""
    return "ref" if "ref" in impls else "py" if "py" in impls else None


def geomean(values: Sequence[float]) -> float:
    """Geometric mean of positive ratios."""
    return math.exp(sum(map(math.log, values)) / len(values))


# -- ratios -----------------------------------------------------------------------


def ratio_keys(impls: Iterable[str]) -> list[str]:
    """The headline ratios the implementations allow: c/ref, py/ref, c/py."""
    have = set(impls)
    pairs = (("c", "ref"), ("py", "ref"), ("c", "py"))
    return [f"{a}/{b}" for a, b in pairs if a in have and b in have]


def row_ratios(run: Run, key: str) -> dict[str, float]:
    """Operation -> ratio (``"c/ref"``) of one run, for the operations measured on both sides."""
    num, den = key.split("/")
    out = {}
    for op, values in run.ops.items():
        if values.get(num) and values.get(den):
            out[op] = values[num] / values[den]
    return out


def geo_ratio(run: Run, key: str) -> float | None:
    """The geometric mean of a ratio over the run's operations."""
    ratios = list(row_ratios(run, key).values())
    return geomean(ratios) if ratios else None


def geo_spread(run: Run, key: str) -> tuple[float, float, float] | None:
    """Min, median and max over rounds of the round-by-round geometric mean of a ratio.

    compare.py interleaves the implementations round by round, so round r of ``c`` and round r
    of ``ref`` ran side by side: their ratio is one sample of the machine's noise.
    """
    num, den = key.split("/")
    a, b = run.rounds.get(num, {}), run.rounds.get(den, {})
    ops = [op for op in a if op in b and len(a[op]) == len(b[op]) and a[op]]
    if not ops or run.source != COMPARE:
        return None
    count = len(a[ops[0]])
    if any(len(a[op]) != count for op in ops):
        return None
    per_round = [geomean([a[op][r] / b[op][r] for op in ops]) for r in range(count)]
    return min(per_round), statistics.median(per_round), max(per_round)


def spread(run: Run, op: str, impl: str) -> tuple[float, float, float] | None:
    """Min, median and max ops/s over the rounds of one operation and implementation."""
    values = run.rounds.get(impl, {}).get(op)
    if not values:
        return None
    return min(values), statistics.median(values), max(values)


@dataclass(frozen=True)
class Shortfall:
    """A row whose ratio is below its target (bench/thresholds.py)."""

    operation: str
    key: str
    ratio: float
    target: float


def shortfalls(run: Run) -> list[Shortfall]:
    """Every (row, ratio) of the run below its target, in operation order."""
    order = {op: n for n, op in enumerate(operations([Point(run.commit, run)]))}
    found = []
    impls = implementations([Point(run.commit, run)])
    base = baseline(impls)
    for key in ratio_keys(impls):
        if key not in TARGETS or key.split("/")[1] != base:
            continue  # c/py is a headline figure; rows are judged against the baseline
        for op, ratio in row_ratios(run, key).items():
            wanted = target(key, op)
            if wanted is not None and ratio < wanted:
                found.append(Shortfall(op, key, ratio, wanted))
    return sorted(found, key=lambda s: (s.key, order[s.operation]))


def is_short(key: str, ratio: float, operation: str = "") -> bool:
    """Whether a row's ratio is below its target (the operation's own, when it has one)."""
    wanted = target(key, operation)
    return wanted is not None and ratio < wanted


def is_short_overall(key: str, geo: float) -> bool:
    """Whether a geometric-mean ratio is below its target."""
    return key in GEOMEAN_TARGETS and geo < GEOMEAN_TARGETS[key]


# -- regressions ----------------------------------------------------------------------

GEOMEAN = "geometric mean"


@dataclass(frozen=True)
class Regression:
    """A ratio of a run that fell more than the margin below its recent median."""

    commit: str
    what: str  # an operation, or GEOMEAN
    key: str
    before: float  # median over the window
    now: float  # the run's ratio (best round against best round)
    best: float  # the most favourable round's ratio: below the line too

    @property
    def change(self) -> float:
        """Relative change, -0.3 for a 30% fall."""
        return self.now / self.before - 1

    def describe(self) -> str:
        """One line for the check's output and the page."""
        return (
            f"{self.what}: {self.key} {self.now:.2f}x (best round {self.best:.2f}x), down "
            f"{-self.change:.0%} from {self.before:.2f}x (median of the previous runs)"
        )


def round_ratios(run: Run, key: str, op: str) -> list[float]:
    """A row's ratio round by round (compare.py's interleaved rounds pair up)."""
    num, den = key.split("/")
    a = run.rounds.get(num, {}).get(op, [])
    b = run.rounds.get(den, {}).get(op, [])
    if run.source != COMPARE or not a or len(a) != len(b):
        return []
    return [x / y for x, y in zip(a, b, strict=True) if y]


def _ratios_of(run: Run) -> dict[tuple[str, str], tuple[float, float]]:
    """(row or GEOMEAN, key) -> (ratio, the most favourable round's ratio)."""
    impls = implementations([Point(run.commit, run)])
    base = baseline(impls)
    out: dict[tuple[str, str], tuple[float, float]] = {}
    for key in ratio_keys(impls):
        if key.split("/")[1] != base:
            continue
        for op, ratio in row_ratios(run, key).items():
            out[op, key] = (ratio, max([ratio, *round_ratios(run, key, op)]))
        geo = geo_ratio(run, key)
        if geo is not None:
            spread_ = geo_spread(run, key)
            out[GEOMEAN, key] = (geo, max(geo, spread_[2]) if spread_ else geo)
    return out


def regressions(before: Sequence[Run], run: Run) -> list[Regression]:
    """The ratios of ``run`` more than REGRESSION_MARGIN below their median over ``before``.

    ``before`` is the history in time order; the last REGRESSION_WINDOW runs that measured the
    same ratio form its baseline, once there are REGRESSION_MIN_RUNS of them (a median of one or
    two runs is their noise). The run's ratio and its most favourable round's must both be
    below the line: a machine that was busy for one round does not make a regression.
    """
    found = []
    earlier = [_ratios_of(r) for r in before]
    for (what, key), (now, best) in _ratios_of(run).items():
        past = [r[what, key][0] for r in earlier if (what, key) in r][-REGRESSION_WINDOW:]
        if len(past) < REGRESSION_MIN_RUNS:
            continue
        median = statistics.median(past)
        if best < median * (1 - REGRESSION_MARGIN):
            found.append(Regression(run.commit, what, key, median, now, best))
    return found
