"""Fault bench: ours and the official band-sdk behind the same fault proxy, side by side.

The scenarios of tests/reliability/test_exactly_once.py (the same harness, faultrun.py) with more
mentions: per fault class, an echo agent in ``--rooms`` rooms gets ``--mentions`` mentions per
room, one at a time per room, each lifecycle request faulted with probability ``--p``, over
``--seeds`` seeds; then the kill points, ``--kills`` SIGKILLs each. ``band dev`` runs as its own
process; one class at a time, our agent and the official one (``--against PYTHON``, e.g.
``$BAND_REFSDK_PYTHON``) run side by side on it, each seed with its own agent and proxy. Prints
a Markdown table: lost / duplicated (slowest answer) per class and SDK, totals over the seeds.

    python bench/faults.py --against "$BAND_REFSDK_PYTHON"
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from collections.abc import Awaitable
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "bench" / "e2e")]

from bandtest.platform import Live  # noqa: E402
from harness import DevPlatform  # noqa: E402
from reliability.faultproxy import FAULTS, KILL_POINTS, Chaos  # noqa: E402
from reliability.faultrun import Outcome, run  # noqa: E402

CLASSES: dict[str, tuple[str, tuple[str, ...]]] = {
    "lost": ("response lost after the platform applied the request", ("lost",)),
    "reset": ("connection reset before forwarding", ("reset",)),
    "status": (
        "502/503/504/429 before forwarding (with and without Retry-After)",
        ("502", "503", "504", "429", "429+ra", "503+ra"),
    ),
    "delay": ("a delay of 3-6 s per call", ("delay",)),
    "all": ("all of the above at once", FAULTS),
}


def _merge(name: str, parts: list[Outcome]) -> Outcome:
    total = Outcome(name)
    for o in parts:
        total.sent += o.sent
        total.lost += o.lost
        total.duplicated += o.duplicated
        total.unsettled += o.unsettled
        total.slowest = max(total.slowest, o.slowest)
        total.injected.update(o.injected)
        total.kills += o.kills
    return total


def _jobs(
    live: Live, work: Path, sdk: str, python: str, args: argparse.Namespace
) -> dict[str, list[Awaitable[Outcome]]]:
    """Every scenario's runs for one SDK (one per seed; one for a kill point)."""
    jobs: dict[str, list[Awaitable[Outcome]]] = {}
    for i, (name, (_, faults)) in enumerate(CLASSES.items()):
        for seed in args.seeds:
            chaos = Chaos(seed * 100 + i, faults=faults, p=args.p, delay=(3.0, 6.0))
            jobs.setdefault(name, []).append(
                run(
                    live,
                    work / sdk / f"{name}-{seed}",
                    f"{sdk}-{name}-{seed}",
                    python=python,
                    chaos=chaos,
                    rooms=args.rooms,
                    mentions=args.mentions,
                    wait=args.wait,
                    settle=args.wait,
                )
            )
    for point in KILL_POINTS:
        jobs[point] = [
            run(
                live,
                work / sdk / point,
                f"{sdk}-{point}",
                python=python,
                kill_point=point,
                rooms=2,
                mentions=args.kills + 1,
                kills=args.kills,
                wait=args.wait,
                settle=args.wait,
            )
        ]
    return jobs


async def _bench(
    live: Live, work: Path, sides: dict[str, str], args: argparse.Namespace
) -> dict[str, dict[str, Outcome]]:
    """Scenario by scenario, every SDK side by side; totals per SDK and scenario."""
    jobs = {sdk: _jobs(live, work, sdk, py, args) for sdk, py in sides.items()}
    results: dict[str, dict[str, Outcome]] = {sdk: {} for sdk in sides}
    for name in jobs[next(iter(sides))]:
        started = time.monotonic()
        runs = await asyncio.gather(*(asyncio.gather(*jobs[sdk][name]) for sdk in sides))
        for sdk, outcomes in zip(sides, runs, strict=True):
            results[sdk][name] = _merge(name, list(outcomes))
        took = time.monotonic() - started
        cells = ", ".join(f"{sdk} {results[sdk][name].row()}" for sdk in sides)
        print(f"{name}: {cells} ({took:.0f} s)", flush=True)
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", help="python of the official band-sdk venv")
    parser.add_argument("--rooms", type=int, default=4)
    parser.add_argument("--mentions", type=int, default=10, help="per room and seed")
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--p", type=float, default=0.2)
    parser.add_argument("--kills", type=int, default=4, help="SIGKILLs per kill point")
    parser.add_argument("--wait", type=float, default=45.0, help="seconds per mention")
    args = parser.parse_args()
    sides = {"ours": sys.executable}
    if args.against:
        sides["official"] = args.against
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="band-faults-") as tmp:
        plat = DevPlatform(Path(tmp))
        plat.start()
        try:
            with httpx.Client(timeout=30) as client:
                live = Live(plat.rest, plat.ws, plat.user_key, client, None)
                results = asyncio.run(_bench(live, Path(tmp), sides, args))
        finally:
            plat.close()
    took = time.monotonic() - started
    mentions = args.rooms * args.mentions * len(args.seeds)
    print(
        f"\n{mentions} mentions over {args.rooms} rooms per fault class "
        f"(seeds {' '.join(map(str, args.seeds))}), p={args.p}; kill rows: {args.kills} kills "
        f"each; wait {args.wait:.0f} s per mention; {took:.0f} s in all\n"
    )
    print(
        "| fault on /next, /processing, the reply POST, /processed, /failed, events | "
        + " | ".join(f"{sdk} lost / duplicated" for sdk in sides)
        + " |"
    )
    print("| --- |" + " --- |" * len(sides))
    labels = {name: label for name, (label, _) in CLASSES.items()}
    labels.update(
        {
            "before-reply": "agent SIGKILLed before the reply POST",
            "after-reply": "agent SIGKILLed after the reply POST (before the processed mark)",
            "before-processed": "agent SIGKILLed as it sends the processed mark (not applied)",
            "after-processed": "agent SIGKILLed after the processed mark (its answer lost)",
        }
    )
    for name, label in labels.items():
        cells = [results[sdk][name].row() for sdk in sides]
        print(f"| {label} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
