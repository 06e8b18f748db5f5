"""What the ``band`` subcommands share: where the platform is, the person's key, clear failures."""

from __future__ import annotations

import argparse
import os
import sys

import httpx

__all__ = [
    "DEFAULT_DB",
    "DEV_HOST",
    "DEV_PORT",
    "DEFAULT_URL",
    "CommandError",
    "add_platform_options",
    "call",
    "fail",
    "human_client",
    "stored_user_key",
    "user_key",
]

DEFAULT_DB = ".band/dev.sqlite3"
#: Where ``band dev`` listens by default, and so where the other commands find it.
DEV_HOST, DEV_PORT = "127.0.0.1", 8080
DEFAULT_URL = f"http://{DEV_HOST}:{DEV_PORT}"


class CommandError(Exception):
    """A command cannot go on; the message says why and what to do (printed as ``error: ...``)."""


def add_platform_options(parser: argparse.ArgumentParser) -> None:
    """``--url``, ``--user-key`` and ``--db``: which platform and whose key."""
    parser.add_argument(
        "--url",
        default=os.environ.get("BAND_REST_URL") or DEFAULT_URL,
        help="REST URL of the platform (default: $BAND_REST_URL, else %(default)s)",
    )
    parser.add_argument(
        "--user-key",
        default=None,
        help="the person's API key (default: $BAND_USER_KEY, else the key stored in --db)",
    )
    parser.add_argument(
        "--db",
        default=DEFAULT_DB,
        help="band dev's SQLite file to read the local person's key from (default: %(default)s)",
    )


def stored_user_key(db: str) -> str | None:
    """The local person's key from an existing dev DB file."""
    if db == ":memory:" or not os.path.exists(db):
        return None
    from band.devserver.store.db import Store

    store = Store(db)
    try:
        return store.local_user_key()
    finally:
        store.close()


def user_key(args: argparse.Namespace) -> str:
    """The person's key from ``--user-key``, ``BAND_USER_KEY`` or ``--db``, or a CommandError."""
    key = args.user_key or os.environ.get("BAND_USER_KEY") or stored_user_key(args.db)
    if not key:
        raise CommandError(
            f"no user key: pass --user-key, set BAND_USER_KEY (band dev prints it), or run from "
            f"the directory whose {args.db} band dev uses (--db)"
        )
    return key


def human_client(args: argparse.Namespace) -> httpx.Client:
    """An HTTP client for the human API of ``--url`` with the person's key."""
    return httpx.Client(
        base_url=f"{args.url.rstrip('/')}/api/v1",
        headers={"X-API-Key": user_key(args)},
        timeout=10,
    )


def call(http: httpx.Client, method: str, path: str, **kwargs: object) -> httpx.Response:
    """One human-API call; an unreachable platform or an error status is a CommandError."""
    try:
        r = http.request(method, path, **kwargs)  # type: ignore[arg-type]
    except httpx.HTTPError as exc:
        raise CommandError(
            f"cannot reach the Band platform at {http.base_url}: {exc}.\n"
            "Is `band dev` running? Start it, or pass --url (or set BAND_REST_URL)."
        ) from exc
    if r.status_code == 401:
        raise CommandError(
            f"the platform at {http.base_url} refused the user key (401): pass the key band dev "
            "printed as BAND_USER_KEY (--user-key), or --db with the file that band dev uses"
        )
    if r.status_code >= 400:
        raise CommandError(f"{method} {path} -> {r.status_code}: {r.text}")
    return r


def fail(exc: CommandError) -> int:
    """Print ``error: ...`` and return the exit status 1."""
    print(f"error: {exc}", file=sys.stderr)
    return 1
