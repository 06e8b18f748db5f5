"""The Starlette application of the local Band platform."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator
from pathlib import Path

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route, WebSocketRoute
from starlette.types import Scope

from band.serving import BodyLimit, Limits
from band.serving.direct import DirectStarlette
from band.serving.routing import IndexedRouter

from .access import authz
from .api import (
    agent,
    bulk,
    contacts,
    control,
    delegation,
    docs,
    files,
    human,
    memories,
    room_view,
    tasks,
    turns,
)
from .api.operations import operation_of
from .contract.answers import ANSWERS
from .contract.errors import error_response, server_error
from .logs import install_redaction
from .socket.channel import JoinLines, websocket_endpoint
from .socket.fanout import Fanout
from .store import files as store_files
from .store.aio import AsyncStore
from .store.db import Store
from .web.view import webui_routes

log = logging.getLogger(__name__)

#: what one client may make the platform hold (README "Limits"); bodies are bounded here, the
#: rest by the protocol ``band.serving.guarded_config`` gives uvicorn
LIMITS = Limits()
_CODES = {404: "not_found", 405: "method_not_allowed", 400: "bad_request"}


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    code = _CODES.get(exc.status_code, "error")
    return error_response(exc.status_code, code, str(exc.detail))


def _body_limit(scope: Scope) -> int:
    """A file upload may carry a whole file; every other body is JSON of at most ``max_body``."""
    if scope["method"] == "PUT" and files.is_upload(scope["path"]):
        return store_files.MAX_FILE_BYTES
    return LIMITS.max_body


def _too_large(limit: int) -> Response:
    return error_response(413, "payload_too_large", f"request body larger than {limit} bytes")


async def _server_error(request: Request, exc: Exception) -> Response:
    return server_error(request.url.path, exc)


#: the REST operations, each built from its one declaration (``api.operations``)
API: list[BaseRoute] = [
    *agent.routes,
    *human.routes,
    *tasks.routes,
    *files.routes,
    *docs.routes,
    *control.routes,
    *bulk.routes,
    *contacts.routes,
    *memories.routes,
    *turns.routes,
    *room_view.routes,
    *delegation.routes,
]


def check(routes: list[BaseRoute]) -> None:
    """Refuse routes not built from a complete declaration, or whose rule or answer is gone."""
    plain = [r for r in routes if isinstance(r, Route) and operation_of(r) is None]
    if plain:  # a route made by hand would skip the declaration's checks
        raise RuntimeError(f"routes not declared as operations: {[r.path for r in plain]}")
    ops = [f"{m} {r.path}" for r in routes if isinstance(r, Route) for m in sorted(r.methods or ())]
    missing = authz.undeclared(ops)
    if missing:  # every operation has a rule in the authorization model, or none runs
        raise RuntimeError(f"operations without an authorization rule: {missing}")
    unanswered = sorted(op for op in ops if op not in ANSWERS and not op.startswith("HEAD "))
    if unanswered:  # every operation declares what it answers (its OpenAPI response schemas)
        raise RuntimeError(f"operations without a declared answer: {unanswered}")


def create_app(
    db_path: str | Path = ":memory:",
    user_key: str | None = None,
    *,
    idle_timeout: float = 45.0,
) -> Starlette:
    """Build the app over the SQLite DB at ``db_path``; ``app.state.user_key`` is the local key.

    Sockets that send nothing (not even a heartbeat) for ``idle_timeout`` seconds are closed.
    """
    install_redaction()
    store = Store(db_path)
    user, key = store.ensure_local_user(user_key)
    directory = AsyncStore(store)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        yield
        directory.close()

    api = [*API, *webui_routes()]
    check(api)
    # a request to an operation reaches its handler through one layer doing what Starlette's
    # stack does (errors, the body limit, routing); everything else takes Starlette's stack
    app = DirectStarlette(
        routes=[
            *api,
            WebSocketRoute("/api/v1/socket/websocket", websocket_endpoint),
        ],
        exception_handlers={HTTPException: _http_error, Exception: _server_error},
        middleware=[
            Middleware(
                BodyLimit,
                max_body=LIMITS.max_body,
                limit_for=_body_limit,
                too_large=_too_large,
                body_timeout=LIMITS.body_timeout,
                min_body_rate=LIMITS.min_body_rate,
            )
        ],
        lifespan=lifespan,
    )
    # the same routes, tried by path shape instead of one by one (before the first request
    # builds the middleware stack around the router)
    app.router = IndexedRouter(app.router.routes, lifespan=lifespan)
    app.state.directory = directory
    app.state.fanout = Fanout()
    app.state.join_lines = JoinLines()
    app.state.user_key = key
    app.state.idle_timeout = idle_timeout
    app.state.sockets_per_key = LIMITS.max_sockets_per_key
    app.state.user_id = user.id
    return app
