"""Print how many hostile requests the fuzz tests sent (quoted in the README)."""

from __future__ import annotations

import pytest

from .hostile import COUNTS


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if COUNTS:
        parts = ", ".join(f"{n} {kind}" for kind, n in sorted(COUNTS.items()))
        total = sum(COUNTS.values())
        terminalreporter.write_line(f"band dev hostile requests: {total} ({parts})")
