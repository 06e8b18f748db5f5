"""A lean HTTP/1.1 client for the REST hot path: keep-alive connections on asyncio + httptools.

An agent turn makes a few small JSON calls to one host; through httpx most of the agent's CPU
went to the generic machinery around each of them (URL and header models, the connection pool's
bookkeeping, h11's state machine). This client does only what those calls need: one origin,
pooled keep-alive connections, one request in flight per connection, bodies framed by
Content-Length, chunked encoding or the connection's close, parsed by httptools (the C parser
uvicorn uses). It raises httpx's own exception classes, so callers handle both stacks alike;
httpx itself (about 7 MiB of an agent's memory with what it pulls in) is imported only when one
is raised. :class:`~band.client.rest.RestClient` falls back to httpx for what it does not cover
(proxies, multipart uploads, a custom transport).
"""

from __future__ import annotations

import asyncio
import logging
import math
import os
import re
import ssl
import time
import urllib.request
import zlib
from collections.abc import Iterator, Mapping, Sequence
from types import ModuleType
from typing import Any
from urllib.parse import SplitResult, quote, urlencode, urlsplit

httptools: Any
try:
    import httptools
except ImportError:  # pragma: no cover - every supported platform has a wheel
    httptools = None

#: Characters a path or query may carry as they are (RFC 3986 pchar plus "/" and "%" escapes).
log = logging.getLogger("band.client.http11")

#: One query parameter's value (httpx's ``PrimitiveData``; None is sent as an empty value).
Primitive = str | int | float | bool | None
#: Query parameters: a value or a list of values (the key repeats) per name.
QueryParams = Mapping[str, Primitive | Sequence[Primitive]]

_PATH_SAFE = "/%:@!$&'()*+,;=~-._"
_QUERY_SAFE = _PATH_SAFE + "?"
#: A path that ``quote(path, safe=_PATH_SAFE)`` returns unchanged (most are: ids are UUIDs).
_PLAIN_PATH = re.compile(r"[A-Za-z0-9/%:@!$&'()*+,;=~._-]*")
_BODY_METHODS = frozenset({"POST", "PUT", "PATCH"})
#: characters a request target may not carry (they would split the request line)
_BAD_TARGET = re.compile(r"[ \r\n]")
#: The first bytes of a JSON object or array.
_JSON_START = frozenset(b"{[")
#: How early a deadline may be taken as reached (asyncio runs a timer up to its clock's
#: resolution early).
_DEADLINE_SLACK_S = 0.001


def _httpx() -> ModuleType:
    """httpx, imported when the first of its exceptions is raised (an answer needs none)."""
    import httpx

    return httpx


def ssl_context() -> ssl.SSLContext:
    """The certificate trust httpx's default client uses (``httpx.create_ssl_context``):
    ``SSL_CERT_FILE``, else ``SSL_CERT_DIR``, else certifi's bundle."""
    if os.environ.get("SSL_CERT_FILE"):
        return ssl.create_default_context(cafile=os.environ["SSL_CERT_FILE"])
    if os.environ.get("SSL_CERT_DIR"):
        return ssl.create_default_context(capath=os.environ["SSL_CERT_DIR"])
    import certifi  # httpx's own dependency

    return ssl.create_default_context(cafile=certifi.where())


def available() -> bool:
    """True when the C parser this client needs is installed."""
    return httptools is not None


def uses_proxy(url: str) -> bool:
    """True when the environment routes ``url`` through a proxy (httpx honours those)."""
    parts = urlsplit(url)
    proxies = urllib.request.getproxies()
    if not (proxies.get(parts.scheme) or proxies.get("all")):
        return False
    return not urllib.request.proxy_bypass(parts.hostname or "")


