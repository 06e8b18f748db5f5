"""REST plumbing: auth, validated input, envelopes, error shape and pagination."""

from __future__ import annotations

import logging
import math
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import msgspec
from pydantic import BaseModel
from starlette.requests import Request
from starlette.responses import Response

from band.serving.responses import JSONBytes

from ..access import authz
from ..contract.errors import error_response, server_error
from ..contract.inputs import Accepts, NoQuery, declared, empty_query, parse_body, parse_query
from ..socket.fanout import Fanout
from ..store.aio import AsyncStore
from ..store.db import Store, StoreError
from ..store.principal import Principal
from ..store.rows import Entity, MessageRecord, RoomRow

log = logging.getLogger(__name__)

#: A row naming a person or an agent (its ``id`` says whether it is online).
E = TypeVar("E", bound=Entity)


M = TypeVar("M", bound=BaseModel)


class Ctx:
    """Per-request context handed to handlers, with the route's validated input."""

    def __init__(
        self,
        request: Request,
        principal: Principal,
        body: BaseModel | None = None,
        query: BaseModel | None = None,
    ) -> None:
        self.request = request
        self.principal = principal
        self.db: AsyncStore = request.app.state.directory
        self.fanout: Fanout = request.app.state.fanout
        self.params = request.path_params
        self._body, self._query = body, query

    def body(self, model: type[M]) -> M:
        """The validated body (the route's declaration must name ``model`` as its body)."""
        if not isinstance(self._body, model):
            raise TypeError(f"handler did not declare body {model.__name__}")
        return self._body

    def query(self, model: type[M]) -> M:
        """The validated query (the route's declaration must name ``model`` as its query)."""
        if not isinstance(self._query, model):
            raise TypeError(f"handler did not declare query {model.__name__}")
        return self._query

    async def member_room(self, rid: str | None = None) -> RoomRow:
        """Room ``rid`` (the path's ``chat_id`` by default), or the store's 404 when the caller
        does not take part in it."""
        room_id = self.params["chat_id"] if rid is None else rid
        room: RoomRow = await self.db.run(Store.member_room, room_id, self.principal.id)
        return room


def offset_meta(page: int, page_size: int, total: int) -> dict[str, int]:
    """Offset pagination metadata."""
    return {
        "page": page,
        "page_size": page_size,
        "total_count": total,
        "total_pages": math.ceil(total / page_size) if total else 0,
    }


def page_slice(rows: list[Any], page: int, page_size: int) -> list[Any]:
    """Return the rows of one offset page (1-based)."""
    return rows[(page - 1) * page_size : page * page_size]


def offset_page(
    ctx: Ctx, rows: list[E], page: int, page_size: int, shape: Callable[[E, bool], object]
) -> Response:
    """Envelope one offset page of ``rows``, each as ``shape(row, online)``, with its metadata."""
    chunk = page_slice(rows, page, page_size)
    return data(
        [shape(r, ctx.fanout.online(r.id)) for r in chunk],
        metadata=offset_meta(page, page_size, len(rows)),
    )


def cursor_meta(items: list[MessageRecord], has_more: bool, limit: int) -> dict[str, Any]:
    """Cursor pagination metadata (the cursor is the last message's sequence number)."""
    nxt = str(items[-1].seq) if has_more and items else None
    return {"has_more": has_more, "limit": limit, "next_cursor": nxt}


def data(payload: Any, status: int = 200, **extra: Any) -> Response:
    """Build the success envelope (dicts and wire Structs alike, encoded by msgspec)."""
    return JSONBytes(msgspec.json.encode({"data": payload, **extra}), status)


Handler = Callable[[Ctx], Awaitable[Response]]


def named(handler: Handler, name: str, doc: str) -> Handler:
    """``handler`` under ``name``, with ``doc`` as its docstring."""
    # the endpoint wrapper copies both; the docstring is the route's OpenAPI summary
    handler.__name__, handler.__doc__ = name, doc
    return handler


def bound(call: Callable[..., Awaitable[Response]], name: str, doc: str, *args: Any) -> Handler:
    """A handler answering with ``call(ctx, *args)``: one route of a family that differ in
    ``args`` only."""

    async def handler(ctx: Ctx) -> Response:
        return await call(ctx, *args)

    return named(handler, name, doc)


def endpoint(
    kind: str, accepts: Accepts | None = None, rule: str | None = None
) -> Callable[[Handler], Callable[[Request], Awaitable[Response]]]:
    """Wrap a handler with authorization (``authz.authorize`` for ``kind`` 'agent' or 'user',
    with the ``rule`` its declaration entered in ``authz.POLICY``, else the one found there),
    input validation (the ``accepts`` its declaration gives) and error mapping."""

    def wrap(fn: Handler) -> Callable[[Request], Awaitable[Response]]:
        spec = accepts or declared(fn)
        query_model = spec.query or NoQuery

        async def view(request: Request) -> Response:
            try:
                # the one authorization point: key, then the route's rule (authz.POLICY)
                principal = await authz.authorize(request, kind, rule)
                # a route that declares no query takes none: any parameter is a 422
                if request.scope["query_string"]:
                    query = parse_query(query_model, request.query_params)
                else:  # no query string: no parameters to parse, the model's defaults
                    query = empty_query(query_model)
                body = parse_body(spec.body, await request.body()) if spec.body else None
                return await fn(Ctx(request, principal, body, query))
            except StoreError as exc:
                return error_response(exc.status, exc.code, exc.message, exc.details)
            except Exception as exc:
                return server_error(request.url.path, exc)

        view.__name__ = fn.__name__
        view.__doc__ = fn.__doc__
        view.__band_accepts__ = spec  # type: ignore[attr-defined]
        return view

    return wrap
