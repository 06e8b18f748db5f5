"""Operations per second of band_sdk_core, implementation against implementation.

Every measurement runs in a worker subprocess that imports ``band_sdk_core``
through its public API, so ours (``c``: compiled, ``py``: forced pure Python)
and another interpreter's package (``--against PYTHON``, e.g. the reference
wheel in a scratch venv) run exactly the same code. Rounds are interleaved
across implementations to cancel machine drift; the best round counts.

    python bench/compare.py                       # c and py
    python bench/compare.py --against /venv/bin/python --json out.json

``--json`` writes the ops/s (best round, and every round's figure for the
noise band), the ratios against the baseline (``ref`` when given, else ``py``)
and the run's commit, machine and pythons, for bench/dashboard.py. The
operations themselves live in bench/operations.py. ``--against`` must hold the
reference band-sdk-core (REFERENCE_CORE; ``make refcore`` builds that venv):
another version lacks operations the suite measures.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

import runinfo
from operations import NAMES, OPERATIONS

# the band-sdk-core release the suite compares against (its operations exist there); the
# official band-sdk 6.0.1 pins 2.8.0, which lacks some (guarded_claim), so its venv will not do
REFERENCE_CORE = "6.1.1"
_VERSION = """
import importlib.metadata as metadata
try:
    print(metadata.version("band-sdk-core"))
except metadata.PackageNotFoundError:
    import band_sdk_core
    print(getattr(band_sdk_core, "__version__", "unknown"))
"""


class AgainstError(SystemExit):
    """``--against`` names an interpreter that cannot be the reference: exits with the reason."""


def check_against(python: str) -> str:
    """The reference core's version in ``python``; AgainstError when it is not REFERENCE_CORE."""
    venv = os.path.join(os.environ.get("TMPDIR") or "/tmp", "band-refcore-venv")
    how = (
        f"`make refcore` builds a venv with band-sdk-core=={REFERENCE_CORE} at {venv}, then "
        f'run `make bench BENCH_ARGS="--against {venv}/bin/python"`'
    )
    try:
        done = subprocess.run(
            [python, "-c", _VERSION],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
            cwd=os.path.dirname(os.path.abspath(__file__)),  # where the workers run
        )
    except OSError as exc:
        raise AgainstError(f"compare.py: --against {python}: cannot run it ({exc}); {how}") from exc
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise AgainstError(f"compare.py: --against {python} has no band_sdk_core ({last}); {how}")
    found = done.stdout.strip()
    if found != REFERENCE_CORE:
        raise AgainstError(
            f"compare.py: --against {python} has band-sdk-core {found}, not the reference "
            f"{REFERENCE_CORE} the benchmarks compare with; {how}"
        )
    return found


def _operations(core: Any, only: str) -> dict[str, Callable[[], object]]:
    """Build one zero-argument callable per operation (whose name contains ``only``)."""
    return {op.name: op.build(core) for op in OPERATIONS if only in op.name}


def _measure(func: Callable[[], object], seconds: float) -> float:
    """Return the best ops/s of a few timed batches lasting about ``seconds`` in all."""
    number = 1
    while True:  # calibrate a batch of about 20 ms
        start = time.perf_counter()
        for _ in range(number):
            func()
        elapsed = time.perf_counter() - start
        if elapsed > 0.02:
            break
        number *= 2
    best = number / elapsed
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        start = time.perf_counter()
        for _ in range(number):
            func()
        best = max(best, number / (time.perf_counter() - start))
    return best


def worker(seconds: float, only: str) -> None:
    """Measure every operation in this interpreter and print JSON."""
    import gc

    import band_sdk_core as core

    gc.disable()
    ops = _operations(core, only)
    result = {name: _measure(func, seconds) for name, func in ops.items()}
    using = getattr(core, "USING_EXTENSIONS", None)
    info = {"using_extensions": using, "python": runinfo.python(), "ops": result}
    print(json.dumps(info))


def _run(python: str, env: dict[str, str], seconds: float, only: str) -> dict[str, Any]:
    out = subprocess.run(
        [python, os.path.abspath(__file__), "--worker", "--seconds", str(seconds), "--only", only],
        env=env,
        capture_output=True,
        text=True,
        check=False,
        cwd=os.path.dirname(os.path.abspath(__file__)),
    )
    if out.returncode != 0:  # the worker's own traceback says why, not a bare exit status
        raise SystemExit(f"compare.py: the worker under {python} failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout)


def main() -> None:
    """Run interleaved rounds and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", metavar="PYTHON", help="another interpreter to compare")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=0.3, help="time per operation per round")
    parser.add_argument("--json", metavar="PATH", help="also write the results as JSON")
    parser.add_argument(
        "--only", default="", metavar="TEXT", help="only the operations whose name contains TEXT"
    )
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args.seconds, args.only)
        return

    base = {k: v for k, v in os.environ.items() if not k.startswith("BAND_SDK_CORE_")}
    impls: dict[str, tuple[str, dict[str, str]]] = {
        "c": (sys.executable, {**base, "BAND_SDK_CORE_REQUIRE_EXTENSIONS": "1"}),
        "py": (sys.executable, {**base, "BAND_SDK_CORE_NO_EXTENSIONS": "1"}),
    }
    if args.against:
        check_against(args.against)
        impls["ref"] = (args.against, base)
    # what is measured is the checkout as it is now, not after the minutes the rounds take
    commit, started = runinfo.commit(), runinfo.now()
    best: dict[str, dict[str, float]] = {name: {} for name in impls}
    every: dict[str, dict[str, list[float]]] = {name: {} for name in impls}
    pythons: dict[str, dict[str, Any]] = {}
    for round_ in range(args.rounds):
        for name, (python, env) in impls.items():
            print(f"round {round_ + 1}/{args.rounds}: {name} ...", file=sys.stderr, flush=True)
            run = _run(python, env, args.seconds, args.only)
            pythons[name] = {"python": run["python"], "using_extensions": run["using_extensions"]}
            for op, value in run["ops"].items():
                best[name][op] = max(best[name].get(op, 0.0), value)
                every[name].setdefault(op, []).append(value)

    names = list(impls)
    measured = [op for op in NAMES if op in best["c"]]
    ref = "ref" if "ref" in impls else "py"
    others = [n for n in names if n != ref]
    ratios = {f"{n}/{ref}": {op: best[n][op] / best[ref][op] for op in measured} for n in others}
    geomean = {key: math.exp(sum(map(math.log, r.values())) / len(r)) for key, r in ratios.items()}
    header = f"| operation | {' | '.join(f'{n} ops/s' for n in names)} |"
    print(header + "".join(f" {key} |" for key in ratios))
    print("|" + " --- |" * (1 + len(names) + len(others)))
    for op in measured:
        row = f"| {op} | " + " | ".join(f"{best[n][op]:,.0f}" for n in names) + " |"
        print(row + "".join(f" {r[op]:.2f}x |" for r in ratios.values()))
    geo = "".join(f" {g:.2f}x |" for g in geomean.values())
    print("| **geometric mean** |" + " |" * len(names) + geo)
    if args.json:
        result = {
            "kind": "band-bench-compare",
            "commit": commit,
            "datetime": started,
            "machine": runinfo.machine(),
            "rounds": args.rounds,
            "seconds": args.seconds,
            "implementations": pythons,
            "baseline": ref,
            "ops_per_s": best,
            "rounds_ops_per_s": every,
            "ratios": ratios,
            "geometric_mean": geomean,
        }
        with open(args.json, "w") as fh:
            json.dump(result, fh, indent=2)


if __name__ == "__main__":
    main()
