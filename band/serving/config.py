"""A ``uvicorn.Config`` with the limits applied at the protocol level."""

from __future__ import annotations

from typing import Any, cast

import uvicorn
from starlette.types import ASGIApp, Receive, Scope, Send
from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

from .limits import Limits
from .logs import install_accept_filter
from .protocol import guarded_protocol
from .shutdown import Drain


def guarded_config(app: Any, limits: Limits | None = None, **uvicorn_kw: Any) -> uvicorn.Config:
    """``uvicorn.Config(app, **uvicorn_kw)`` with header time, header size, connection and
    WebSocket message limits (the body limit is the app's :class:`~band.serving.BodyLimit`); the
    app is wrapped in a :class:`~band.serving.shutdown.Drain`, which a
    :class:`~band.serving.GracefulServer` ends cleanly when it stops."""
    limits = limits or Limits()
    install_accept_filter()
    http = uvicorn_kw.pop("http", "auto")
    drain = Drain(app)
    config = uvicorn.Config(
        drain,
        http=guarded_protocol(limits, http=http),
        h11_max_incomplete_event_size=limits.max_header,
        ws_max_size=limits.max_ws_message,
        backlog=limits.backlog,
        **uvicorn_kw,
    )
    if config.proxy_headers:
        # uvicorn's own proxy-headers middleware, called by the drain only for a request that
        # carries a forwarded header instead of wrapping every request
        rewrite = ProxyHeadersMiddleware(cast(Any, _untouched), config.forwarded_allow_ips)
        drain.forwarded = cast(ASGIApp, rewrite)
        config.proxy_headers = False
    return config


async def _untouched(scope: Scope, receive: Receive, send: Send) -> None:
    """The app behind the forwarded headers' rewrite: nothing more to do."""
