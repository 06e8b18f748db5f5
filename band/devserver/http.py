"""REST plumbing: auth, envelopes, error shape, body and pagination parsing."""

from __future__ import annotations

import json
import logging
import math
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from . import authz
from .contracts import Principal
from .hub import AsyncStore, Hub
from .store import StoreError

log = logging.getLogger(__name__)

#: Builds a response item from a row and whether its entity is online.
Shape = Callable[[dict[str, Any], bool], dict[str, Any]]


def error_response(
    status: int, code: str, message: str, details: dict[str, Any] | None = None
) -> JSONResponse:
    """Build the documented error envelope."""
    err: dict[str, Any] = {"code": code, "message": message, "request_id": str(uuid.uuid4())}
    if details:
        err["details"] = details
    return JSONResponse({"error": err}, status_code=status)


class Ctx:
    """Per-request context handed to handlers."""

    def __init__(self, request: Request, principal: Principal) -> None:
        self.request = request
        self.principal = principal
        self.db: AsyncStore = request.app.state.directory
        self.hub: Hub = request.app.state.hub
        self.params = request.path_params

    async def body(self, wrapper: str | None = None) -> dict[str, Any]:
        """Parse the JSON object body, unwrapping ``{wrapper: {...}}`` when given."""
        raw = await self.request.body()
        try:
            data = json.loads(raw or b"{}")
        except ValueError:
            raise StoreError(400, "bad_request", "request body is not valid JSON") from None
        if not isinstance(data, dict):
            raise StoreError(422, "validation_error", "body must be a JSON object")
        if wrapper is not None:
            data = data.get(wrapper)
            if not isinstance(data, dict):
                raise StoreError(
                    422,
                    "validation_error",
                    f"missing '{wrapper}' object",
                    {wrapper: ["is required and must be an object"]},
                )
        return data

    def int_q(self, name: str, default: int | None, lo: int = 1, hi: int = 10**9) -> int | None:
        """Read an integer query parameter (422 when malformed or out of range)."""
        raw = self.request.query_params.get(name)
        if raw is None or raw == "":
            return default
        try:
            value = int(raw)
        except ValueError:
            raise StoreError(
                422, "validation_error", f"{name} must be an integer", {name: ["is invalid"]}
            ) from None
        if not lo <= value <= hi:
            raise StoreError(
                422, "validation_error", f"{name} out of range", {name: [f"must be {lo}..{hi}"]}
            )
        return value

    def page(self) -> tuple[int, int]:
        """Offset pagination parameters (page, page_size)."""
        return self.int_q("page", 1) or 1, self.int_q("page_size", 20, 1, 100) or 20


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
    ctx: Ctx, rows: list[dict[str, Any]], page: int, page_size: int, shape: Shape
) -> JSONResponse:
    """Envelope one offset page of ``rows``, each as ``shape(row, online)``, with its metadata."""
    chunk = page_slice(rows, page, page_size)
    return data(
        [shape(r, ctx.hub.online(r["id"])) for r in chunk],
        metadata=offset_meta(page, page_size, len(rows)),
    )


def cursor_meta(items: list[dict[str, Any]], has_more: bool, limit: int) -> dict[str, Any]:
    """Cursor pagination metadata (the cursor is the last row's sequence number)."""
    nxt = str(items[-1]["_seq"]) if has_more and items else None
    return {"has_more": has_more, "limit": limit, "next_cursor": nxt}


def data(payload: Any, status: int = 200, **extra: Any) -> JSONResponse:
    """Build the success envelope."""
    return JSONResponse({"data": payload, **extra}, status_code=status)


Handler = Callable[[Ctx], Awaitable[Response]]


def endpoint(kind: str) -> Callable[[Handler], Callable[[Request], Awaitable[Response]]]:
    """Wrap a handler with authorization (``authz.authorize`` for ``kind`` 'agent' or 'user')
    and error mapping."""

    def wrap(fn: Handler) -> Callable[[Request], Awaitable[Response]]:
        async def view(request: Request) -> Response:
            try:
                # the one authorization point: key, then the route's rule (authz.POLICY)
                principal = await authz.authorize(request, kind)
                return await fn(Ctx(request, principal))
            except StoreError as exc:
                return error_response(exc.status, exc.code, exc.message, exc.details)
            except Exception:
                log.exception("unhandled error in %s", request.url.path)
                return error_response(500, "internal_error", "internal server error")

        view.__name__ = fn.__name__
        view.__doc__ = fn.__doc__
        return view

    return wrap


def require_str(body: dict[str, Any], name: str, *, blank_ok: bool = False) -> str:
    """Return a required string field (422 when missing or blank)."""
    value = body.get(name)
    if not isinstance(value, str) or (not blank_ok and not value.strip()):
        raise StoreError(422, "validation_error", f"{name} can't be blank", {name: ["is invalid"]})
    return value


def opt_str(body: dict[str, Any], name: str) -> str | None:
    """Return an optional string field (422 when present but not a string)."""
    value = body.get(name)
    if value is not None and not isinstance(value, str):
        raise StoreError(422, "validation_error", f"{name} must be a string", {name: ["invalid"]})
    return value
