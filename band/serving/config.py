"""A ``uvicorn.Config`` with the limits applied at the protocol level."""

from __future__ import annotations

from typing import Any

import uvicorn

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
    return uvicorn.Config(
        Drain(app),
        http=guarded_protocol(limits, http=http),
        h11_max_incomplete_event_size=limits.max_header,
        ws_max_size=limits.max_ws_message,
        backlog=limits.backlog,
        **uvicorn_kw,
    )
