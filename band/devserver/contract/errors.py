"""band dev's error answers: the Band error envelope (``band.serving.errors``), each with a fresh
``request_id``, and the one way an unexpected exception is logged and answered 500."""

from __future__ import annotations

import logging
import uuid
from typing import Any

from starlette.responses import JSONResponse

from band.serving.errors import error_response as envelope

log = logging.getLogger(__name__)


def error_response(
    status: int,
    code: str,
    message: str,
    details: dict[str, Any] | None = None,
    request_id: str | None = None,
) -> JSONResponse:
    """The documented error envelope, with ``request_id`` (a fresh one when not given)."""
    rid = request_id or str(uuid.uuid4())
    return envelope(status, code, message, details=details, request_id=rid)


def server_error(path: str, exc: BaseException) -> JSONResponse:
    """Log an unexpected exception with a fresh request id and answer 500 with that id."""
    request_id = str(uuid.uuid4())
    log.error("unhandled error in %s (request_id %s)", path, request_id, exc_info=exc)
    return error_response(500, "internal_error", "internal server error", request_id=request_id)
