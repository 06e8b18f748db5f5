"""``message(...)``: a ``PlatformMessage`` for a unit test of ``on_message``, in one line."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from datetime import UTC, datetime

from band.core.types import PlatformMessage
from band.core.wire import JsonValue

__all__ = ["message"]

_ids = itertools.count(1)


def message(
    content: str = "hello",
    *,
    sender: str = "Local Person",
    sender_id: str = "person-1",
    sender_type: str = "User",
    room_id: str = "room-1",
    mentions: Sequence[str] = (),
    message_type: str = "text",
    metadata: JsonValue = None,
    id: str | None = None,
    created_at: datetime | None = None,
) -> PlatformMessage:
    """A message as the runtime hands it to ``on_message``: ``content`` from ``sender``.

    ``mentions`` are participant ids, written before the text as the platform writes them
    (``@[[id]] hello``); every other field has a plain default (a new ``id`` each call).
    """
    tokens = "".join(f"@[[{pid}]] " for pid in mentions)
    return PlatformMessage(
        id=id or f"message-{next(_ids)}",
        room_id=room_id,
        content=tokens + content,
        sender_id=sender_id,
        sender_type=sender_type,
        sender_name=sender,
        message_type=message_type,
        metadata=metadata if metadata is not None else {},
        created_at=created_at or datetime.now(UTC),
    )
