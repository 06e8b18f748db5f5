"""A Starlette app whose HTTP requests reach their route's endpoint through one layer."""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException, WebSocketException
from starlette.middleware.exceptions import ExceptionMiddleware
from starlette.requests import Request
from starlette.routing import BaseRoute, Route, WebSocketRoute, request_response, websocket_session
from starlette.types import ASGIApp, Receive, Scope, Send
from starlette.websockets import WebSocket

from .body import BodyLimit, framing, replay
from .cycle import watch
from .routing import IndexedRouter

Handler = Callable[[Any, Exception], Any]
#: Starlette's error when an exception it has a handler for comes after the response started
_TOO_LATE = "Caught handled exception, but response already started."
Endpoint = Callable[[Any], Awaitable[Any]]


async def _endpoint_function(conn: Any) -> Any:  # pragma: no cover - never served
    raise NotImplementedError


#: the code of the ASGI apps ``request_response`` and ``websocket_session`` make of an endpoint
#: function: a route whose ``app`` runs one wraps nothing more around its endpoint (no route
#: middleware, no body limit)
_REQUEST_RESPONSE = getattr(request_response(_endpoint_function), "__code__", None)
_WEBSOCKET_SESSION = getattr(websocket_session(_endpoint_function), "__code__", None)


class DirectStarlette(Starlette):
    """``Starlette`` serving a request (or a WebSocket) to an endpoint function's route in one
    layer.

    Starlette's stack crosses, for every request, its 500 layer (``ServerErrorMiddleware``),
    the app's middleware, ``ExceptionMiddleware``, the router, the route and the route's own
    exception layer, three of them wrapping every message sent (one every message a WebSocket
    sends). An app whose one middleware is a :class:`~band.serving.BodyLimit`, whose router is
    an :class:`~band.serving.routing.IndexedRouter` and whose 500 handler is a coroutine
    function (not in debug mode) does the same in one coroutine and in the same order: the body
    read within its limits, the route's first full match, the endpoint's response sent, an
    exception answered by the handler its class or status has, any other by the 500 handler
    unless a response started, and raised again for the server to log. The lifespan, a 404,
    405 or redirect, an ASGI endpoint and any other app take Starlette's own stack.
    """

    def build_middleware_stack(self) -> ASGIApp:
        """Starlette's stack, behind the one layer when this app qualifies (see the class)."""
        stack = super().build_middleware_stack()
        error: Handler | None = None
        handlers: dict[Any, Handler] = {}
        for key, handler in self.exception_handlers.items():
            if key in (500, Exception):
                error = handler
            else:
                handlers[key] = handler
        # the app's middleware, as Starlette keeps them: (class, args, kwargs)
        middleware: list[Any] = list(self.user_middleware)
        limits = [m for m in middleware if m.cls is BodyLimit]
        if (
            self.debug
            or error is None
            or not _is_async(error)
            or len(limits) != len(middleware)
            or len(limits) > 1
            or getattr(self, "max_body_size", None) is not None
            or not isinstance(self.router, IndexedRouter)
        ):
            return stack
        inner = ExceptionMiddleware(self.router, handlers=handlers, debug=self.debug)
        body = None
        if limits:
            body = BodyLimit(inner, *limits[0].args, **limits[0].kwargs)
        return _Direct(stack, inner, self.router, body, error, handlers)


