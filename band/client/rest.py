"""Band's REST API over pooled keep-alive connections: auth, envelopes, retries, typed errors."""

from __future__ import annotations

import asyncio
import logging
import random
import re
import sys
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeAlias, TypeVar
from urllib.parse import quote

import msgspec

from band._version import __version__
from band.config.env import DEFAULT_REST_URL as DEFAULT_REST_URL  # the client default, re-exported
from band.config.env import env_flag
from band.core import wire

# band-sdk exposes the typed results of the tools here (band_rest's); ours are band.core.wire's
from band.core.wire import (  # noqa: F401 -- re-exported at band-sdk's import path
    AddAgentContactResponseData,
    AgentContact,
    AgentMemory,
    Board,
    ChatParticipant,
    EventCreatedResponse,
    GetChatTaskHistoryResponse,
    GetChatTaskHistoryResponseMetadata,
    JsonObject,
    JsonValue,
    ListAgentContactRequestsResponse,
    ListAgentContactRequestsResponseData,
    ListAgentContactRequestsResponseMetadata,
    ListAgentContactRequestsResponseMetadataReceived,
    ListAgentContactRequestsResponseMetadataSent,
    ListAgentContactsResponse,
    ListAgentContactsResponseMetadata,
    ListAgentMemoriesResponse,
    ListAgentMemoriesResponseMeta,
    ListAgentPeersResponse,
    ListAgentPeersResponseMetadata,
    ListChatTasksResponse,
    ListChatTasksResponseMetadata,
    MessageSentResponse,
    MessageSentResponseRecipientsItem,
    Peer,
    ReceivedContactRequest,
    RemoveAgentContactResponseData,
    RespondToAgentContactRequestResponseData,
    SentContactRequest,
    Task,
    TaskActor,
)

from . import http11
from .errors import (  # noqa: F401 -- band-sdk re-exports these here; ours are the same classes
    BandAPIError,
    BandConnectionError,
    BandTimeoutError,
    NotFoundError,
    UnauthorizedError,
    UnprocessableEntityError,
    api_error,
)

# band-sdk's request options and closer, at its import path
from .generated import DEFAULT_REQUEST_OPTIONS as DEFAULT_REQUEST_OPTIONS
from .generated import NO_RETRY_REQUEST_OPTIONS as NO_RETRY_REQUEST_OPTIONS
from .generated import aclose_rest_client as aclose_rest_client
from .generated import adopted, band_rest_name, is_band_rest_client
from .http11 import Primitive, QueryParams
from .urls import rest_url_problem

if TYPE_CHECKING:
    import httpx

log = logging.getLogger("band.client.rest")


def __getattr__(name: str) -> Any:
    """band-sdk's names here that only band_rest defines (AsyncRestClient, its request
    models, ...), imported on first use from the [rest] extra."""
    return band_rest_name(__name__, name)


DEFAULT_TIMEOUT_S = 60.0
DEFAULT_MAX_RETRIES = 3
#: Retrying these can only help: the platform did not act, or asked us to come back later.
RETRYABLE_STATUS = frozenset({408, 429, 500, 502, 503, 504})
IDEMPOTENT_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "PUT", "DELETE"})
#: Methods the lean client sends; anything else (HEAD, OPTIONS) goes through httpx.
_LEAN_METHODS = frozenset({"GET", "POST", "PUT", "PATCH", "DELETE"})
#: A flag (``env_flag``, e.g. 1): every call goes through httpx (to compare, or for its hooks).
FORCE_HTTPX_ENV = "BAND_REST_HTTPX"
_encode_json = msgspec.json.Encoder().encode
#: The header line of a JSON body (a call without headers of its own: most calls).
_JSON_HEAD = "Content-Type: application/json\r\n"
_decode_json = wire.decode_json


def transient(exc: BaseException) -> bool:
    """Whether ``exc`` means the platform is unavailable for now (unreachable, 5xx, 429): a
    later attempt may succeed."""
    if isinstance(exc, BandConnectionError):
        return True
    return isinstance(exc, BandAPIError) and exc.status_code in RETRYABLE_STATUS


