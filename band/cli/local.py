"""The local platform's pieces the CLI uses: the one module of band.cli importing band.devserver.

Imported lazily (inside functions): commands that do not serve or read the dev database never
load the platform.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from .options import CommandError

if TYPE_CHECKING:
    from starlette.applications import Starlette

__all__ = ["app", "create_person", "serve", "stored_user_key", "user_key"]


@contextmanager
def _usable() -> Iterator[None]:
    """Turn band dev's refusal of a database (``--db``) into the CLI's one-line error."""
    from band.devserver.store.usable import UnusableDatabase

    try:
        yield
    except UnusableDatabase as exc:
        raise CommandError(str(exc), code=2) from None


def stored_user_key(db: str) -> str | None:
    """The local person's key from an existing dev DB file."""
    if db == ":memory:" or not os.path.exists(db):
        return None
    from band.devserver.store.db import Store

    with _usable():
        store = Store(db)
    try:
        return store.local_user_key()
    finally:
        store.close()


def create_person(db: str, name: str, handle: str) -> tuple[dict[str, Any], str]:
    """Write another person into the dev DB ``db``: their row and their new key."""
    from band.devserver.store.db import Store, new_key, slug

    key = new_key("band_u_")
    with _usable():
        store = Store(db)
    try:
        return store.create_user(name, slug(handle), key), key
    finally:
        store.close()


def serve(app: Starlette, **config: Any) -> None:
    """Serve ``app`` (from :func:`app`) with band dev's limits until Ctrl-C."""

    from band.devserver.app import LIMITS
    from band.serving import GracefulServer, guarded_config

    GracefulServer(guarded_config(app, LIMITS, **config)).run()


def app(db: str, user_key: str | None) -> Starlette:
    """The local platform's ASGI app on ``db`` (a new person key when ``user_key`` is None)."""
    from band.devserver.app import create_app

    with _usable():
        return create_app(db, user_key=user_key)


def user_key(args: argparse.Namespace) -> str:
    """The person's key from ``--user-key``, ``BAND_USER_KEY`` or ``--db``, or a CommandError."""
    key = args.user_key or os.environ.get("BAND_USER_KEY") or stored_user_key(args.db)
    if not key:
        raise CommandError(
            f"no user key: pass --user-key, set BAND_USER_KEY (band dev prints it), or run from "
            f"the directory whose {args.db} band dev uses (--db)"
        )
    return key
