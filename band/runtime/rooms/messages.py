"""Platform message rows as ``PlatformMessage`` values and the facts the runtime reads off them."""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from typing import NamedTuple

import msgspec

from band.core.types import PlatformMessage
from band.core.wire import JsonObject, JsonValue, MessageRow, decode_as, parse_instant

__all__ = ["Inbound", "delivery_status", "inbound", "parse_time", "platform_message"]

log = logging.getLogger("band.runtime.rooms.messages")


class Inbound(NamedTuple):
    """A message for a room's worker: the typed row its decisions read, and the dict as it
    arrived (a validated push or a REST row), which is what adapters and preprocessors get."""

    row: MessageRow
    raw: JsonObject
    #: when a push brought it (``time.monotonic``), for its turn's trace; None when served
    received: float | None = None


def inbound(raw: JsonValue, received: float | None = None) -> Inbound | None:
    """``raw`` as an ``Inbound`` (``received``: when a push brought it); None (logged) when
    it is no message row."""
    if not isinstance(raw, dict):
        return None
    try:
        return Inbound(decode_as(MessageRow, raw), raw, received)
    except msgspec.ValidationError as exc:
        log.warning("dropping a malformed message row: %s", exc)
        return None


def parse_time(value: object) -> datetime:
    """An ISO 8601 timestamp (``Z`` accepted); now when missing or unreadable."""
    return parse_instant(value) or datetime.now(UTC)


def platform_message(row: JsonObject, room_id: str) -> PlatformMessage:
    """The adapter's view of one message row (push payload or REST row)."""
    return PlatformMessage(
        id=str(row["id"]),
        room_id=str(row.get("chat_room_id") or room_id),
        content=str(row.get("content") or ""),
        sender_id=str(row.get("sender_id") or ""),
        sender_type=str(row.get("sender_type") or ""),
        sender_name=row.get("sender_name"),
        message_type=str(row.get("message_type") or "text"),
        metadata=row.get("metadata") or {},
        created_at=parse_time(row.get("inserted_at")),
    )


def delivery_status(row: MessageRow, agent_id: str) -> str | None:
    """This agent's delivery status recorded on the row (``processed``, ``failed``...)."""
    # read once per message: indexing, not a call per level (the platform's rows have every
    # level; a missing one or one that is not a mapping is a KeyError or TypeError)
    try:
        status = row.metadata["delivery_status"][agent_id]["status"]  # type: ignore[index]
    except (KeyError, TypeError):
        return None
    return status if type(status) is str else None
