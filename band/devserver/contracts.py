"""The seam between the REST side and the WebSocket side of the local platform.

The REST application (``band.devserver.app``) owns the database and decides
*what* happened; the WebSocket side (``band.devserver.socket`` / ``fanout``)
owns connections and decides *who is listening*. They meet only here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, Protocol


@dataclass(frozen=True, slots=True)
class Principal:
    """Who an API key belongs to."""

    kind: Literal["agent", "user"]
    id: str
    name: str


class Pusher(Protocol):
    """What the REST side calls to push a server event (implemented by the fanout)."""

    async def push(
        self,
        topic: str,
        event: str,
        payload: dict[str, Any],
        *,
        agent_ids: frozenset[str] | None = None,
    ) -> None:
        """Send ``event`` to every socket joined to ``topic``.

        With ``agent_ids``, only sockets of those agents receive it (mention routing).
        """
        ...


class Directory(Protocol):
    """What the WebSocket side asks the REST side's store (implemented by the store)."""

    async def authenticate(self, api_key: str) -> Principal | None:
        """Return the principal owning ``api_key``, or None."""
        ...

    async def agent_room_ids(self, agent_id: str) -> set[str]:
        """Return the ids of the rooms ``agent_id`` participates in."""
        ...
