"""The store as the event loop sees it: ``Store`` calls made awaitable."""

from __future__ import annotations

from collections.abc import Callable
from typing import Concatenate, ParamSpec, TypeVar

from .db import Store
from .principal import Principal

T = TypeVar("T")
P = ParamSpec("P")


class AsyncStore:
    """Runs ``Store`` calls on the event loop's thread, one at a time.

    Each call is a few indexed statements on a WAL database that syncs only at checkpoints,
    tens of microseconds: handing it to a worker thread cost more CPU (future, wake-ups, GIL
    hand-over) than the call itself, and most of the platform's time per message. Calls stay
    awaitable so the store could move off the loop again without touching its callers.
    """

    def __init__(self, store: Store) -> None:
        self.store = store

    async def run(
        self, fn: Callable[Concatenate[Store, P], T], *args: P.args, **kwargs: P.kwargs
    ) -> T:
        """Call ``fn(store, *args, **kwargs)``."""
        return fn(self.store, *args, **kwargs)

    async def authenticate(self, api_key: str) -> Principal | None:
        """Return the principal owning ``api_key``."""
        return self.store.authenticate(api_key)  # every request's: ``run`` without its frame

    async def agent_room_ids(self, agent_id: str) -> set[str]:
        """Return the rooms ``agent_id`` participates in."""
        return await self.run(Store.room_ids_of, agent_id)

    def close(self) -> None:
        """Close the database."""
        self.store.close()
