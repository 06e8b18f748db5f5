"""Clean stops: a request still open when a server stops is answered 503 (or its stream ended)
after a short grace, before uvicorn's graceful-shutdown timeout would cancel it and log
``Exception in ASGI application`` at ERROR."""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import Callable

import uvicorn
from starlette.types import ASGIApp, Receive, Scope, Send

from .cycle import watch
from .errors import error_response

#: seconds an open request has to finish once its server stops (below every graceful timeout)
DRAIN_GRACE_S = 2.0


class Drain:
    """ASGI wrapper that ends the HTTP requests still open ``grace`` seconds after ``close()``.

    A request arriving after ``close()`` is answered 503. One still open when the grace ends is
    cancelled here and answered 503 if it had not started its response, else its body is ended;
    either way it returns normally, so uvicorn has nothing to cancel or log.
    """

    def __init__(self, app: ASGIApp, grace: float = DRAIN_GRACE_S) -> None:
        self.app = app
        self.grace = grace
        self.stopping = False
        #: a trusted proxy's ``X-Forwarded-For``/``-Proto`` applied (``guarded_config`` sets
        #: uvicorn's own middleware here, called only for a request carrying one of them)
        self.forwarded: ASGIApp | None = None
        #: request task -> whether its response started
        self._open: dict[asyncio.Task[object], Callable[[], bool]] = {}
        self._ended: set[asyncio.Task[object]] = set()

    def close(self) -> None:
        """The server stops: refuse new requests, end the open ones after the grace."""
        if not self.stopping:
            self.stopping = True
            asyncio.get_running_loop().call_later(self.grace, self._end_open)

    def _end_open(self) -> None:
        for task in list(self._open):
            self._ended.add(task)
            task.cancel("the server is stopping")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Serve the request, tracked so that a stop can end it cleanly."""
        kind = scope["type"]
        if self.forwarded is not None and kind != "lifespan":
            for name, _ in scope["headers"]:
                if name == b"x-forwarded-for" or name == b"x-forwarded-proto":
                    await self.forwarded(scope, receive, send)  # rewrites client and scheme
                    break
        if kind != "http":
            await self.app(scope, receive, send)
            return
        if self.stopping:
            await _unavailable()(scope, receive, send)
            return
        task = asyncio.current_task()
        assert task is not None
        send, started = watch(send)
        self._open[task] = started
        try:
            await self.app(scope, receive, send)
        except BaseException:
            if task not in self._ended:
                raise
            with contextlib.suppress(Exception):  # the client may be gone already
                if started():
                    await send({"type": "http.response.body", "body": b"", "more_body": False})
                else:
                    await _unavailable()(scope, receive, send)
        finally:
            self._open.pop(task, None)
            self._ended.discard(task)


def _unavailable() -> ASGIApp:
    response = error_response(503, "service_unavailable", "the server is stopping; retry later")
    response.headers["connection"] = "close"
    return response


class GracefulServer(uvicorn.Server):
    """``uvicorn.Server`` that drains its app (a :class:`Drain`, as ``guarded_config`` gives it)
    before uvicorn's own shutdown waits for the open connections."""

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        """Start draining, then shut down as uvicorn does."""
        app = self.config.app
        if isinstance(app, Drain):
            app.close()
        await super().shutdown(sockets=sockets)
