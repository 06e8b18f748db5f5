"""An ASGI middleware that bounds request bodies while reading them: in size and in time."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import KW_ONLY, dataclass

from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .cycle import arrived
from .errors import error_response
from .limits import BODY_TIMEOUT, MIN_BODY_RATE


def payload_too_large(limit: int) -> Response:
    """The default 413: the error envelope of the Band API."""
    return error_response(413, "payload_too_large", f"request body larger than {limit} bytes")


def body_timed_out(timeout: float) -> Response:
    """The 408 of a body that did not arrive in time."""
    return error_response(408, "request_timeout", f"request body not received in {timeout:g}s")


@dataclass(slots=True, eq=False)
class BodyLimit:
    """Read each HTTP request body (declared length or chunked) up to a limit before the app runs.

    A body over the limit is answered 413 as soon as the limit is passed (at once when the
    declared ``Content-Length`` says so) and the connection closed, so no more of it is read;
    the app never sees it. A body still incomplete ``body_timeout`` seconds after the request
    began (plus a second for every ``min_body_rate`` bytes received, so a real upload at any
    usable speed finishes) is answered 408 and the connection closed: a client trickling its
    body holds neither a connection nor a buffer for longer. The app then gets the whole body
    in one message.
    """

    app: ASGIApp
    max_body: int
    _: KW_ONLY
    limit_for: Callable[[Scope], int] | None = None
    too_large: Callable[[int], Response] = payload_too_large
    body_timeout: float = BODY_TIMEOUT
    min_body_rate: int = MIN_BODY_RATE

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Buffer the body within the limit, then call the app; 413 beyond it."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        body = await self.read(scope, receive, send, *framing(scope))
        if body is not None:
            await self.app(scope, replay(body, receive), send)

    async def read(
        self, scope: Scope, receive: Receive, send: Send, declared: int | None, bodyless: bool
    ) -> bytes | None:
        """The request's whole body; None when it was refused here (413 or 408, answered and
        the connection closed) or the client went away. ``declared`` and ``bodyless`` are the
        request's framing (:func:`framing`)."""
        limit = self.limit_for(scope) if self.limit_for else self.max_body
        if declared is not None and declared > limit:
            await self._refuse(scope, receive, send, limit)
            return None
        chunks: list[bytes] = []
        size = 0
        started = None
        while True:
            try:
                # the server has the request's end (with its head, or read since): nothing to time
                if bodyless or arrived(receive):
                    message = await receive()
                else:
                    if started is None:  # the first wait: the body's time starts now
                        started = asyncio.get_running_loop().time()
                    deadline = started + self.body_timeout + size / self.min_body_rate
                    async with asyncio.timeout_at(deadline):
                        message = await receive()
            except TimeoutError:
                await self._close_with(scope, receive, send, body_timed_out(self.body_timeout))
                return None
            if message["type"] != "http.request":  # the client went away: nobody to answer
                return None
            chunk: bytes = message.get("body", b"")
            size += len(chunk)
            if size > limit:
                await self._refuse(scope, receive, send, limit)
                return None
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        return chunks[0] if len(chunks) == 1 else b"".join(chunks)

    async def _refuse(self, scope: Scope, receive: Receive, send: Send, limit: int) -> None:
        await self._close_with(scope, receive, send, self.too_large(limit))

    async def _close_with(
        self, scope: Scope, receive: Receive, send: Send, response: Response
    ) -> None:
        # close after answering: the rest of the body is never read
        response.headers["connection"] = "close"
        await response(scope, receive, send)


def replay(body: bytes, receive: Receive) -> Receive:
    """A ``receive`` giving the app the whole ``body`` in one message, then the server's."""
    pending: list[Message] = [{"type": "http.request", "body": body, "more_body": False}]

    async def replayed() -> Message:
        return pending.pop() if pending else await receive()

    return replayed


def framing(scope: Scope) -> tuple[int | None, bool]:
    """The request's declared ``Content-Length`` (its first; None when absent or not a number),
    and whether it has no body: no ``Transfer-Encoding``, and a length of 0 or none at all."""
    declared, has_length, chunked = None, False, False
    for name, value in scope["headers"]:
        if name == b"content-length" and not has_length:
            text = value.decode("latin-1").strip()
            declared = int(text) if text.isdigit() else None
            has_length = True
        elif name == b"transfer-encoding":
            chunked = True
    return declared, not chunked and (declared == 0 or not has_length)
