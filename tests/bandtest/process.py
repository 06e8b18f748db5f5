"""Running a child process to completion in a test."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path


def run_ok(
    argv: Sequence[str | Path],
    *,
    timeout: float,
    cwd: str | Path | None = None,
    env: Mapping[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run ``argv`` capturing its text output; fail with the output's tail unless it exits 0."""
    done = subprocess.run(
        [str(arg) for arg in argv],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return done


def python_ok(code: str, *, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """Run ``code`` in a fresh isolated interpreter (``-I``: the installed package only)."""
    return run_ok([sys.executable, "-I", "-c", code], timeout=timeout)


def read_until(proc: subprocess.Popen[str], text: str, seen: list[str]) -> None:
    """Read ``proc``'s output lines into ``seen`` until one has ``text`` (it must not end first)."""
    assert proc.stdout is not None
    for line in proc.stdout:
        seen.append(line)
        if text in line:
            return
    raise AssertionError(f"ended ({proc.wait()}) before {text!r}:\n{''.join(seen)}")
