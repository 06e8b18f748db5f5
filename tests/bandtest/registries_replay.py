"""Random sequences of RetryTracker, ClaimRegistry and DecisionRegistry calls, replayed anywhere.

For each seed, one long sequence per registry (small bounds, thousands of evictions) whose
every result is collected as JSON, so this interpreter's core, the pure twin and the reference
band-sdk-core 6.1.1 can be compared result by result: tests/refcore/test_registries_ref.py
does that under pytest. As a manual tool, ``.venv/bin/python tests/bandtest/registries_replay.py
[SEEDS]`` compares the compiled core, pure Python and the interpreter named by
``BAND_REFCORE_PYTHON``.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from typing import Any

REFERENCE_PYTHON = os.environ.get("BAND_REFCORE_PYTHON", "python3")
IDS = [f"m{i}" for i in range(200)]


def _retry(core: Any, rng: random.Random, out: list[Any]) -> None:
    tracker = core.RetryTracker(max_retries=2, max_tracked=50)
    for _ in range(20_000):
        mid, roll = rng.choice(IDS), rng.random()
        if roll < 0.5:
            out.append(tracker.record_attempt(mid))
        elif roll < 0.6:
            tracker.mark_success(mid)
        elif roll < 0.7:
            tracker.discard_attempt(mid)
        elif roll < 0.8:
            tracker.mark_permanently_failed(mid)
        else:
            out.append(tracker.is_permanently_failed(mid))


def _claims(core: Any, rng: random.Random, out: list[Any]) -> None:
    claims = core.ClaimRegistry(max_completed=40)
    tracker = core.RetryTracker(max_retries=3, max_tracked=60)
    for _ in range(20_000):
        room, mid, roll = rng.choice("ab"), rng.choice(IDS), rng.random()
        if roll < 0.3:
            claims.remember_completed(room, mid)
        elif roll < 0.45:
            out.append(claims.is_completed(room, mid))
        elif roll < 0.6:
            out.append(claims.guarded_claim(room, mid, tracker))
        elif roll < 0.7:
            tracker.record_attempt(mid)
        elif roll < 0.8:
            pending = claims.pending_ack(room, mid)
            if pending is None or pending["status"] == "failed":
                out.append(claims.record_failed_settlement(room, mid, "e", tracker, True))
        elif roll < 0.9:
            settlement = claims.pending_settlement(room, mid)
            if settlement:
                out.append(claims.confirm_settlement(room, mid, settlement["token"], tracker))
        else:
            claims.release(room, mid)
    out.append([claims.completed_ids("a"), claims.completed_ids("b")])
    out.append([tracker.is_permanently_failed(mid) for mid in IDS])


def _decisions(core: Any, rng: random.Random, out: list[Any]) -> None:
    registry = core.DecisionRegistry(max_pending=30, seed=3)
    live: list[Any] = []
    for _ in range(20_000):
        roll = rng.random()
        if roll < 0.4:
            out.append(registry.evict_oldest())
            registration = registry.register_minted(rng.choice(["x", "y", None]))
            live.append(registration)
            out.append(registration)
        elif roll < 0.5:
            registration = registry.register_keyed(rng.choice(["k1", "k2", "k3"]))
            out.append(registration)
            if registration:
                live.append(registration)
        elif roll < 0.7 and live:
            out.append(str(registry.try_claim(*rng.choice(live))))
        elif roll < 0.8 and live:
            out.append(registry.withdraw(*rng.choice(live)))
        elif roll < 0.9 and live:
            out.append(registry.forget(*rng.choice(live)))
        elif roll < 0.95:
            out.append(
                [
                    registry.unclaimed(),
                    registry.unclaimed_count(),
                    registry.oldest_unclaimed(),
                    registry.unclaimed_in_room("x"),
                ]
            )
        else:
            cancelled = registry.cancel_room("y")
            out.append([cancelled.unclaimed, cancelled.claimed])


def replay(seed: int) -> list[Any]:
    """Run the three sequences of ``seed`` in this interpreter's band_sdk_core."""
    import band_sdk_core as core

    rng = random.Random(seed)
    out: list[Any] = []
    for sequence in (_retry, _claims, _decisions):
        sequence(core, rng, out)
    return json.loads(json.dumps(out))  # tuples as lists, like the other side's JSON


def _other(python: str, seed: int, env: dict[str, str]) -> list[Any]:
    done = subprocess.run(
        [python, os.path.abspath(__file__), "--emit", str(seed)],
        capture_output=True,
        text=True,
        check=True,
        env=env,
        cwd="/",
    )
    result: list[Any] = json.loads(done.stdout)
    return result


def main() -> int:
    """Compare this interpreter (compiled), pure Python and the reference, seed by seed."""
    if sys.argv[1:2] == ["--emit"]:
        print(json.dumps(replay(int(sys.argv[2]))))
        return 0
    seeds = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    base = {k: v for k, v in os.environ.items() if not k.startswith("BAND_SDK_CORE_")}
    failed = 0
    for seed in range(1, seeds + 1):
        ours = replay(seed)
        pure = _other(sys.executable, seed, {**base, "BAND_SDK_CORE_NO_EXTENSIONS": "1"})
        reference = _other(REFERENCE_PYTHON, seed, base)
        for name, got in (("compiled", ours), ("pure", pure)):
            if got != reference:
                pairs = zip(got, reference, strict=False)
                first = next((i for i, (a, b) in enumerate(pairs) if a != b), len(reference))
                print(f"seed {seed}: {name} differs from the reference at result {first}")
                failed += 1
    print(f"{seeds} seeds, {failed} difference(s)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
