"""Where and on what a benchmark ran: commit, machine, python (kept with every result)."""

from __future__ import annotations

import os
import platform
import subprocess
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def commit() -> str:
    """Short commit of the checkout (``GITHUB_SHA`` in CI), ``-dirty`` when files changed."""
    sha = os.environ.get("GITHUB_SHA", "")
    if sha:
        return sha[:12]
    try:
        head = subprocess.run(
            ["git", "rev-parse", "--short=12", "HEAD"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return f"{head}-dirty" if dirty else head


def machine() -> str:
    """A short description of the machine: OS, architecture, CPU count."""
    return f"{platform.system()} {platform.machine()}, {os.cpu_count()} CPUs"


def python() -> str:
    """Interpreter implementation and version, e.g. ``CPython 3.11.7``."""
    return f"{platform.python_implementation()} {platform.python_version()}"


def now() -> str:
    """The current UTC time in ISO 8601."""
    return datetime.now(UTC).isoformat(timespec="seconds")
