"""Force a real WebSocket disconnect under a running agent, for reconnect tests.

``link`` is the agent's Phoenix session: a ``band.client.phoenix.PhoenixClient``, or an
object that holds one (an ``AgentRuntime`` as ``.phoenix``, an ``Agent`` as
``.runtime.phoenix``). Production code never needs this, so the session has no public API
for it and these helpers reach its socket directly.
"""

from __future__ import annotations

from typing import Any

from websockets.asyncio.client import ClientConnection

from band.client.phoenix import PhoenixClient

__all__ = ["close_transport", "force_transport_disconnect", "live_connection"]


def _session(link: Any) -> PhoenixClient:
    for candidate in (link, getattr(link, "phoenix", None)):
        if isinstance(candidate, PhoenixClient):
            return candidate
    nested = getattr(getattr(link, "runtime", None), "phoenix", None)
    if isinstance(nested, PhoenixClient):
        return nested
    raise TypeError(f"no Phoenix session in {type(link).__name__}")


def live_connection(link: Any) -> ClientConnection:
    """The WebSocket connection open under ``link`` right now."""
    ws = _session(link)._ws
    if ws is None:
        raise RuntimeError("the session has no open WebSocket connection")
    return ws


async def force_transport_disconnect(link: Any) -> None:
    """Drop the connection without a close handshake, as a network failure does."""
    live_connection(link).transport.abort()


async def close_transport(link: Any) -> None:
    """Close the connection normally from the client side (the server answers 1000)."""
    await live_connection(link).close()