M = TypeVar("M", bound=wire.WireModel)


#: An answer from either HTTP stack (both have status_code, headers and content).
_Answer: TypeAlias = "http11.Response | httpx.Response"


#: An id that ``quote(id, safe="")`` returns unchanged (a UUID, a handle); not ``.`` or ``..``.
_PLAIN_ID = re.compile(r"[A-Za-z0-9_~-][A-Za-z0-9_.~-]*")
#: Plain ids joined by "/" (which no plain id holds): all of a path's ids checked at once.
_PLAIN_IDS = re.compile(r"[A-Za-z0-9_~-][A-Za-z0-9_.~-]*(?:/[A-Za-z0-9_~-][A-Za-z0-9_.~-]*)*")


def _segment(value: str) -> str:
    """``value`` percent-encoded as one path segment (no ``/`` or ``..`` escape)."""
    return value if _PLAIN_ID.fullmatch(value) else quote(value, safe="")


def path(template: str, *ids: str) -> str:
    """Fill ``{}`` slots of a path template with percent-encoded IDs (no ``/`` or ``..`` escape)."""
    try:
        joined = "/".join(ids)
    except TypeError:  # an id that is not a str: each one by its text
        return template.format(*[_segment(str(i)) for i in ids])
    # most ids need no escape (UUIDs, handles): one check for all, not a call per id
    if _PLAIN_IDS.fullmatch(joined):
        return template.format(*ids)
    return template.format(*[_segment(i) for i in ids])


def next_cursor(meta: Mapping[str, object], seen: set[str]) -> str | None:
    """The cursor to ask for after a page with pagination ``meta``; None when there is none.

    The cursor rule of every paged listing (``RestClient.pages``, band.testing's person
    client): ``has_more: false`` ends it, a ``next_cursor`` is followed, and a cursor already
    followed (``seen``, updated here) ends it: a server repeating itself would loop forever.
    """
    cursor = meta.get("next_cursor")
    if meta.get("has_more") is False or not cursor:
        return None
    cursor = str(cursor)
    if cursor in seen:
        log.warning("a listing repeated its cursor %r; stopping there", cursor)
        return None
    seen.add(cursor)
    return cursor


@dataclass(slots=True)
class RestResponse:
    """A successful answer: status, the decoded body and its ``data`` member."""

    status_code: int
    body: JsonValue = None  # bytes or text when the answer is no JSON
    headers: Mapping[str, str] = field(default_factory=dict)

    @property
    def data(self) -> JsonValue:
        """The envelope's ``data`` (the whole body when it is not enveloped; None on 204)."""
        if isinstance(self.body, dict) and "data" in self.body:
            return self.body["data"]
        return self.body

    def data_as(self, model: type[M]) -> M | None:
        """``data`` decoded as ``model`` (None when there is no object: 204, an empty body).

        Raises ``msgspec.ValidationError`` naming the field when a value has the wrong type.
        """
        data = self.data
        return wire.decode_as(model, data) if isinstance(data, dict) else None

    def rows_as(self, model: type[M]) -> list[M]:
        """``data`` as a list of ``model`` (empty when ``data`` is not a list)."""
        data = self.data
        return wire.decode_rows(model, data) if isinstance(data, list) else []

    @property
    def paging(self) -> wire.Paging:
        """The pagination object, typed (every field None when there is none)."""
        return wire.decode_as(wire.Paging, self.metadata)

    @property
    def metadata(self) -> JsonObject:
        """The pagination object (``metadata`` or ``meta``), empty when absent."""
        if isinstance(self.body, dict):
            meta = self.body.get("metadata") or self.body.get("meta")
            if isinstance(meta, dict):
                return meta
        return {}


