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
import urllib.request
import zlib
from collections import deque
from collections.abc import Awaitable, Iterator, Mapping, Sequence
from types import ModuleType
from typing import Any
from urllib.parse import SplitResult, quote, urlencode, urlsplit

import msgspec

from .reads import BufferedReads

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
    """An answer's headers by lower-case name (a repeated one joined with ", "), parsed from
    the received bytes on first use: a successful JSON answer is read without them."""

    __slots__ = ("_decoded", "_received")

    def __init__(self, received: list[bytes]) -> None:
        self._received = received  # the answer's bytes up to (at least) the end of its head
        self._decoded: dict[str, str] | None = None

    def _dict(self) -> dict[str, str]:
        decoded = self._decoded
        if decoded is None:
            decoded = self._decoded = {}
            for line in _final_head(b"".join(self._received)) or ():
                name, _, value = line.partition(b":")  # llhttp skipped blanks before a value
                key, text = name.decode("latin-1").lower(), value.lstrip(b" \t").decode("latin-1")
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


def _final_head(data: bytes) -> list[bytes] | None:
    """The header lines of the final answer's head at the start of ``data`` (None while not
    all of it is there); the heads of interim answers (1xx, no body) before it are skipped.

    llhttp already accepted these bytes (strict: CRLF line ends, no folded lines), so this
    only splits them.
    """
    start = 0
    while True:
        end = data.find(b"\r\n\r\n", start)
        if end < 0:
            return None
        lines = data[start:end].split(b"\r\n")
        if lines[0][9:10] != b"1":  # not "HTTP/1.1 1xx": the final answer's head
            return lines[1:]
        start = end + 4


class Response(msgspec.Struct):
    """A complete answer: status, headers (lower-case names) and the body."""

    # a Struct: made without a Python ``__init__`` (one per request)
    status_code: int
    headers: Mapping[str, str]
    content: bytes


