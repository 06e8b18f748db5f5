"""``band demo``: a local platform, an example agent and a room, end to end (``band.demo``)."""

from __future__ import annotations

import argparse

from .options import seconds

__all__ = ["DEFAULT_TIMEOUT", "add"]

DEFAULT_TIMEOUT = 60.0


def _run(args: argparse.Namespace) -> int:
    from band.demo.run import main

    return main(args)


def add(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``band demo``."""
    demo = sub.add_parser(
        "demo",
        help="run a local platform, an example agent and a room, end to end",
        description=(
            "Start the local Band platform on 127.0.0.1, register an example agent, run it with "
            "the SDK, create a room, mention the agent and print the room until it replies. "
            "Exits 0 once the reply arrived, 1 otherwise."
        ),
    )
    demo.add_argument(
        "--acp",
        action="store_true",
        help="run the agent through ACPClientAdapter with the bundled demo ACP agent",
    )
    demo.add_argument(
        "--keep",
        action="store_true",
        help="keep the platform and agent running after the reply (Ctrl-C stops)",
    )
    demo.add_argument(
        "--db", default=None, help="SQLite file to keep the platform's data in (default: temporary)"
    )
    demo.add_argument(
        "--timeout",
        type=seconds(zero=False),
        default=DEFAULT_TIMEOUT,
        help=f"seconds until the reply must have arrived (default {DEFAULT_TIMEOUT:g})",
    )
    demo.add_argument(
        "--message",
        default="Hello! What can you do?",
        help="what the local person says to the agent",
    )
    # test aid, kept out of --help: an agent that never replies, for the failure path
    demo.add_argument("--silent-agent", action="store_true", help=argparse.SUPPRESS)
    demo.set_defaults(func=_run)