class _Direct:
    """The one layer (:class:`DirectStarlette`); ``stack`` is Starlette's own."""

    def __init__(
        self,
        stack: ASGIApp,
        inner: ExceptionMiddleware,
        router: IndexedRouter,
        body: BodyLimit | None,
        error: Handler,
        handlers: dict[Any, Handler],
    ) -> None:
        self.stack = stack
        self.inner = inner  # what the router answers itself (404, 405, redirects) goes through
        self.router = router
        self.body = body
        self.error = error
        # what ExceptionMiddleware puts in the scope: by class (its defaults, then the app's)
        # and by status
        by_class: dict[Any, Handler] = {
            HTTPException: inner.http_exception,
            WebSocketException: inner.websocket_exception,
        }
        by_status: dict[int, Handler] = {}
        for key, handler in handlers.items():
            if isinstance(key, int):
                by_status[key] = handler
            else:
                by_class[key] = handler
        self.handlers = (by_class, by_status)
        #: route id -> (the route, its endpoint when it is called here, else None)
        self._endpoints: dict[int, tuple[BaseRoute, Endpoint | None]] = {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Serve an HTTP request or a WebSocket; the lifespan goes to Starlette's stack."""
        kind = scope["type"]
        if kind == "websocket":
            await self._session(scope, receive, send)
            return
        if kind != "http":
            await self.stack(scope, receive, send)
            return
        send, started = watch(send)
        try:
            await self._serve(scope, receive, send, started)
        except Exception as exc:
            # ServerErrorMiddleware's part: the 500 answer, then raised for the server's log
            response = await self.error(Request(scope), exc)
            if not started():
                await response(scope, receive, send)
            raise

    async def _serve(
        self, scope: Scope, receive: Receive, send: Send, started: Callable[[], bool]
    ) -> None:
        body = None
        if self.body is not None:
            body = await self.body.read(scope, receive, send, *framing(scope))
            if body is None:  # answered 413 or 408, or the client went away
                return
            receive = replay(body, receive)
        endpoint = self._pick(scope)
        if endpoint is None:
            await self.inner(scope, receive, send)
            return
        request = _Request(scope, receive, send)
        # what a route's scope holds by now, read once instead of on every access
        request.app, request.method = scope["app"], scope["method"]
        request.path_params = scope["path_params"]
        if body is not None:
            # the body read above is the request's: ``body()`` returns it without a round
            # through ``receive`` (which still replays it to whoever asks)
            request._body = body
        try:
            response = await endpoint(request)
            await response(scope, receive, send)
        except Exception as exc:
            if started():  # raised only when a handler would answer it
                if self._handler(exc) is not None:
                    raise RuntimeError(_TOO_LATE) from exc
                raise
            await self._answer(exc, request, scope, receive, send)

    async def _session(self, scope: Scope, receive: Receive, send: Send) -> None:
        endpoint = self._pick(scope)
        if endpoint is None:
            await self.stack(scope, receive, send)
            return
        session = WebSocket(scope, receive=receive, send=send)
        try:
            await endpoint(session)
        except Exception as exc:
            await self._answer(exc, session, scope, receive, send)

    def _pick(self, scope: Scope) -> Endpoint | None:
        """The endpoint of the request's route when it is called here, its scope updated as
        the router and ``ExceptionMiddleware`` update it; None for Starlette's stack."""
        picked = self.router.pick(scope)
        if picked is None:
            return None
        route, child_scope = picked
        endpoint = self._endpoint(route)
        if endpoint is not None:
            scope["starlette.exception_handlers"] = self.handlers
            if "router" not in scope:
                scope["router"] = self.router
            scope["route"] = route
            scope.update(child_scope)
        return endpoint

    async def _answer(
        self, exc: Exception, conn: Any, scope: Scope, receive: Receive, send: Send
    ) -> None:
        """Answer ``exc`` with its handler (raised again when it has none)."""
        handler = self._handler(exc)
        if handler is None:
            raise exc
        if _is_async(handler):
            answer = await handler(conn, exc)
        else:
            answer = await run_in_threadpool(handler, conn, exc)
        if answer is not None:
            await answer(scope, receive, send)
        exc.__traceback__ = None  # a reused exception would pile up tracebacks

    def _endpoint(self, route: BaseRoute) -> Endpoint | None:
        """The endpoint function ``route`` runs with nothing around it, else None."""
        known = self._endpoints.get(id(route))
        if known is None or known[0] is not route:
            endpoint = None
            code = getattr(getattr(route, "app", None), "__code__", None)
            if type(route) is Route and code is _REQUEST_RESPONSE and _is_async(route.endpoint):
                endpoint = route.endpoint
            elif type(route) is WebSocketRoute and code is _WEBSOCKET_SESSION:
                endpoint = route.endpoint
            known = self._endpoints[id(route)] = (route, endpoint)
        return known[1]

    def _handler(self, exc: Exception) -> Handler | None:
        """The handler Starlette's exception layers would pick for ``exc``."""
        by_class, by_status = self.handlers
        if isinstance(exc, HTTPException) and exc.status_code in by_status:
            return by_status[exc.status_code]
        for cls in type(exc).__mro__:
            if cls in by_class:
                return by_class[cls]
        return None


class _Request(Request):
    """A ``Request`` whose ``app``, ``method`` and ``path_params`` are plain attributes, set
    from the route's complete scope when it is made (``Request`` reads the scope on every
    access: a handler asks for them several times)."""

    app: Any = None
    method: str = ""
    path_params: dict[str, Any] = {}  # noqa: RUF012 - always replaced per request


def _is_async(fn: object) -> bool:
    """Whether calling ``fn`` gives a coroutine (a coroutine function, or an object whose
    ``__call__`` is one)."""
    return inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(
        getattr(fn, "__call__", None)  # noqa: B004 - the method itself is what is inspected
    )
