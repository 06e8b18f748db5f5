"""The two judgements the benchmark pages and checks make, set in this one place.

A row falls *short* when its compiled ratio is below target: the compiled core is meant to
beat the reference band-sdk-core (and pure Python) on every row. The pure-Python core is a
fallback, held to half the reference on the geometric mean only, not row by row.

A run *regresses* when a ratio falls by more than REGRESSION_MARGIN below the median of the
same ratio over the REGRESSION_WINDOW runs before it on the default branch (once there are
REGRESSION_MIN_RUNS of them), and its most favourable round's ratio does too. Ratios, not ops/s:
both sides of a ratio ran interleaved on one machine, so a slower CI runner moves ops/s but not
ratios.
"""

from __future__ import annotations

# ratio ("<implementation>/<baseline>") -> the lowest value of a row that is not short of target
TARGETS: dict[str, float] = {"c/ref": 1.0, "c/py": 1.0}
# stricter targets of the rows issue 40 named (by the start of the operation's name, every size)
ROW_TARGETS: dict[str, dict[str, float]] = {
    "c/ref": {
        "claim ack completion churn": 1.2,
        "claim cycle churn": 1.2,
        "retry record_attempt churn": 1.2,
    }
}
# the same for the geometric mean over every row (the headline's figures)
GEOMEAN_TARGETS: dict[str, float] = {"c/ref": 1.0, "py/ref": 0.5, "c/py": 1.0}

# a ratio below (1 - margin) x its recent median is a regression (the workflow's check fails)
REGRESSION_MARGIN = 0.25
REGRESSION_WINDOW = 5
REGRESSION_MIN_RUNS = 3

# e2e (bench/e2e/run.py --guard): ours over the base commit's (both in one run, rounds
# interleaved) must stay inside these bands. Set wide for a shared 2-core runner, where an e2e
# figure moves more than a core row between runs; CPU per message (from /proc) moves least, so
# its band is the tightest. RSS per room is shown, not judged: 5 rooms' growth is a few pages.
E2E_NOISE: dict[str, tuple[float, float]] = {
    "msgs_per_s": (0.8, float("inf")),
    "p99_ms": (0.0, 1.5),
    "agent_cpu_ms": (0.0, 1.25),
}


def target(key: str, operation: str) -> float | None:
    """The lowest ratio ``key`` of ``operation``'s row may have, or None when unjudged."""
    base = TARGETS.get(key)
    if base is None:
        return None
    for prefix, stricter in ROW_TARGETS.get(key, {}).items():
        if operation.startswith(prefix):
            return max(base, stricter)
    return base


def regression_rule() -> str:
    """The regression rule in words, for the check's output and the page."""
    return (
        f"a ratio more than {REGRESSION_MARGIN:.0%} below its median over the previous "
        f"{REGRESSION_WINDOW} runs (once {REGRESSION_MIN_RUNS} are kept), in its best round too"
    )