class Headers(Mapping[str, str]):
    """An answer's headers by lower-case name (a repeated one joined with ", "), decoded from
    the received lines on first use: a successful JSON answer is read without them."""

    __slots__ = ("_decoded", "_lines")

    def __init__(self, lines: list[tuple[bytes, bytes]]) -> None:
        self._lines = lines
        self._decoded: dict[str, str] | None = None

    def _dict(self) -> dict[str, str]:
        decoded = self._decoded
        if decoded is None:
            decoded = self._decoded = {}
            for name, value in self._lines:
                key, text = name.decode("latin-1").lower(), value.decode("latin-1")
                seen = decoded.get(key)
                decoded[key] = text if seen is None else f"{seen}, {text}"
        return decoded

    def __getitem__(self, key: str) -> str:
        return self._dict()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._dict())

    def __len__(self) -> int:
        return len(self._dict())

    def __repr__(self) -> str:
        return f"Headers({self._dict()!r})"


class Response:
    """A complete answer: status, headers (lower-case names) and the body."""

    __slots__ = ("content", "headers", "status_code")

    def __init__(self, status_code: int, headers: Mapping[str, str], content: bytes) -> None:
        self.status_code = status_code
        self.headers = headers
        self.content = content


class _Connection(asyncio.Protocol):
    """One keep-alive connection; parses the answer to the request in flight."""

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.usable = False  # idle, open and in step with the server
        self.idle_since = 0.0
        self.deadline = math.inf  # loop time by which the pending answer must have come
        self._parser = httptools.HttpResponseParser(self)
        self._waiter: asyncio.Future[Response] | None = None
        self._lines: list[tuple[bytes, bytes]] = []  # the answer's header lines, as received
        self._body: list[bytes] = []
        self._headers_done = False

    # asyncio.Protocol

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]
        self.usable = True

    def data_received(self, data: bytes) -> None:
        if self._waiter is None:  # bytes nobody asked for: the stream is out of step
            self.close()
            return
        try:
            self._parser.feed_data(data)
        except httptools.HttpParserError as exc:
            self._fail(_httpx().RemoteProtocolError(f"malformed response: {exc}"))
            self.close()

    def eof_received(self) -> bool:
        self.usable = False
        return False  # let the transport close

    def connection_lost(self, exc: Exception | None) -> None:
        self.usable = False
        if self._waiter is None or self._waiter.done():
            return
        if self._headers_done and not self._framed():  # a body that ends where the stream does
            self.on_message_complete()
        else:
            self._fail(_httpx().RemoteProtocolError("server disconnected without a full response"))

    # httptools callbacks

    def on_header(self, name: bytes, value: bytes) -> None:
        self._lines.append((name, value))  # decoded only when read (Headers)

    def on_headers_complete(self) -> None:
        self._headers_done = True

    def _framed(self) -> bool:
        """True when the answer's end is in the stream (Content-Length, chunked, or no body)."""
        # 204 and 304 never carry a body (RFC 9110): their end is the end of the headers
        headers = Headers(self._lines)
        return (
            self._parser.get_status_code() in (204, 304)
            or "content-length" in headers
            or "chunked" in headers.get("transfer-encoding", "")
        )

    def on_body(self, body: bytes) -> None:
        self._body.append(body)

    def on_message_complete(self) -> None:
        waiter = self._waiter
        if waiter is None or waiter.done():
            return
        status = self._parser.get_status_code()
        if status < 200:  # an interim answer (100 Continue): the real one follows
            self._lines, self._body, self._headers_done = [], [], False
            return
        # llhttp keeps a connection alive only when the answer's end was in the stream (an
        # answer that ends with the connection completes in connection_lost, closed anyway)
        keep = self._parser.should_keep_alive()
        content = b"".join(self._body)
        headers = Headers(self._lines)
        # neither gzip's nor zlib's first byte can be "{" or "[": a JSON body skips the lookup
        if content and content[0] not in _JSON_START:
            encoding = headers.get("content-encoding", "")
            if encoding in ("gzip", "deflate"):  # not asked for, but decode it if a proxy does
                try:
                    content = zlib.decompress(content, 47 if encoding == "gzip" else 15)
                except zlib.error as exc:
                    self._fail(_httpx().RemoteProtocolError(f"bad {encoding} body: {exc}"))
                    self.close()
                    return
        waiter.set_result(Response(status, headers, content))
        self._waiter = None
        if not keep:
            self.close()

    # our side

    def send(self, data: bytes, deadline: float) -> asyncio.Future[Response]:
        """Write one request; the future resolves with its answer, or fails with
        ``TimeoutError`` when the pool finds it unanswered at ``deadline`` (loop time)."""
        assert self.transport is not None and self.usable
        self.usable = False
        self.deadline = deadline
        self._waiter = asyncio.get_running_loop().create_future()
        self._lines, self._body, self._headers_done = [], [], False
        self.transport.write(data)
        return self._waiter

    def expire(self) -> None:
        """The deadline passed with no answer: the request fails with ``TimeoutError``."""
        self._fail(TimeoutError())

    def release(self) -> bool:
        """Mark the connection idle after a complete answer; False when it cannot be reused."""
        if self.transport is None or self.transport.is_closing() or self._waiter is not None:
            return False
        self.usable = True
        self.idle_since = time.monotonic()
        return True

    def close(self) -> None:
        """Close the connection; it is never reused."""
        self.usable = False
        if self.transport is not None:
            self.transport.close()

    def _fail(self, exc: Exception) -> None:
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_exception(exc)
        self._waiter = None


