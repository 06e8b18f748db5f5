"""Whether a turn's reply already reached the room, for a message about to run again.

A reply the platform wrote whose answer was lost (the connection dropped or timed out after the
write) leaves the turn looking cut off, so its message is replayed; running it again would
answer twice. The replay first looks in the room's ``/context`` for what that turn posted.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from band.client.rest import RestClient, path

__all__ = ["MAX_CONTEXT_PAGES", "reply_landed"]

#: Pages of ``/context`` (100 rows each) read past the message before giving up.
MAX_CONTEXT_PAGES = 20


def _is_post(row: Any, agent_id: str, contents: Collection[str]) -> bool:
    """Whether ``row`` is the agent's text message carrying one of ``contents``."""
    if not isinstance(row, dict) or row.get("sender_id") != agent_id:
        return False
    if row.get("message_type", "text") != "text":
        return False
    text = str(row.get("content") or "")
    # the platform may put mention tokens around the text the agent sent
    return any(sent.strip() and sent.strip() in text for sent in contents)


async def reply_landed(
    rest: RestClient, room_id: str, agent_id: str, message_id: str, contents: Collection[str]
) -> bool:
    """Whether one of ``contents`` is in the room as the agent's message after ``message_id``."""
    if not contents:
        return False
    cursor: str | None = None
    after = False  # past ``message_id`` in the listing (oldest first)
    for _ in range(MAX_CONTEXT_PAGES):
        params: dict[str, Any] = {"limit": 100}
        if cursor:
            params["cursor"] = cursor
        resp = await rest.request("GET", path("/agent/chats/{}/context", room_id), params=params)
        for row in resp.data if isinstance(resp.data, list) else []:
            if isinstance(row, dict) and row.get("id") == message_id:
                after = True
            elif after and _is_post(row, agent_id, contents):
                return True
        meta = resp.metadata
        cursor = str(meta.get("next_cursor") or "") if meta.get("has_more") else None
        if not cursor:
            return False
    return False
