"""``band run agent.py [--reload]``: run an agent script; with ``--reload``, restart it when a
file of its project changes (like ``uvicorn --reload``; the rooms stay on the platform)."""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from .options import CommandError

__all__ = ["add"]

#: Seconds between two looks at the files' modification times (uvicorn's StatReload: 0.25).
POLL_S = 0.3
#: Seconds a stopping agent gets to finish its turns before it is killed.
STOP_S = 10.0
#: Directories never watched.
SKIP = frozenset({".venv", "venv", "__pycache__", ".git", ".band", "node_modules", ".mypy_cache"})
WATCHED = (".py", ".yaml", ".yml", ".toml", ".env")


def _files(root: Path) -> dict[Path, int]:
    """The watched files under ``root`` and their modification times (ns)."""
    found: dict[Path, int] = {}
    for folder, dirs, names in os.walk(root):
        dirs[:] = [d for d in dirs if d not in SKIP and not d.startswith(".")]
        for name in names:
            if name.endswith(WATCHED):
                path = Path(folder, name)
                try:
                    found[path] = path.stat().st_mtime_ns
                except OSError:
                    continue  # removed meanwhile
    return found


def _changed(before: dict[Path, int], after: dict[Path, int]) -> Path | None:
    """A file added, removed or modified between two snapshots."""
    for path in before.keys() | after.keys():
        if before.get(path) != after.get(path):
            return path
    return None


def _stop(child: subprocess.Popen[bytes]) -> None:
    """SIGTERM (Agent.run stops cleanly), then SIGKILL after STOP_S."""
    if child.poll() is None:
        child.send_signal(signal.SIGTERM)
        try:
            child.wait(STOP_S)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def _run(args: argparse.Namespace) -> int:
    script = Path(args.script)
    if not script.is_file():
        raise CommandError(f"no script {script}: give the agent's file (band run agent.py)")
    rest = list(args.args)
    reload = args.reload or "--reload" in rest  # ``band run agent.py --reload`` reads as meant
    if "--reload" in rest:
        rest.remove("--reload")
    command = [sys.executable, str(script), *rest]
    if not reload:
        os.execv(sys.executable, command)  # the agent is this process: signals reach it as sent
    # SIGTERM (a supervisor, a test) stops the agent too, as Ctrl-C does
    signal.signal(signal.SIGTERM, _interrupt)
    root = script.resolve().parent
    print(f"band run: watching {root} for changes (Ctrl-C stops)", file=sys.stderr, flush=True)
    child: subprocess.Popen[bytes] | None = None
    try:
        while True:
            snapshot = _files(root)
            child = subprocess.Popen(command)
            changed = None
            while changed is None:
                time.sleep(POLL_S)  # a look at the files every POLL_S, as uvicorn --reload does
                changed = _changed(snapshot, _files(root))
            print(
                f"band run: {changed.relative_to(root)} changed; restarting the agent",
                file=sys.stderr,
                flush=True,
            )
            _stop(child)
    except KeyboardInterrupt:
        if child is not None:
            _stop(child)
        return 0


def add(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``band run``."""
    run = sub.add_parser(
        "run",
        help="run an agent script (--reload: restart it when its files change)",
        description=(
            "Run SCRIPT with this Python. With --reload, restart it whenever a .py, .yaml, "
            ".toml or .env file under its directory changes (the agent reconnects to the same "
            "rooms); an agent that exited waits for the next change."
        ),
    )
    run.add_argument("script", metavar="SCRIPT", help="the agent's file, e.g. agent.py")
    run.add_argument("args", nargs=argparse.REMAINDER, help="arguments for SCRIPT (default: none)")
    run.add_argument("--reload", action="store_true", help="restart on file changes (default: off)")
    run.set_defaults(func=_run)
