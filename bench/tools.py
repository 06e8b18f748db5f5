"""Operations per second of the platform tools' local work (no network): ours against another.

Each interpreter runs this same file as a worker and imports ``band.runtime.tools`` through
its public API, so ``--against PYTHON`` (e.g. the official band-sdk 6.0.1 in a scratch venv)
measures the same calls. Rounds alternate between interpreters; the best round counts.

    python bench/tools.py
    python bench/tools.py --against "$BAND_REFSDK_PYTHON"
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

OPERATIONS = [
    "openai schemas (3 groups)",
    "anthropic schemas (3 groups)",
    "tool call refused by validation",
    "AgentTools per turn",
]


def _operations() -> dict[str, Callable[[], object]]:
    from band.runtime.capabilities import Capability
    from band.runtime.tools import AgentTools

    rest: Any = None  # the reference accepts None until a call is made; ours wants a client
    try:
        from band.client.rest import RestClient

        rest = RestClient("unused", "http://127.0.0.1:9")
    except (ImportError, TypeError):  # another SDK's RestClient takes other arguments
        pass
    caps = frozenset({Capability.CONTACTS, Capability.MEMORY, Capability.TASKS})
    people = [{"id": "u1", "handle": "@ann", "name": "Ann", "type": "User"}]
    tools = AgentTools("room-1", rest, people)
    loop = asyncio.new_event_loop()
    bad = {"page_size": 500}
    return {
        OPERATIONS[0]: lambda: tools.get_openai_tool_schemas(capabilities=caps),
        OPERATIONS[1]: lambda: tools.get_anthropic_tool_schemas(capabilities=caps),
        OPERATIONS[2]: lambda: loop.run_until_complete(
            tools.execute_tool_call_structured("band_lookup_peers", bad)
        ),
        OPERATIONS[3]: lambda: AgentTools("room-1", rest, people),
    }


def _worker(seconds: float) -> None:
    """Measure every operation once and print ``{name: ops_per_second}``."""
    ops = _operations()
    out = {}
    for name in OPERATIONS:
        fn, n = ops[name], 0
        start = time.perf_counter()
        while time.perf_counter() - start < seconds:
            fn()
            n += 1
        out[name] = n / (time.perf_counter() - start)
    print(json.dumps(out))


def _run(python: str, seconds: float) -> dict[str, float]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    if python == sys.executable:
        env = dict(os.environ)
    cmd = [python, os.path.abspath(__file__), "--worker", str(seconds)]
    done = subprocess.run(cmd, capture_output=True, text=True, check=True, cwd="/", env=env)
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", help="another interpreter with band-sdk installed")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=0.3)
    parser.add_argument("--worker", type=float, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker is not None:
        _worker(args.worker)
        return
    pythons = {"ours": sys.executable}
    if args.against:
        pythons["ref"] = args.against
    best: dict[str, dict[str, float]] = {k: {} for k in pythons}
    for _ in range(args.rounds):
        for label, python in pythons.items():
            for name, rate in _run(python, args.seconds).items():
                best[label][name] = max(rate, best[label].get(name, 0.0))
    header = "| operation | " + " | ".join(f"{k} ops/s" for k in pythons)
    print(header + (" | ours/ref |" if "ref" in pythons else " |"))
    print("| --- " * (len(pythons) + 1 + ("ref" in pythons)) + "|")
    for name in OPERATIONS:
        cells = [f"{best[k][name]:,.0f}" for k in pythons]
        if "ref" in pythons:
            cells.append(f"{best['ours'][name] / best['ref'][name]:.2f}x")
        print(f"| {name} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
