"""The socket's refusals at band-sdk's ``band.client.streaming`` path: the upgrade error and
the disconnect reason."""

from __future__ import annotations

import json
from dataclasses import dataclass

from band.client.phoenix import PhoenixError
from band.core.wire import JsonObject, JsonValue

from .wire import SupersedeFields

__all__ = ["CONNECTION_CONFLICT", "WebSocketDisconnectReason", "WebSocketUpgradeError"]

#: The upgrade refusal code of a second connection under ``on_conflict=reject``.
CONNECTION_CONFLICT = "connection_conflict"
#: The HTTP statuses the platform refuses an upgrade with, with an error envelope.
_UPGRADE_STATUSES = frozenset({400, 409, 429, 503})


@dataclass(frozen=True)
class WebSocketDisconnectReason(SupersedeFields):
    """Why the platform ended the agent's socket for good (a supersede's fields), and whether
    and when a reconnect may help."""

    dead_reason: str | None = None
    stale_reason: str | None = None


class WebSocketUpgradeError(PhoenixError):
    """The platform refused the socket's HTTP upgrade (400, 409, 429 or 503 with an error
    envelope); ``retry_after`` in seconds when it said."""

    def __init__(
        self,
        *,
        status_code: int,
        code: str | None = None,
        message: str | None = None,
        request_id: str | None = None,
        retry_after: int | None = None,
    ) -> None:
        self.status_code = status_code
        self.code = code
        self.message = message or f"the socket upgrade was refused with HTTP {status_code}"
        self.request_id = request_id
        self.retry_after = retry_after
        super().__init__(self.message)

    @property
    def is_connection_conflict(self) -> bool:
        """True when another connection of the agent holds the socket (``on_conflict=reject``)."""
        return self.code == CONNECTION_CONFLICT

    @classmethod
    def from_exception(cls, exc: Exception) -> WebSocketUpgradeError | None:
        """The refusal a websockets handshake error carries, or None when it is no refusal
        with an error envelope (another status, no HTTP response)."""
        response = getattr(exc, "response", None)
        status = getattr(response, "status_code", None)
        if not isinstance(status, int) or status not in _UPGRADE_STATUSES:
            return None
        error = _error_object(getattr(response, "body", b"") or b"")
        retry_after = _seconds(error.get("retry_after"))
        headers = getattr(response, "headers", None)
        if retry_after is None and status == 429 and headers is not None:
            retry_after = _seconds(headers.get("Retry-After"))
        return cls(
            status_code=status,
            code=_text(error.get("code")),
            message=_text(error.get("message")),
            request_id=_text(error.get("request_id")),
            retry_after=retry_after,
        )


def _error_object(body: bytes) -> JsonObject:
    """The ``error`` object of an upgrade refusal's JSON body ({} when there is none)."""
    try:
        decoded = json.loads(body)
    except ValueError:
        return {}
    error = decoded.get("error") if isinstance(decoded, dict) else None
    return error if isinstance(error, dict) else {}


def _text(value: JsonValue) -> str | None:
    return value if isinstance(value, str) else None


def _seconds(value: JsonValue) -> int | None:
    """Whole seconds from a number or a numeric string; None otherwise."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return max(0, int(value))
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    return None
