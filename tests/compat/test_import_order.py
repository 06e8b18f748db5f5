"""Every package of the SDK imports as the first module of a fresh interpreter (no import circle
that only shows when a program starts from somewhere other than ``import band``)."""

from __future__ import annotations

import pkgutil
import re
import subprocess
import sys

import pytest

import band
from band._extras import missing_modules


def _packages() -> list[str]:
    found = ["band"]
    for info in pkgutil.walk_packages(band.__path__, "band."):
        if info.ispkg:
            found.append(info.name)
    return sorted(found)


@pytest.mark.parametrize("name", [*_packages(), "band.core.exceptions", "band.logging_config"])
def test_imports_first(name: str) -> None:
    # -I: the installed package, in a process where nothing else was imported before it
    done = subprocess.run(
        [sys.executable, "-I", "-c", f"import {name}"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    extra = re.fullmatch(
        r"error: \S+ needs the \[([\w-]+)\] extra: pip install '\S+'\n", done.stderr
    )
    if extra and missing_modules(extra.group(1)):
        # a framework's package whose framework is not in this venv: its one documented line
        assert done.returncode == 1
        return
    assert done.returncode == 0, done.stderr[-2000:]
