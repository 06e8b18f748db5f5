"""The limits a local server enforces, with defaults sized for a development machine."""

from __future__ import annotations

from dataclasses import dataclass

try:
    import resource
except ImportError:  # Windows: no descriptor limit to read
    resource = None  # type: ignore[assignment]

KIB = 1024
MIB = 1024 * KIB

#: seconds a client has to send a request body, plus one for every ``MIN_BODY_RATE`` bytes it
#: sent: a real upload at any usable speed finishes, a body trickled a byte at a time is 408
BODY_TIMEOUT = 10.0
MIN_BODY_RATE = 64 * KIB

#: descriptors kept free for what the server opens itself (SQLite and its WAL, logs, pipes,
#: the event loop, outgoing HTTP clients)
DESCRIPTOR_HEADROOM = 32


@dataclass(frozen=True, slots=True)
class Limits:
    """Bounds on what one client can make a server hold."""

    #: request body bytes (declared or chunked); more is answered 413 without reading it all
    max_body: int = 1 * MIB
    #: bytes of request line and headers; more is answered 431
    max_header: int = 64 * KIB
    #: seconds a client has to finish its request line and headers; then 408 and close
    header_timeout: float = 10.0
    #: seconds a client has to send its body (plus one a ``min_body_rate`` bytes); then 408
    body_timeout: float = BODY_TIMEOUT
    #: bytes a second a slow body must keep up to extend its deadline
    min_body_rate: int = MIN_BODY_RATE
    #: open connections (HTTP and WebSocket); capped below the descriptor limit
    max_connections: int = 1000
    #: bytes of one WebSocket message
    max_ws_message: int = 1 * MIB
    #: open WebSockets of one API key (a person's tabs; an agent has one, a newer supersedes
    #: it): one key cannot take the connections every other client needs. Past it the upgrade
    #: is answered 429 with ``retry_after``, which Band's SDK waits out before it retries
    max_sockets_per_key: int = 100
    #: the listen queue, which is also how many connections asyncio accepts in one go before
    #: the cap is checked: the cap leaves that many descriptors free as well
    backlog: int = 64

    def connection_cap(self) -> int:
        """``max_connections``, lowered to leave descriptors free for one accept burst
        (``backlog``) and the server's own files (:data:`DESCRIPTOR_HEADROOM`)."""
        if resource is None:
            return self.max_connections
        soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
        if soft == resource.RLIM_INFINITY:
            return self.max_connections
        return max(1, min(self.max_connections, soft - DESCRIPTOR_HEADROOM - self.backlog))
