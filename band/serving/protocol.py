"""uvicorn's HTTP protocol with a header-read timeout, a header size limit and a connection cap.

uvicorn bounds none of these itself (``timeout_keep_alive`` covers only the idle time between
requests, and any byte resets it), so a client that sends its headers slowly, or endlessly,
holds a descriptor and memory for as long as it likes. The guarded protocol:

* closes a connection whose request line and headers are not complete ``header_timeout``
  seconds after it opened (or after the request's first byte), with 408;
* answers 431 when the request line and headers pass ``max_header`` bytes;
* caps open connections (HTTP and WebSocket) below the descriptor limit: at the cap a new
  connection closes the oldest one still waiting for its headers (a stalled client, or an
  idle keep-alive one), or, when every connection is busy, is itself answered 503. The cap is
  logged once when reached, and once when the load falls back, not per connection.
"""

from __future__ import annotations

import asyncio
import logging
from http import HTTPStatus
from typing import Any, ClassVar, cast

from uvicorn.protocols.http.h11_impl import H11Protocol

from .errors import error_bytes
from .limits import Limits

log = logging.getLogger("band.serving")

try:
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
except ImportError:  # no httptools (PyPy): uvicorn's h11 protocol only
    HttpToolsProtocol = None  # type: ignore[assignment,misc]


class Shared:
    """The state one server's connections share: limits, cap and who awaits headers."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.cap = limits.connection_cap()
        #: connections waiting for a request's headers, oldest first (the eviction order)
        self.waiting: dict[Any, None] = {}
        self.full = False

    def evict_oldest(self) -> bool:
        """Close the connection that has waited longest for headers; False when none does."""
        while self.waiting:
            oldest = next(iter(self.waiting))
            del self.waiting[oldest]
            transport = oldest.transport
            if transport is not None and not transport.is_closing():
                oldest.cancel_head_timer()
                transport.close()
                return True
        return False

    def note_full(self, open_now: int) -> None:
        """Log once that the cap is reached (again only after the load fell back)."""
        if not self.full:
            self.full = True
            log.warning(
                "connection limit reached: %d open connections (cap %d, from max_connections "
                "and the descriptor limit); closing connections that are slow to send their "
                "headers, answering 503 when every connection is busy",
                open_now,
                self.cap,
            )

    def note_closed(self, open_now: int) -> None:
        """Log once when the connections fall back under three quarters of the cap."""
        if self.full and open_now < self.cap * 3 // 4:
            self.full = False
            log.info("connections back under the limit: %d open", open_now)


def reply(transport: asyncio.BaseTransport, status: int, code: str, message: str) -> None:
    """Write a complete JSON error response (the Band error envelope) and close."""
    body = error_bytes(code, message)
    head = (
        f"HTTP/1.1 {status} {HTTPStatus(status).phrase}\r\n"
        "content-type: application/json\r\n"
        f"content-length: {len(body)}\r\n"
        "connection: close\r\n\r\n"
    ).encode()
    # every loop's stream transport writes, uvloop's too (which does not subclass asyncio's)
    cast(asyncio.WriteTransport, transport).write(head + body)
    transport.close()


class _Guard:
    """The guard, mixed in before one of uvicorn's HTTP protocols (see the module docstring)."""

    shared: ClassVar[Shared]
    # uvicorn's protocol attributes the guard reads
    transport: asyncio.Transport
    loop: asyncio.AbstractEventLoop
    server_state: Any
    _head_timer: asyncio.TimerHandle | None = None
    #: when a request's headers are due, its timer not started yet (``defer_head``)
    _head_due: float | None = None
    _head_bytes = 0
    _refused = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        """Admit the connection under the cap (evicting a stalled one), or answer 503."""
        shared = self.shared
        connections = self.server_state.connections
        if len(connections) >= shared.cap:
            shared.note_full(len(connections))
            if not shared.evict_oldest():
                self._refused = True
                reply(transport, 503, "service_unavailable", "too many connections; retry later")
                return
        super().connection_made(transport)  # type: ignore[misc]
        self.await_head()

    def connection_lost(self, exc: Exception | None) -> None:
        """Forget the connection (nothing to do for one refused at the cap)."""
        if self._refused:
            return
        self.head_done()
        super().connection_lost(exc)  # type: ignore[misc]
        self.shared.note_closed(len(self.server_state.connections))

    def data_received(self, data: bytes) -> None:
        """Feed the parser; count what arrives before the headers are complete."""
        super().data_received(data)  # type: ignore[misc]
        if self._head_due is not None:  # a request's headers span reads: time them
            self._head_timer = self.loop.call_at(self._head_due, self._head_timeout)
            self._head_due = None
        if self._head_timer is not None:
            self._head_bytes += len(data)
            if self._head_bytes > self.shared.limits.max_header:
                self.head_done()
                if not self.transport.is_closing():
                    limit = self.shared.limits.max_header
                    reply(
                        self.transport,
                        431,
                        "headers_too_large",
                        f"request line and headers larger than {limit} bytes",
                    )

    def on_response_complete(self) -> None:
        """An idle keep-alive connection may be closed first when the cap is reached."""
        super().on_response_complete()  # type: ignore[misc]
        if not self.transport.is_closing():
            self.shared.waiting[self] = None

    def await_head(self) -> None:
        """Start waiting for a request's headers (timer, byte count, eviction order)."""
        if self._head_timer is None:
            timeout = self.shared.limits.header_timeout
            self._head_timer = self.loop.call_later(timeout, self._head_timeout)
            self._head_bytes = 0
        self.shared.waiting[self] = None

    def head_done(self) -> None:
        """The headers arrived (or the connection ends): stop the timer, leave the queue."""
        self.cancel_head_timer()
        self.shared.waiting.pop(self, None)

    def defer_head(self) -> None:
        """A request began: its headers are due within the timeout, a timer started only if
        they are not complete at the end of this read (most requests come in one)."""
        if self._head_timer is None:
            self._head_due = self.loop.time() + self.shared.limits.header_timeout
            self._head_bytes = 0
        self.shared.waiting[self] = None

    def cancel_head_timer(self) -> None:
        """Stop the header timer, if it runs."""
        self._head_due = None
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _head_timeout(self) -> None:
        self._head_timer = None
        self.shared.waiting.pop(self, None)
        if not self.transport.is_closing():
            timeout = self.shared.limits.header_timeout
            reply(self.transport, 408, "request_timeout", f"headers not received in {timeout:g}s")