class RestClient:
    """One API key, one connection pool; every call goes through :meth:`request`.

    Plain calls go through a lean keep-alive HTTP/1.1 client (:mod:`band.client.http11`);
    httpx carries the rest: a custom ``transport``, a proxy from the environment, multipart
    uploads, or every call when ``BAND_REST_HTTPX=1``.
    """

    def __init__(
        self,
        api_key: str,
        base_url: str = DEFAULT_REST_URL,
        *,
        timeout: float = DEFAULT_TIMEOUT_S,
        max_retries: int = DEFAULT_MAX_RETRIES,
        backoff_base_s: float = 0.5,
        backoff_max_s: float = 8.0,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        if not api_key:
            raise ValueError("api_key must be a non-empty string")
        problem = rest_url_problem(base_url)
        if problem is not None:  # before: "not an http(s) URL" of base_url + "/api/v1", later
            raise ValueError(f"base_url {base_url!r} {problem}")
        self.base_url = base_url.rstrip("/")
        self.max_retries = max_retries
        self.backoff_base_s = backoff_base_s
        self.backoff_max_s = backoff_max_s
        headers = {"X-API-Key": api_key, "User-Agent": f"band-open-sdk/{__version__}"}
        self._headers = headers
        self._timeout = timeout
        self._transport = transport
        self._closed = False
        #: the httpx client, made on its first call (none when the lean client carries them all)
        self._httpx: httpx.AsyncClient | None = None
        self._lean: http11.Http11Pool | None = None
        if (
            transport is None
            and http11.available()
            and not env_flag(FORCE_HTTPX_ENV)
            and not http11.uses_proxy(self.base_url)
        ):
            self._lean = http11.Http11Pool(
                f"{self.base_url}/api/v1",
                headers,
                timeout=timeout,
                connect_timeout=min(timeout, 10.0),
            )
        else:
            self._http  # noqa: B018 -- made now: a bad transport or proxy fails here, as before

    def __repr__(self) -> str:  # the key never appears here
        return f"RestClient(base_url={self.base_url!r})"

    async def __aenter__(self) -> RestClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    @property
    def _http(self) -> httpx.AsyncClient:
        """The httpx client (imported and made on first use: most agents never need it)."""
        if self._httpx is None:
            if self._closed:  # what httpx says when its closed client is asked
                raise RuntimeError("Cannot send a request, as the client has been closed.")
            import httpx

            self._httpx = httpx.AsyncClient(
                base_url=f"{self.base_url}/api/v1",
                headers=self._headers,
                timeout=httpx.Timeout(self._timeout, connect=min(self._timeout, 10.0)),
                limits=httpx.Limits(max_connections=100, max_keepalive_connections=20),
                transport=self._transport,
            )
        return self._httpx

    async def aclose(self) -> None:
        """Close the connection pools."""
        self._closed = True
        if self._lean is not None:
            await self._lean.aclose()
        if self._httpx is not None:
            await self._httpx.aclose()

    @property
    def closed(self) -> bool:
        """True once :meth:`aclose` ran."""
        return self._closed

    @property
    def timeout(self) -> float:
        """Seconds a call may wait for its answer."""
        return self._timeout

    @timeout.setter
    def timeout(self, seconds: float) -> None:
        self._timeout = seconds
        if self._httpx is not None:
            import httpx

            self._httpx.timeout = httpx.Timeout(seconds, connect=min(seconds, 10.0))
        if self._lean is not None:
            self._lean.timeout = seconds
            self._lean.connect_timeout = min(seconds, 10.0)

    async def request(
        self,
        method: str,
        url: str,
        *,
        params: QueryParams | None = None,
        json: JsonValue = None,
        content: bytes | None = None,
        files: Mapping[str, tuple[str, bytes] | tuple[str, bytes, str]] | None = None,
        headers: Mapping[str, str] | None = None,
        retries: int | None = None,
        raw: bool = False,
    ) -> RestResponse:
        """Send one call (``url`` is relative to ``/api/v1``) and decode its envelope.

        ``retries`` defaults to ``max_retries`` for idempotent methods and 0 for POST/PATCH;
        pass it explicitly for a POST that is safe to repeat. ``raw`` keeps a successful body
        as the bytes received (a downloaded file is never decoded as JSON). Raises a
        ``BandAPIError`` subclass for error statuses and ``BandConnectionError`` when the
        platform is unreachable.
        """
        if method not in _LEAN_METHODS:  # (those are upper-case already: no call for them)
            method = method.upper()
        if retries is None:
            retries = self.max_retries if method in IDEMPOTENT_METHODS else 0
        query = {k: v for k, v in params.items() if v is not None} if params else None
        lean = self._lean
        if lean is not None:
            # slices, not ``startswith``: the check runs on every call
            absolute = url[:7] == "http://" or url[:8] == "https://"
            if files is not None or method not in _LEAN_METHODS or absolute:
                lean = None
            else:  # the body and the call's own header lines, once for every attempt
                payload, head = content, ""
                if json is not None and content is None:
                    payload = _encode_json(json)
                    head = _JSON_HEAD
                    if headers:
                        head = http11.header_block({"Content-Type": "application/json", **headers})
                elif headers:
                    head = http11.header_block(headers)
        attempt = 0
        while True:
            try:
                resp: _Answer
                if lean is not None:
                    # the pool's future itself, awaited here: one coroutine per call end to end
                    answer = lean.send(method, url, query, payload, head)
                    try:
                        resp = await answer
                    except BaseException:  # cancelled mid-request: the pool drops the connection
                        lean.abandon(answer)
                        raise
                else:
                    resp = await self._http.request(
                        method,
                        url,
                        params=query,
                        json=json,
                        content=content,
                        files=files,
                        headers=headers,
                    )
            except Exception as exc:
                failure = _transport_failure(exc)
                if failure is None:
                    raise
                if attempt >= retries:
                    # a timed-out POST may have been applied: only idempotent calls repeat
                    if failure == "timeout":
                        raise BandTimeoutError(f"{method} {url} timed out") from exc
                    raise BandConnectionError(f"{method} {url} failed: {exc}") from exc
                delay = self._backoff(attempt, None)
            else:
                if lean is None:  # the lean client awaits its own future: a cancel is never lost
                    _reraise_swallowed_cancel()
                if resp.status_code < 400:
                    body = bytes(resp.content or b"") if raw else _decode(resp)
                    return RestResponse(resp.status_code, body, resp.headers)
                if resp.status_code not in RETRYABLE_STATUS or attempt >= retries:
                    raise api_error(resp.status_code, _decode(resp), dict(resp.headers))
                delay = self._backoff(attempt, resp)
            attempt += 1
            log.debug("retrying %s %s in %.2fs (attempt %d)", method, url, delay, attempt + 1)
            await asyncio.sleep(delay)

    async def pages(
        self, url: str, params: QueryParams | None = None, *, max_pages: int | None = None
    ) -> AsyncIterator[RestResponse]:
        """Every page of a listing, first to last (GET ``url`` with ``params`` on each).

        One stop rule for both kinds of paging: ``has_more: false`` ends it; a ``next_cursor``
        is asked for next (cursor paging; one seen before ends it, see ``next_cursor``); else,
        on an offset page (its metadata names its ``page``), the next page is asked for while
        ``has_more`` is true or, without it, until ``total_count`` rows were read. An empty
        page ends it too, and so does ``max_pages`` pages read.
        """
        query: dict[str, Primitive | Sequence[Primitive]] = dict(params or {})
        page, read, fetched, seen = 1, 0, 0, set[str]()
        while True:
            resp = await self.request("GET", url, params=query)
            yield resp
            fetched += 1
            if max_pages is not None and fetched >= max_pages:
                return
            meta, rows = resp.metadata, resp.data
            more, total = meta.get("has_more"), meta.get("total_count")
            if more is False or not isinstance(rows, list) or not rows:
                return
            if meta.get("next_cursor"):
                cursor = next_cursor(meta, seen)
                if cursor is None:  # followed before: the server repeats itself
                    return
                query["cursor"] = cursor
                continue
            read += len(rows)
            if "page" not in meta or (
                more is None and (not isinstance(total, int) or read >= total)
            ):
                return
            page += 1
            query["page"] = page

    def retry_delay(self, attempt: int, error: BaseException | None = None) -> float:
        """Seconds before retry ``attempt`` (0-based) after ``error``: the platform's
        ``Retry-After`` when it sent one, else the client's exponential backoff with jitter."""
        if isinstance(error, BandAPIError):
            headers = {k.lower(): v for k, v in error.headers.items()}
            body = _encode_json(error.body) if isinstance(error.body, dict) else b""
            hinted = _retry_after(http11.Response(error.status_code, headers, body))
            if hinted is not None:
                return min(hinted, 60.0)
        return self._backoff(attempt, None)

    def _backoff(self, attempt: int, resp: _Answer | None) -> float:
        """Honour Retry-After / retry-after-ms, else exponential backoff with full jitter."""
        if resp is not None:
            hinted = _retry_after(resp)
            if hinted is not None:
                return min(hinted, 60.0)
        ceiling = min(self.backoff_max_s, self.backoff_base_s * (2**attempt))
        return random.uniform(ceiling / 2, ceiling)


def _transport_failure(exc: Exception) -> str | None:
    """``"timeout"`` for httpx's ``TimeoutException``, ``"transport"`` for its other
    ``TransportError``s (both stacks raise them), None for anything else."""
    httpx = sys.modules.get("httpx")
    if httpx is None:  # never imported: ``exc`` cannot be one of its exceptions
        return None
    if isinstance(exc, httpx.TimeoutException):
        return "timeout"
    if isinstance(exc, httpx.TransportError):
        return "transport"
    return None


def _reraise_swallowed_cancel() -> None:
    """Raise CancelledError when a cancel reached the task but the HTTP stack absorbed it.

    On a request that completes just as it is cancelled, httpcore can return the response
    and drop the CancelledError; the caller would then run on as if never cancelled (a
    worker that never stops). ``Task.cancelling()`` still counts the request, so honour it.
    """
    task = asyncio.current_task()
    if task is not None and task.cancelling():
        raise asyncio.CancelledError


def _retry_after(resp: _Answer) -> float | None:
    """Seconds the platform asked us to wait, from headers or the error body."""
    ms = resp.headers.get("retry-after-ms")
    secs = resp.headers.get("retry-after")
    try:
        if ms is not None:
            return max(0.0, float(ms) / 1000)
        if secs is not None:
            return max(0.0, float(secs))
    except ValueError:
        pass
    error = wire.decode_error(resp.content)
    if error is not None and error.retry_after is not None:
        return max(0.0, error.retry_after)
    return None


def _decode(resp: _Answer) -> JsonValue:
    """JSON body when there is one; raw bytes for other content; None when empty."""
    content = resp.content
    if not content:
        return None
    # the body's first byte first: the lean client decodes headers only when they are read
    if content[:1] in (b"{", b"[") or "json" in resp.headers.get("content-type", ""):
        try:
            return _decode_json(content)
        except msgspec.DecodeError:
            return content.decode("utf-8", errors="replace")
    return content


def adopt_rest_client(client: Any) -> Any:
    """Our RestClient for band_rest's ``AsyncRestClient`` (same API key, base URL and timeout),
    so code written for band-sdk can hand its client to AgentTools; anything else as given."""
    if not is_band_rest_client(client):
        return client
    ours = adopted.get(client)
    if ours is None:
        wrapper = client._client_wrapper
        timeout = wrapper.get_timeout()
        ours = RestClient(
            api_key=wrapper.api_key,
            base_url=wrapper.get_base_url(),
            timeout=float(timeout) if isinstance(timeout, int | float) else DEFAULT_TIMEOUT_S,
        )
        adopted[client] = ours
    return ours
