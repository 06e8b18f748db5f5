"""Client transport: Band's REST API and its Phoenix Channels WebSocket."""

from .errors import (
    BadRequestError,
    BandAPIError,
    BandConnectionError,
    BandError,
    BandTimeoutError,
    ConflictError,
    ForbiddenError,
    NotFoundError,
    PayloadTooLargeError,
    RangeNotSatisfiableError,
    RateLimitError,
    ServerError,
    ServiceUnavailableError,
    UnauthorizedError,
    UnprocessableEntityError,
)
from .rest import DEFAULT_REST_URL, RestClient, RestResponse, path

__all__ = [
    "DEFAULT_REST_URL",
    "BadRequestError",
    "BandAPIError",
    "BandConnectionError",
    "BandError",
    "BandTimeoutError",
    "ConflictError",
    "ForbiddenError",
    "NotFoundError",
    "PayloadTooLargeError",
    "RangeNotSatisfiableError",
    "RateLimitError",
    "RestClient",
    "RestResponse",
    "ServerError",
    "ServiceUnavailableError",
    "UnauthorizedError",
    "UnprocessableEntityError",
    "path",
]
