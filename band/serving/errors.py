"""The Band API's error envelope, ``{"error": {code, message, request_id?, details?}}``, built in
one place for every local server (band dev's answers, the body limit, the guarded protocol)."""

from __future__ import annotations

import json
from typing import Any

from starlette.responses import JSONResponse


def error_body(
    code: str,
    message: str,
    *,
    details: dict[str, Any] | None = None,
    request_id: str | None = None,
) -> dict[str, Any]:
    """The envelope as a dict: ``request_id`` and ``details`` only when given."""
    err: dict[str, Any] = {"code": code, "message": message}
    if request_id is not None:
        err["request_id"] = request_id
    if details:
        err["details"] = details
    return {"error": err}


def error_bytes(code: str, message: str, **extra: Any) -> bytes:
    """The envelope as JSON bytes (for a protocol writing a response by hand)."""
    return json.dumps(error_body(code, message, **extra), separators=(",", ":")).encode()


def error_response(status: int, code: str, message: str, **extra: Any) -> JSONResponse:
    """The envelope as a Starlette response with ``status``."""
    return JSONResponse(error_body(code, message, **extra), status_code=status)
