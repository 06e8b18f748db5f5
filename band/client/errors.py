"""Typed errors for Band's REST API, built from its error envelope."""

from __future__ import annotations

# the two bases are the SDK's (band.core.exceptions); the client's errors build on them
from band.core.exceptions import BandConnectionError as BandConnectionError
from band.core.exceptions import BandError as BandError
from band.core.wire import JsonObject, JsonValue


class BandTimeoutError(BandConnectionError):
    """A request to the platform timed out."""


class BandAPIError(BandError):
    """The platform answered with an error status and (usually) an error envelope."""

    status_code: int = 0

    def __init__(
        self,
        status_code: int,
        code: str,
        message: str,
        *,
        request_id: str | None = None,
        details: JsonObject | None = None,
        body: JsonValue = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        self.status_code = status_code
        self.code = code
        self.message = message
        self.request_id = request_id
        self.details = details or {}
        self.body = body
        self.headers = headers or {}
        super().__init__(f"status_code: {status_code}, code: {code}, message: {message}")


class BadRequestError(BandAPIError):
    """400: the request was malformed."""


class UnauthorizedError(BandAPIError):
    """401: the API key is missing or wrong."""


class ForbiddenError(BandAPIError):
    """403: the key may not do this (or the room's execution is stopped)."""


class NotFoundError(BandAPIError):
    """404: no such resource, or not visible to this key."""


class ConflictError(BandAPIError):
    """409: the request conflicts with the resource's state."""


class PayloadTooLargeError(BandAPIError):
    """413: the request body is too large."""


class RangeNotSatisfiableError(BandAPIError):
    """416: the requested byte range is not available."""


class UnprocessableEntityError(BandAPIError):
    """422: validation failed; ``details`` maps fields or JSON pointers to reasons."""


class RateLimitError(BandAPIError):
    """429: too many requests; ``retry_after`` is in seconds when the platform said."""


class ServiceUnavailableError(BandAPIError):
    """503: the platform is temporarily unavailable."""


class ServerError(BandAPIError):
    """Any other 5xx answer."""


_BY_STATUS: dict[int, type[BandAPIError]] = {
    400: BadRequestError,
    401: UnauthorizedError,
    403: ForbiddenError,
    404: NotFoundError,
    409: ConflictError,
    413: PayloadTooLargeError,
    416: RangeNotSatisfiableError,
    422: UnprocessableEntityError,
    429: RateLimitError,
    503: ServiceUnavailableError,
}


def api_error(
    status_code: int, body: JsonValue, headers: dict[str, str] | None = None
) -> BandAPIError:
    """Build the typed error for ``status_code`` from a decoded error body."""
    err = body.get("error") if isinstance(body, dict) else None
    if not isinstance(err, dict):
        err = {}
    code = err.get("code")
    message = err.get("message")
    details = err.get("details")
    cls = _BY_STATUS.get(status_code) or (ServerError if status_code >= 500 else BandAPIError)
    return cls(
        status_code,
        code if isinstance(code, str) else "http_error",
        message if isinstance(message, str) else (str(body) if body else f"HTTP {status_code}"),
        request_id=err.get("request_id") if isinstance(err.get("request_id"), str) else None,
        details=details if isinstance(details, dict) else None,
        body=body,
        headers=headers,
    )
