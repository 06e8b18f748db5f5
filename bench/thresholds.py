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
# the same for the geometric mean over every row (the headline's figures)
GEOMEAN_TARGETS: dict[str, float] = {"c/ref": 1.0, "py/ref": 0.5, "c/py": 1.0}

# a ratio below (1 - margin) x its recent median is a regression (the workflow's check fails)
REGRESSION_MARGIN = 0.25
REGRESSION_WINDOW = 5
REGRESSION_MIN_RUNS = 3


def regression_rule() -> str:
    """The regression rule in words, for the check's output and the page."""
    return (
        f"a ratio more than {REGRESSION_MARGIN:.0%} below its median over the previous "
        f"{REGRESSION_WINDOW} runs (once {REGRESSION_MIN_RUNS} are kept), in its best round too"
    )
