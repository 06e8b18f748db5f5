"""The ``band`` parser and the one place where a command's expected failures become one line.

Each command group registers itself from its module (``GROUPS``); a command is a function of
the parsed arguments returning the exit status, plain or ``async``. A failure a person can fix
(``CommandError``, a ``StartupError``) prints as ``error: ...`` and exits with its code; the
traceback only with ``--debug`` (or ``BAND_LOG_LEVEL=DEBUG``). Logs are quiet (warnings only)
unless the command sets a ``log_level`` default (``band dev``, a server) or ``-v`` asks.
"""

from __future__ import annotations

import argparse
import asyncio
import inspect
import logging
import sys
from collections.abc import Awaitable, Callable, Sequence

from band._version import __version__
from band.core.exceptions import StartupError
from band.runtime.startup import debug_enabled

from . import demo, dev, doctor, rooms
from .options import CommandError

__all__ = ["GROUPS", "build_parser", "main"]

Command = Callable[[argparse.Namespace], "int | Awaitable[int]"]
Group = Callable[["argparse._SubParsersAction[argparse.ArgumentParser]"], None]

#: The command groups, in the order ``band --help`` lists them.
GROUPS: list[Group] = [dev.add, demo.add, doctor.add, rooms.add]


def build_parser() -> argparse.ArgumentParser:
    """Build the argument parser with every command group."""
    parser = argparse.ArgumentParser(
        prog="band",
        description="Band open SDK: the local platform, a demo, and rooms from a terminal.",
    )
    parser.add_argument(
        "--version", action="version", version=f"%(prog)s {__version__} (band-open-sdk)"
    )
    parser.add_argument(
        "-v",
        "--verbose",
        action="count",
        default=0,
        help="log more: -v at INFO (each HTTP call too), -vv at DEBUG (default: warnings only)",
    )
    parser.add_argument(
        "--debug",
        action="store_true",
        help="log at DEBUG and show tracebacks of failures (default: off; BAND_LOG_LEVEL=DEBUG)",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for add in GROUPS:
        add(sub)
    return parser


def _run(func: Command, args: argparse.Namespace) -> int:
    """Run one command to its exit status (an ``async`` one in an event loop of its own)."""
    result = func(args)
    if inspect.isawaitable(result):
        return asyncio.run(_awaited(result))
    return result


async def _awaited(result: Awaitable[int]) -> int:
    return await result


def _log_level(args: argparse.Namespace) -> int:
    """Warnings only, unless the command logs more by nature (``band dev``) or ``-v`` asks."""
    if args.debug:
        return logging.DEBUG
    base: int = getattr(args, "log_level", logging.WARNING)
    verbose: int = args.verbose
    return max(logging.DEBUG, base - 10 * verbose)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``band`` console script."""
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=_log_level(args), format="%(levelname)s %(name)s: %(message)s")
    try:
        func: Command = args.func
        return _run(func, args)
    except (CommandError, StartupError) as exc:
        if args.debug or debug_enabled():
            raise
        print(f"error: {exc}", file=sys.stderr)
        return exc.code if isinstance(exc, CommandError) else 1
    except KeyboardInterrupt:
        return 130 if args.command != "tail" else 0
