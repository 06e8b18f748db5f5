"""Running a child process to completion in a test."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable, Mapping, Sequence
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


def script_talk(
    code: str,
    argv: Sequence[str],
    talk: Callable[[subprocess.Popen[str]], None],
    *,
    env: Mapping[str, str] | None = None,
    timeout: float = 90,
) -> tuple[str, str]:
    """Run ``code`` (``-I``) with ``argv``, ``talk`` to it, and return its output once it exits 0.

    The child is killed if ``talk`` or the wait fails, so a failing test leaves no process.
    """
    proc = subprocess.Popen(
        [sys.executable, "-I", "-c", code, *argv],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        talk(proc)
        out, err = proc.communicate(timeout=timeout)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, err
    return out, err
