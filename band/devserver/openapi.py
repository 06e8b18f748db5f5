"""OpenAPI 3.1 description of the local platform, generated from the app's route table.

``GET /openapi.json`` walks ``request.app.routes`` at request time, so every REST route
(including ones other modules add later) is listed. Summaries come from the first line of
each handler's docstring; auth is inferred from the path prefix (agent vs human API).
"""

from __future__ import annotations

import re
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Mount, Route, WebSocketRoute

TITLE = "Band local platform"
VERSION = "0.1.0"
_PARAM = re.compile(r"{([^}:]+)(?::[^}]*)?}")
_ERROR = {"$ref": "#/components/responses/Error"}


def _walk(routes: list[BaseRoute], prefix: str = "") -> list[tuple[str, str, Any]]:
    """Return (path, method, endpoint) for every HTTP route (HEAD omitted)."""
    out: list[tuple[str, str, Any]] = []
    for route in routes:
        if isinstance(route, Mount):
            out += _walk(list(route.routes), prefix + route.path)
        elif isinstance(route, Route):
            for method in sorted(route.methods or ()):
                if method != "HEAD":
                    out.append((prefix + route.path, method, route.endpoint))
    return out


def _security(path: str) -> list[dict[str, list[str]]]:
    if path.startswith("/api/v1/agent"):
        return [{"AgentKey": []}]
    if path.startswith("/api/v1/me"):
        return [{"UserKey": []}]
    return []


def _operation(path: str, method: str, fn: Any) -> dict[str, Any]:
    doc = (getattr(fn, "__doc__", None) or "").strip()
    summary = doc.splitlines()[0] if doc else f"{method} {path}"
    slug = re.sub(r"[^A-Za-z0-9]+", "_", _PARAM.sub(r"by_\1", path)).strip("_")
    tag = (
        "agent"
        if path.startswith("/api/v1/agent")
        else "human"
        if path.startswith("/api/v1/me")
        else "meta"
    )
    op: dict[str, Any] = {
        "operationId": f"{method.lower()}_{slug or 'root'}",
        "summary": summary,
        "tags": [tag],
        "parameters": [
            {"name": p, "in": "path", "required": True, "schema": {"type": "string"}}
            for p in _PARAM.findall(path)
        ],
        "responses": {"2XX": {"description": "success envelope {data, ...}"}, "4XX": _ERROR},
    }
    if method in ("POST", "PUT", "PATCH"):
        op["requestBody"] = {
            "required": False,
            "content": {"application/json": {"schema": {"type": "object"}}},
        }
    sec = _security(path)
    if sec:
        op["security"] = sec
    return op


def build(routes: list[BaseRoute]) -> dict[str, Any]:
    """Build the OpenAPI document for ``routes``."""
    paths: dict[str, dict[str, Any]] = {}
    for path, method, fn in _walk(routes):
        paths.setdefault(_PARAM.sub(r"{\1}", path), {})[method.lower()] = _operation(
            path, method, fn
        )
    sockets = [r.path for r in routes if isinstance(r, WebSocketRoute)]
    return {
        "openapi": "3.1.0",
        "info": {"title": TITLE, "version": VERSION},
        "paths": dict(sorted(paths.items())),
        "components": {
            "securitySchemes": {
                "AgentKey": {"type": "apiKey", "in": "header", "name": "X-API-Key"},
                "UserKey": {"type": "apiKey", "in": "header", "name": "X-API-Key"},
            },
            "responses": {
                "Error": {
                    "description": "error envelope",
                    "content": {
                        "application/json": {"schema": {"$ref": "#/components/schemas/Error"}}
                    },
                }
            },
            "schemas": {
                "Error": {
                    "type": "object",
                    "required": ["error"],
                    "properties": {
                        "error": {
                            "type": "object",
                            "required": ["code", "message", "request_id"],
                            "properties": {
                                "code": {"type": "string"},
                                "message": {"type": "string"},
                                "request_id": {"type": "string"},
                                "details": {"type": "object"},
                            },
                        }
                    },
                }
            },
        },
        "x-websockets": sockets,
    }


async def openapi_json(request: Request) -> Response:
    """GET /openapi.json (this document)."""
    return JSONResponse(build(list(request.app.routes)))


routes = [Route("/openapi.json", openapi_json, methods=["GET"])]
