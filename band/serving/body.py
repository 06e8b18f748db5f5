"""An ASGI middleware that bounds request bodies while reading them."""

from __future__ import annotations

from collections.abc import Callable

from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .errors import error_response


def payload_too_large(limit: int) -> Response:
    """The default 413: the error envelope of the Band API."""
    return error_response(413, "payload_too_large", f"request body larger than {limit} bytes")


class BodyLimit:
    """Read each HTTP request body (declared length or chunked) up to a limit before the app runs.

    A body over the limit is answered 413 as soon as the limit is passed (at once when the
    declared ``Content-Length`` says so) and the connection closed, so no more of it is read;
    the app never sees it. The app then gets the whole body in one message.
    """

    def __init__(
        self,
        app: ASGIApp,
        max_body: int,
        *,
        limit_for: Callable[[Scope], int] | None = None,
        too_large: Callable[[int], Response] = payload_too_large,
    ) -> None:
        self.app = app
        self.max_body = max_body
        self.limit_for = limit_for
        self.too_large = too_large

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Buffer the body within the limit, then call the app; 413 beyond it."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.limit_for(scope) if self.limit_for else self.max_body
        declared = _content_length(scope)
        if declared is not None and declared > limit:
            await self._refuse(scope, receive, send, limit)
            return
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":  # the client went away: nobody to answer
                return
            chunk: bytes = message.get("body", b"")
            size += len(chunk)
            if size > limit:
                await self._refuse(scope, receive, send, limit)
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        body = chunks[0] if len(chunks) == 1 else b"".join(chunks)
        pending: list[Message] = [{"type": "http.request", "body": body, "more_body": False}]

        async def replay() -> Message:
            return pending.pop() if pending else await receive()

        await self.app(scope, replay, send)

    async def _refuse(self, scope: Scope, receive: Receive, send: Send, limit: int) -> None:
        response = self.too_large(limit)
        # close after answering: the rest of the body is never read
        response.headers["connection"] = "close"
        await response(scope, receive, send)


def _content_length(scope: Scope) -> int | None:
    for name, value in scope["headers"]:
        if name == b"content-length":
            text = value.decode("latin-1").strip()
            return int(text) if text.isdigit() else None
    return None
