"""What the ``band`` commands share: options (declared once, here), defaults, the failure type."""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable

from band.client.urls import rest_url_problem

__all__ = [
    "DEFAULT_DB",
    "DEFAULT_URL",
    "DEV_HOST",
    "DEV_PORT",
    "CommandError",
    "add_db",
    "add_platform",
    "env_url",
    "platform_url",
    "seconds",
]

DEFAULT_DB = ".band/dev.sqlite3"
#: Where ``band dev`` listens by default, and so where the other commands find it.
DEV_HOST, DEV_PORT = "127.0.0.1", 8080
DEFAULT_URL = f"http://{DEV_HOST}:{DEV_PORT}"


class CommandError(Exception):
    """A command cannot go on: printed as ``error: <message>``, exiting with ``code``.

    The message says why and what to do. ``code`` is 2 for an argument the command refuses
    (argparse's status for a usage error), 1 for everything else.
    """

    def __init__(self, message: str, code: int = 1) -> None:
        super().__init__(message)
        self.code = code


def add_db(parser: argparse.ArgumentParser, role: str, *, inherit: str = "") -> None:
    """``--db``: band dev's SQLite file; ``role`` says what this command does with it.

    ``inherit`` names the parent command whose own ``--db``, given before this subcommand,
    stands when this one is not given (argparse would otherwise put this default over it).
    """
    default = f"{inherit}'s --db, else {DEFAULT_DB}" if inherit else DEFAULT_DB
    parser.add_argument(
        "--db",
        default=argparse.SUPPRESS if inherit else DEFAULT_DB,
        help=f"{role} (default: {default})",
    )


def add_platform(parser: argparse.ArgumentParser, *, inherit: str = "") -> None:
    """``--url``, ``--user-key`` and ``--db``: which platform, and whose key (``inherit``: as
    for :func:`add_db`; the parent then also resolves ``--url``, see ``band dev``)."""
    if inherit:
        parser.add_argument(
            "--url",
            type=platform_url,
            default=argparse.SUPPRESS,
            help=(
                f"REST URL of the platform (default: the one at {inherit}'s --host/--port when "
                f"given, else $BAND_REST_URL, else {DEFAULT_URL})"
            ),
        )
    else:
        parser.add_argument(
            "--url",
            type=platform_url,  # argparse applies it to the default too: BAND_REST_URL is checked
            default=env_url(),
            help="REST URL of the platform (default: $BAND_REST_URL, else %(default)s)",
        )
    whose = f"{inherit}'s --user-key, else " if inherit else ""
    parser.add_argument(
        "--user-key",
        default=argparse.SUPPRESS if inherit else None,
        help=f"the person's API key (default: {whose}$BAND_USER_KEY, else the key stored in --db)",
    )
    add_db(parser, "band dev's SQLite file to read the local person's key from", inherit=inherit)


def env_url() -> str:
    """The platform's REST URL from ``BAND_REST_URL``, else band dev's default (unchecked)."""
    return os.environ.get("BAND_REST_URL") or DEFAULT_URL


def platform_url(text: str) -> str:
    """An argparse type for a platform's REST base URL (``http(s)://HOST[:PORT]``)."""
    problem = rest_url_problem(text)
    if problem is not None:
        raise argparse.ArgumentTypeError(f"{text!r} {problem} (band dev's: {DEFAULT_URL})")
    return text


def port(text: str) -> int:
    """An argparse type for a TCP port to listen on: 1 to 65535."""
    try:
        value = int(text)
    except ValueError:
        value = -1
    if not 1 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"must be a port from 1 to 65535, not {text}")
    return value


def seconds(*, zero: bool) -> Callable[[str], float]:
    """An argparse type for a number of seconds: 0 or more (``zero``), else more than 0."""

    def parse(text: str) -> float:
        value = float(text)
        if value < 0 or (value == 0 and not zero):
            want = "0 or more" if zero else "a positive number of"
            raise argparse.ArgumentTypeError(f"must be {want} seconds, not {text}")
        return value

    return parse
