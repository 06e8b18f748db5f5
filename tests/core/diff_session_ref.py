"""Differential check of Session/SessionPolicy against the reference wheel (manual tool).

Usage: ``.venv/bin/python tests/core/diff_session_ref.py [N] [SEED]`` from the repository; it
replays N random call sequences here and under the band-sdk-core 6.1.1 interpreter named by
``BAND_REFCORE_PYTHON`` and compares.
Not collected by pytest (no ``test_`` prefix) and never needed by the test suite.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

REFERENCE_PYTHON = os.environ.get("BAND_REFCORE_PYTHON", "python3")
KEYS = (
    "base_delay_s",
    "factor",
    "max_delay_s",
    "stable_reset_s",
    "rapid_disconnect_uptime_s",
    "rapid_window_s",
    "rapid_first_min_delay_s",
    "rapid_second_min_delay_s",
    "rapid_cooldown_base_s",
    "rapid_cooldown_step_s",
    "rapid_cooldown_max_s",
    "rapid_threshold",
    "heartbeat_interval_s",
    "dead_threshold_s",
)


def _num(rng: random.Random) -> Any:
    """Return a small random delay-like number."""
    return rng.choice(
        [0.0, 0.5, 1.0, 2.0, 3.7, 10.0, 60.0, rng.uniform(0, 100), rng.randint(0, 20)]
    )


def make_policy(rng: random.Random) -> dict[str, Any]:
    """Return a random policy config (valid most of the time)."""
    cfg: dict[str, Any] = {key: _num(rng) for key in KEYS}
    cfg["factor"] = rng.choice([1.0, 1.3, 1.7, 2.0, 3.3, 1e200, rng.uniform(1, 4)])
    cfg["rapid_threshold"] = rng.choice([1, 2, 3, 5, 10, 1000])
    cfg["base_delay_s"] = rng.choice([0.0, 0.1, 1.0, rng.uniform(0, 5)])
    cfg["max_delay_s"] = cfg["base_delay_s"] + rng.choice([0.0, 1.0, 30.0, 1e30])
    cfg["heartbeat_interval_s"] = 30.0
    cfg["dead_threshold_s"] = 60.0
    if rng.random() < 0.15:
        cfg[rng.choice(KEYS[:11])] = rng.choice([1e19, 2e19, 1e30, 4e-10, 1.5e-9, 0.1234567895])
    if rng.random() < 0.1:
        cfg[rng.choice(KEYS)] = rng.choice([-1, float("nan"), 0, 0.5, "x", True, None, 1.5])
    return cfg


def make_calls(rng: random.Random, count: int) -> list[list[Any]]:
    """Return a random call sequence; epochs are offsets from the last returned epoch."""
    calls: list[list[Any]] = []
    now = 0.0
    for _ in range(count):
        step = rng.choice([0.0, 0.1, 1.0, 5.0, 9.9, 10.0, 30.0, 59.9, 60.0, 61.0, 200.0, 301.0])
        if rng.random() < 0.08:
            step = -rng.choice([0.1, 1.0, 5.0])
        now = max(0.0, now + step)
        jitter = rng.choice([0.0, 1.0, 0.5, rng.random()])
        retry = rng.choice([None, None, 0.0, 2.5, 100.0, rng.uniform(0, 50), 1e30, 1.5e-9])
        epoch_offset = rng.choice([0, 0, 0, 0, -1, 1])
        kind = rng.choice(["begin", "begin", "conn", "conn", "close", "close", "up", "sup", "end"])
        if kind == "end" and rng.random() < 0.7:
            kind = "begin"
        if kind == "begin":
            calls.append(["begin", now])
        elif kind == "conn":
            calls.append(["conn", epoch_offset, now])
        elif kind == "close":
            code = rng.choice([1006, 1000, None, 1008, 4000, 1011])
            calls.append(["close", epoch_offset, now, code, jitter])
        elif kind == "up":
            status = rng.choice([500, 503, 429, 401, 404, 400, 403, 409])
            calls.append(["up", epoch_offset, now, status, retry, jitter])
        elif kind == "sup":
            calls.append(["sup", now, rng.random() < 0.9, retry, jitter])
        else:
            calls.append(["end"])
    return calls


def _outcome(o: Any) -> list[Any]:
    """Serialise a SessionOutcome."""
    return [
        o.state.value,
        o.retry_after_s,
        None if o.dead_reason is None else o.dead_reason.value,
        None if o.stale_reason is None else o.stale_reason.value,
    ]


def replay(case: dict[str, Any]) -> list[Any]:
    """Replay one case with the importable band_sdk_core and return every result."""
    import band_sdk_core as b

    out: list[Any] = []
    try:
        session = b.Session(b.SessionPolicy(case["policy"]))
    except Exception as exc:
        return [["error", type(exc).__name__, str(exc), list(getattr(exc, "issues", ()))]]
    last = 0
    for call in case["calls"]:
        kind = call[0]
        try:
            if kind == "begin":
                epoch = session.begin_attempt(call[1])
                if epoch is not None:
                    last = epoch
                out.append(epoch)
            elif kind == "conn":
                out.append(_outcome(session.on_connected(max(0, last + call[1]), call[2])))
            elif kind == "close":
                e = max(0, last + call[1])
                out.append(_outcome(session.on_socket_close(e, call[2], call[3], call[4])))
            elif kind == "up":
                e = max(0, last + call[1])
                o = session.on_upgrade_rejected(e, call[2], call[3], call[4], call[5])
                out.append(_outcome(o))
            elif kind == "sup":
                out.append(_outcome(session.on_supersede(call[1], call[2], call[3], call[4])))
            else:
                out.append(session.end().value)
        except Exception as exc:
            out.append(["error", type(exc).__name__, str(exc)])
        out.append(session.state.value)
    return out


def main() -> int:
    """Compare this implementation with the reference on random cases."""
    if sys.argv[1:2] == ["--emit"]:
        cases = json.load(sys.stdin)
        json.dump([replay(c) for c in cases], sys.stdout)
        return 0
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    rng = random.Random(seed)
    cases = [
        {"policy": make_policy(rng), "calls": make_calls(rng, rng.randint(1, 60))}
        for _ in range(count)
    ]
    text = json.dumps(cases)
    proc = subprocess.run(
        [REFERENCE_PYTHON, __file__, "--emit"],
        input=text,
        capture_output=True,
        text=True,
        check=True,
        cwd="/tmp",
    )
    theirs = json.loads(proc.stdout)
    ours = json.loads(json.dumps([replay(c) for c in cases]))
    bad = 0
    for index, (a, b) in enumerate(zip(ours, theirs, strict=True)):
        if a != b:
            bad += 1
            if bad <= 3:
                print("MISMATCH case", index, json.dumps(cases[index]))
                for step, (x, y) in enumerate(zip(a, b, strict=False)):
                    if x != y:
                        print("  step", step, "ours", x, "ref", y)
                        break
    print(f"{count - bad}/{count} cases identical")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
