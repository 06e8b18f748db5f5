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


def inbound(raw: JsonValue) -> Inbound | None:
    """``raw`` as an ``Inbound``; None (logged) when it is no message row."""
    if not isinstance(raw, dict):
        return None
    try:
        return Inbound(decode_as(MessageRow, raw), raw)
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
    statuses = row.metadata.get("delivery_status") if row.metadata is not None else None
    mine = statuses.get(agent_id) if isinstance(statuses, dict) else None
    status = mine.get("status") if isinstance(mine, dict) else None
    return status if isinstance(status, str) else None