class _Connection(asyncio.Protocol, BufferedReads):
    """One keep-alive connection; parses the answer to the request in flight.

    The request's end (answered, failed, timed out) is handed to the pool at once, from the
    parser's callback: the caller awaits only the answer's future, no coroutine of the pool's.
    """

    def __init__(self, pool: Http11Pool) -> None:
        self.transport: asyncio.Transport | None = None
        self.usable = False  # idle, open and in step with the server
        self.connected = False  # open both ways (no end of stream seen, not closed)
        # loop time the last request went out: the keep-alive expiry counts from there (the
        # server's own starts at its answer, later: the safe side), no clock read at the answer
        self.sent_at = 0.0
        self.deadline = math.inf  # loop time by which the pending answer must have come
        self._pool = pool
        self._waiter: asyncio.Future[Response] | None = None
        # the answer's bytes as received until its body began (its head is all there then):
        # parsed only when a header is read (``Headers``). httptools calls back per header line
        # only a protocol with ``on_header`` (and at their end one with
        # ``on_headers_complete``): Python calls per answer for headers seldom read.
        self._received: list[bytes] = []
        self._body: list[bytes] = []
        # the list's own append, called by httptools from C: no Python call per body piece
        self.on_body = self._body.append
        self._parser = httptools.HttpResponseParser(self)  # (it looks its callbacks up now)

    # asyncio.Protocol

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]
        self.usable = self.connected = True

    def data_received(self, data: bytes) -> None:
        if self._waiter is None:  # bytes nobody asked for: the stream is out of step
            self.close()
            return
        if not self._body:
            self._received.append(data)
        try:
            self._parser.feed_data(data)
        except httptools.HttpParserError as exc:
            self._fail(_httpx().RemoteProtocolError(f"malformed response: {exc}"))

    def eof_received(self) -> bool:
        self.usable = self.connected = False
        return False  # let the transport close

    def connection_lost(self, exc: Exception | None) -> None:
        self.usable = self.connected = False
        if self._waiter is None or self._waiter.done():
            return
        head_done = _final_head(b"".join(self._received)) is not None
        if head_done and not self._framed():  # a body that ends where the stream does
            self.on_message_complete()
        else:
            self._fail(_httpx().RemoteProtocolError("server disconnected without a full response"))

    # httptools callbacks

    def _framed(self) -> bool:
        """True when the answer's end is in the stream (Content-Length, chunked, or no body)."""
        # 204 and 304 never carry a body (RFC 9110): their end is the end of the headers
        headers = Headers(self._received)
        return (
            self._parser.get_status_code() in (204, 304)
            or "content-length" in headers
            or "chunked" in headers.get("transfer-encoding", "")
        )

    def on_message_complete(self) -> None:
        waiter = self._waiter
        if waiter is None:
            return
        status = self._parser.get_status_code()
        if status < 200:  # an interim answer (100 Continue): the real one follows
            del self._body[:]  # (``Headers`` skips its head)
            return
        # llhttp keeps a connection alive only when the answer's end was in the stream (an
        # answer that ends with the connection completes in connection_lost, closed anyway)
        keep = self._parser.should_keep_alive()
        content = b"".join(self._body)
        headers = Headers(self._received)
        # neither gzip's nor zlib's first byte can be "{" or "[": a JSON body skips the lookup
        if content and content[0] not in _JSON_START:
            encoding = headers.get("content-encoding", "")
            if encoding in ("gzip", "deflate"):  # not asked for, but decode it if a proxy does
                try:
                    content = zlib.decompress(content, 47 if encoding == "gzip" else 15)
                except zlib.error as exc:
                    self._fail(_httpx().RemoteProtocolError(f"bad {encoding} body: {exc}"))
                    return
        self._waiter = None
        self._pool._settle(self, keep)
        try:
            waiter.set_result(Response(status, headers, content))
        except asyncio.InvalidStateError:  # its caller was cancelled: the answer came whole,
            pass  # the connection is in step and stays (``abandon`` finds nothing to drop)

    # our side

    def send(
        self, data: bytes, loop: asyncio.AbstractEventLoop, now: float
    ) -> asyncio.Future[Response]:
        """Write one request at loop time ``now``; the future resolves with its answer, or
        fails with httpx's ``ReadTimeout`` when the pool finds it unanswered at its deadline."""
        assert self.transport is not None and self.usable
        pool = self._pool
        self.usable = False
        self.sent_at = now
        self.deadline = deadline = now + pool.timeout
        waiter = self._waiter = loop.create_future()
        self._received = []
        del self._body[:]  # (cleared, not replaced: ``on_body`` is its append)
        pool._waiting[self] = True
        if deadline < pool._timer_at:
            pool._arm(loop, deadline)
        self.transport.write(data)
        return waiter

    def expire(self) -> None:
        """The deadline passed with no answer: the request fails with ``ReadTimeout``."""
        seconds = self._pool.timeout
        error = _httpx().ReadTimeout(f"no answer within {seconds}s")
        error.__cause__ = TimeoutError()  # as raised from the deadline before
        self._fail(error)

    def abandon(self) -> None:
        """The caller stopped waiting (cancelled): the stream is out of step, drop it."""
        self._waiter = None
        self.close()
        self._pool._settle(self, keep=False)

    def close(self) -> None:
        """Close the connection; it is never reused."""
        self.usable = self.connected = False
        if self.transport is not None:
            self.transport.close()

    def _fail(self, exc: Exception) -> None:
        """The request fails with ``exc``; the connection is dropped."""
        waiter = self._waiter
        if waiter is None:
            return
        self.abandon()
        if not waiter.done():
            waiter.set_exception(exc)


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
        self._fixed = header_block({"Host": netloc, **headers})
        self._idle: list[_Connection] = []
        self._max_idle = max_idle
        self._expiry = keepalive_expiry_s
        # connection slots (a request in flight, or a connection opening, holds one): a count
        # and the callers waiting for one, first come first served (an asyncio.Semaphore's
        # acquire is a coroutine per request)
        self._free = max_connections
        self._queue: deque[asyncio.Future[None]] = deque()
        self._closed = False
        # the requests awaiting an answer (a dict, not a set: no method call per request), and
        # one timer at the earliest of their deadlines: not a timer per request (created,
        # pushed on the loop's heap, then cancelled; three requests per answered message), one
        # per timeout period under a steady load
        self._waiting: dict[_Connection, bool] = {}
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

    def send(
        self,
        method: str,
        url: str,
        params: QueryParams | None = None,
        body: bytes | None = None,
        head: str = "",
    ) -> Awaitable[Response]:
        """Send one request and return its whole answer to await.

        ``url`` is relative to the base path (``target``); ``head`` is the request's own header
        lines (``header_block``). The answer is the connection's future when an idle
        connection takes the request at once (the common case: no coroutine in between), else
        a coroutine that waits for a slot or connects first. A caller whose wait ends early
        (cancelled) passes the awaitable to :meth:`abandon`.
        """
        if self._closed:
            raise RuntimeError("the HTTP client is closed")
        # "/path" with no query (most calls): the target is the prefix and the path
        target = self._prefix + url[1:]
        if params or url[:1] != "/" or url[1:2] == "/" or not _PLAIN_PATH.fullmatch(target):
            target = self.target(url, params)
        if body is not None or method in _BODY_METHODS:
            head += f"Content-Length: {len(body)}\r\n" if body else "Content-Length: 0\r\n"
        data = f"{method} {target} HTTP/1.1\r\n{self._fixed}{head}\r\n".encode("latin-1")
        if body:
            data += body
        if self._free and not self._queue:
            loop = asyncio.get_running_loop()
            now = loop.time()
            idle = self._idle
            while idle:
                conn = idle.pop()
                if conn.usable and now - conn.sent_at < self._expiry:
                    self._free -= 1
                    return conn.send(data, loop, now)
                conn.close()
        return self._send_later(data)

    def abandon(self, answer: Awaitable[Response]) -> None:
        """The caller stopped awaiting ``answer`` (from :meth:`send`) before it came."""
        for conn in self._waiting:
            if conn._waiter is answer:
                conn.abandon()
                return

    async def _send_later(self, data: bytes) -> Response:
        """``send`` once a slot is free and a connection is open (an idle one, or a new one)."""
        await self._acquire()
        try:
            conn = self._idle_connection() or await self._open()
        except BaseException:
            self._release()
            raise
        loop = asyncio.get_running_loop()
        answer = conn.send(data, loop, loop.time())
        try:
            return await answer
        except BaseException:  # cancelled mid-request: the stream is out of step
            self.abandon(answer)
            raise

    async def _acquire(self) -> None:
        """Take a connection slot, waiting in line while all are held."""
        if self._free and not self._queue:
            self._free -= 1
            return
        waiter = asyncio.get_running_loop().create_future()
        self._queue.append(waiter)
        try:
            await waiter
        except BaseException:
            if waiter.done() and not waiter.cancelled():  # handed a slot, then cancelled
                self._release()
            raise

    def _release(self) -> None:
        """Give a slot back: to the first caller in line, else to the count."""
        queue = self._queue
        while queue:
            waiter = queue.popleft()
            if not waiter.done():  # a caller cancelled in line is skipped
                waiter.set_result(None)
                return
        self._free += 1

    def _settle(self, conn: _Connection, keep: bool) -> None:
        """The request on ``conn`` ended: its slot is free, and the connection waits for the
        next request when ``keep`` (the answer left it in step) and there is room."""
        del self._waiting[conn]
        if keep and conn.connected and not self._closed and len(self._idle) < self._max_idle:
            conn.usable = True
            self._idle.append(conn)
        else:
            conn.close()
        if self._queue:
            self._release()
        else:
            self._free += 1

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
            conn.expire()
        if self._waiting:
            self._arm(loop, min(c.deadline for c in self._waiting))

    def _idle_connection(self) -> _Connection | None:
        """An idle connection that is still good (closing those that are not), or None."""
        now = asyncio.get_running_loop().time()
        while self._idle:
            conn = self._idle.pop()
            if conn.usable and now - conn.sent_at < self._expiry:
                return conn
            conn.close()
        return None

    async def _open(self) -> _Connection:
        """A new connection."""
        loop = asyncio.get_running_loop()
        try:
            async with asyncio.timeout(self.connect_timeout):
                _, conn = await loop.create_connection(
                    lambda: _Connection(self),
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


def header_block(headers: Mapping[str, str]) -> str:
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
