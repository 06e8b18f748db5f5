"""The local platform's pieces the CLI uses: the one module of band.cli importing band.devserver.

Imported lazily (inside functions): commands that do not serve or read the dev database never
load the platform.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from starlette.applications import Starlette

__all__ = ["app", "create_person", "serve", "stored_user_key"]


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


def create_person(db: str, name: str, handle: str) -> tuple[dict[str, Any], str]:
    """Write another person into the dev DB ``db``: their row and their new key."""
    from band.devserver.store.db import Store, new_key, slug

    key = new_key("band_u_")
    store = Store(db)
    try:
        return store.create_user(name, slug(handle), key), key
    finally:
        store.close()


def serve(app: Starlette, **config: Any) -> None:
    """Serve ``app`` (from :func:`app`) with band dev's limits until Ctrl-C."""
    import uvicorn

    from band.devserver.app import LIMITS
    from band.serving import guarded_config

    uvicorn.Server(guarded_config(app, LIMITS, **config)).run()


def app(db: str, user_key: str | None) -> Starlette:
    """The local platform's ASGI app on ``db`` (a new person key when ``user_key`` is None)."""
    from band.devserver.app import create_app

    return create_app(db, user_key=user_key)
