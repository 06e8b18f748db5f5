"""The tool errors, defined in ``band.core.exceptions`` (band-sdk's path); an alias module."""

from __future__ import annotations

from band.core.exceptions import (
    BandToolError,
    InvalidToolArgumentsError,
    MessagePostError,
    MessagePostKind,
    RoomExecutionStoppedError,
)

__all__ = [
    "BandToolError",
    "InvalidToolArgumentsError",
    "MessagePostError",
    "MessagePostKind",
    "RoomExecutionStoppedError",
]
