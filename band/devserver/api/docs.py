"""``GET /openapi.json``: the OpenAPI document of the app's routes (``contract.openapi``)."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from band.core.wire import JsonObject

from ..contract.openapi import build
from .operations import Operation, declare


async def openapi_json(request: Request) -> Response:
    """GET /openapi.json (this document)."""
    return JSONResponse(build(list(request.app.routes)))


routes = declare(
    Operation(
        "GET", "/openapi.json", openapi_json, rule=None, answer=(200, JsonObject), form="bare"
    ),
)