class Http11Pool:
    """Keep-alive HTTP/1.1 connections to the one origin of ``base_url``."""

    def __init__(
        self,
        base_url: str,
        headers: Mapping[str, str],
        *,
        timeout: float,
        connect_timeout: float,
        max_connections: int = 100,
        # as many as may be open: with fewer, a burst (1000 rooms draining /next at start) closed
        # and reopened a TCP connection for nearly every request, on both ends
        max_idle: int = 100,
        keepalive_expiry_s: float = 5.0,
    ) -> None:
        if httptools is None:  # pragma: no cover
            raise RuntimeError("httptools is not installed")
        parts: SplitResult = urlsplit(base_url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"not an http(s) URL: {base_url!r}")
        self.timeout = timeout
        self.connect_timeout = connect_timeout
        self._host = parts.hostname
        self._port = parts.port or (443 if parts.scheme == "https" else 80)
        self._ssl: ssl.SSLContext | None = None
        if parts.scheme == "https":
            self._ssl = ssl_context()  # the trust httpx would use
        self._prefix = parts.path.rstrip("/") + "/"
        netloc = parts.netloc.rpartition("@")[2]
        self._fixed = _header_block({"Host": netloc, **headers})
        self._idle: list[_Connection] = []
        self._max_idle = max_idle
        self._expiry = keepalive_expiry_s
        self._slots = asyncio.Semaphore(max_connections)
        self._closed = False
        # the requests awaiting an answer, and one timer at the earliest of their deadlines:
        # not a timer per request (created, pushed on the loop's heap, then cancelled; three
        # requests per answered message), one per timeout period under a steady load
        self._waiting: set[_Connection] = set()
        self._timer: asyncio.TimerHandle | None = None
        self._timer_at = math.inf

    @property
    def closed(self) -> bool:
        """True once :meth:`aclose` ran."""
        return self._closed

    async def aclose(self) -> None:
        """Close every idle connection; the pool takes no more requests."""
        self._closed = True
        idle, self._idle = self._idle, []
        for conn in idle:
            conn.close()

    def target(self, url: str, params: QueryParams | None) -> str:
        """The request target for ``url`` (relative to the base path) and query ``params``."""
        path, _, query = url.partition("?")
        # as httpx merges a relative URL with base_url: "x", "/x" both land under the base path
        target = self._prefix + path.lstrip("/")
        if not _PLAIN_PATH.fullmatch(target):
            target = quote(target, safe=_PATH_SAFE)
        # as httpx does, ``params`` replace a query written into ``url``
        if params:
            query = _encode_query(params)
        elif query:
            query = quote(query, safe=_QUERY_SAFE)
        return f"{target}?{query}" if query else target

    async def request(
        self,
        method: str,
        target: str,
        *,
        body: bytes | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> Response:
        """Send one request and read its whole answer."""
        if self._closed:
            raise RuntimeError("the HTTP client is closed")
        head = f"{method} {target} HTTP/1.1\r\n{self._fixed}"
        if headers:
            head += _header_block(headers)
        if body is not None or method in _BODY_METHODS:
            head += f"Content-Length: {len(body or b'')}\r\n"
        if _BAD_TARGET.search(target):
            raise ValueError(f"invalid request target: {target!r}")
        data = (head + "\r\n").encode("latin-1") + (body or b"")
        # acquire/release, not ``async with``: two coroutines fewer per request
        await self._slots.acquire()
        try:
            conn = self._idle_connection() or await self._open()
            loop = asyncio.get_running_loop()
            deadline = loop.time() + self.timeout
            answer = conn.send(data, deadline)
            self._waiting.add(conn)
            if deadline < self._timer_at:
                self._arm(loop, deadline)
            try:
                resp = await answer
            except TimeoutError as exc:
                conn.close()
                raise _httpx().ReadTimeout(f"no answer within {self.timeout}s") from exc
            except BaseException:  # cancelled or failed mid-request: the stream is out of step
                conn.close()
                raise
            finally:
                self._waiting.discard(conn)
            if conn.release():
                if len(self._idle) < self._max_idle and not self._closed:
                    self._idle.append(conn)
                else:
                    conn.close()
            return resp
        finally:
            self._slots.release()

    def _arm(self, loop: asyncio.AbstractEventLoop, when: float) -> None:
        """Move the deadline timer to ``when``."""
        if self._timer is not None:
            self._timer.cancel()
        self._timer_at = when
        self._timer = loop.call_at(when, self._expire, loop)

    def _expire(self, loop: asyncio.AbstractEventLoop) -> None:
        """The earliest deadline came: requests past theirs fail; the timer moves on."""
        self._timer, self._timer_at = None, math.inf
        # a timer may run up to the clock's resolution early: that is on time here
        now = loop.time() + _DEADLINE_SLACK_S
        for conn in [c for c in self._waiting if c.deadline <= now]:
            self._waiting.discard(conn)
            conn.expire()
        if self._waiting:
            self._arm(loop, min(c.deadline for c in self._waiting))

    def _idle_connection(self) -> _Connection | None:
        """An idle connection that is still good (closing those that are not), or None."""
        now = time.monotonic()
        while self._idle:
            conn = self._idle.pop()
            if conn.usable and now - conn.idle_since < self._expiry:
                return conn
            conn.close()
        return None

    async def _open(self) -> _Connection:
        """A new connection."""
        loop = asyncio.get_running_loop()
        try:
            async with asyncio.timeout(self.connect_timeout):
                _, conn = await loop.create_connection(
                    _Connection,
                    self._host,
                    self._port,
                    ssl=self._ssl,
                    server_hostname=self._host if self._ssl else None,
                )
        except TimeoutError as exc:
            seconds = self.connect_timeout
            raise _httpx().ConnectTimeout(f"connect timed out after {seconds}s") from exc
        except OSError as exc:
            raise _httpx().ConnectError(str(exc) or type(exc).__name__) from exc
        log.debug("new connection to %s:%s (%d idle)", self._host, self._port, len(self._idle))
        return conn


def _header_block(headers: Mapping[str, str]) -> str:
    """``Name: value`` lines; a CR or LF in either would split the request, so it is refused."""
    lines = []
    for name, value in headers.items():
        if any(c in name or c in value for c in "\r\n") or ":" in name:
            raise ValueError(f"invalid header {name!r}")
        lines.append(f"{name}: {value}\r\n")
    return "".join(lines)


def _encode_query(params: QueryParams) -> str:
    """Form-encode ``params`` as httpx does: lists repeat the key, booleans are lower-case."""
    pairs: list[tuple[str, str]] = []
    for key, value in params.items():
        for item in value if isinstance(value, list | tuple) else (value,):
            pairs.append((key, _primitive(item)))
    return urlencode(pairs)


def _primitive(value: object) -> str:
    if value is True:
        return "true"
    if value is False:
        return "false"
    if value is None:
        return ""
    return str(value)
