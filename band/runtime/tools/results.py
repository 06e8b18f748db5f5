"""A tool's return value as the plain data, or the text, an adapter hands to its model."""

from __future__ import annotations

import base64
import datetime as dt
import enum
import json
from typing import Any, Literal, TypedDict

from pydantic import BaseModel

from band.core.wire import WireModel

__all__ = [
    "ParticipantAddResult",
    "ParticipantAddStatus",
    "ParticipantRemoveResult",
    "serialize_tool_result",
    "tool_result_text",
]


class ParticipantAddStatus(enum.StrEnum):
    """What ``band_add_participant`` did: added the participant, or found them in the room."""

    ADDED = "added"
    ALREADY_IN_ROOM = "already_in_room"


class ParticipantAddResult(TypedDict):
    """``band_add_participant``'s result; ``status`` is a ``ParticipantAddStatus`` value."""

    id: str
    name: str
    role: str
    status: str


class ParticipantRemoveResult(TypedDict):
    """``band_remove_participant``'s result."""

    id: str
    name: str
    status: Literal["removed"]


def _plain(value: Any) -> Any:
    """``value`` with models as dicts, bytes as padded URL-safe base64, dates as ISO strings."""
    if isinstance(value, BaseModel | WireModel):
        return _plain(value.model_dump())
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [_plain(item) for item in value]
    if isinstance(value, bytes | bytearray):
        return base64.urlsafe_b64encode(value).decode("ascii")
    if isinstance(value, dt.date | dt.time):
        return value.isoformat()
    return value


def serialize_tool_result(result: Any) -> Any:
    """A model (or each model of a list) as JSON-ready dicts; any other value unchanged."""
    if isinstance(result, BaseModel | WireModel):
        return _plain(result)
    if isinstance(result, list):
        return [serialize_tool_result(item) for item in result]
    return result


def _default(value: Any) -> Any:
    plain = _plain(value)
    if plain is value:  # nothing we know how to turn into JSON
        raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")
    return plain


def tool_result_text(result: Any) -> str:
    """A string result as is; anything else as JSON (models, bytes and dates converted)."""
    if isinstance(result, str):
        return result
    return json.dumps(result, default=_default)