class _GuardedH11(_Guard, H11Protocol):
    """The guard on uvicorn's h11 protocol (h11 itself bounds the header size too)."""

    def handle_events(self) -> None:
        """Parse; the headers are complete once h11 leaves its idle state."""
        import h11

        super().handle_events()
        if self.conn.their_state is not h11.IDLE:
            self.head_done()
        elif self.conn.trailing_data[0] and self._head_timer is None:
            self.await_head()


class HeadWithBody:
    """The transport one response writes through: a response of known, non-zero length sends
    its status line and headers with the first bytes of its body, in one write.

    uvicorn writes them apart; with ``TCP_NODELAY`` that is two segments and two wake-ups of
    the client for every answer. Only the head waits, and only for the body its
    ``Content-Length`` promises (the next message of the same response); a closing connection
    sends it first. Chunked and streamed responses, HEAD, 204 and empty bodies are written as
    uvicorn writes them.
    """

    __slots__ = ("_cycle", "_held", "_started", "transport")

    def __init__(self, transport: asyncio.Transport, cycle: Any) -> None:
        self.transport = transport
        self._cycle = cycle
        self._held: bytes | None = None
        self._started = False

    def write(self, data: bytes) -> None:
        """Write ``data``; the response's head waits for its body."""
        held = self._held
        if held is not None:
            self._held = None
            self.transport.write(held + data)
            return
        cycle = self._cycle
        if not self._started and cycle.response_started:  # the head (a 100 Continue is not)
            self._started = True
            if (
                cycle.chunked_encoding is False
                and cycle.expected_content_length > 0
                and cycle.scope["method"] != "HEAD"
            ):
                self._held = data
                return
        self.transport.write(data)

    def close(self) -> None:
        """Send what waits, then close."""
        held, self._held = self._held, None
        if held is not None and not self.transport.is_closing():
            self.transport.write(held)
        self.transport.close()

    def is_closing(self) -> bool:
        """Whether the connection is closing."""
        return self.transport.is_closing()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.transport, name)


if HttpToolsProtocol is not None:

    class _GuardedHttpTools(_Guard, HttpToolsProtocol):
        """The guard on uvicorn's httptools protocol; responses written head with body."""

        def on_message_begin(self) -> None:
            """A request's first byte: its headers are due within the timeout."""
            super().on_message_begin()
            self.defer_head()

        def on_headers_complete(self) -> None:
            """The headers are in: the request is no longer a stalled one."""
            self.head_done()
            super().on_headers_complete()
            cycle = getattr(self, "cycle", None)
            if cycle is not None and cycle.transport is self.transport:  # the new request's
                cycle.transport = HeadWithBody(self.transport, cycle)


def guarded_protocol(limits: Limits, *, http: str = "auto") -> type[asyncio.Protocol]:
    """A protocol class for ``uvicorn.Config(http=...)`` enforcing ``limits`` (one per server)."""
    base: type[_Guard] = _GuardedH11
    if http != "h11" and HttpToolsProtocol is not None:
        base = _GuardedHttpTools
    return cast(type[asyncio.Protocol], type(base.__name__, (base,), {"shared": Shared(limits)}))
