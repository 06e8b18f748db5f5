"""Whether a turn's reply already reached the room, for a message about to run again.

A reply the platform wrote whose answer was lost (the connection dropped or timed out after the
write) leaves the turn looking cut off, so its message is replayed; running it again would
answer twice. The replay first looks in the room's ``/context`` for what that turn posted.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from typing import Protocol, runtime_checkable

from band.client.rest import RestClient, path
from band.core.wire import MessageRow

__all__ = [
    "MAX_CONTEXT_PAGES",
    "PostRecord",
    "is_post_of",
    "posted_by",
    "reply_landed",
    "sent_text",
]

#: Pages of ``/context`` (100 rows each) read past the message before giving up.
MAX_CONTEXT_PAGES = 20

#: The ``@[[<id>]] `` tokens the platform prepends to a message's content, one per mention.
_MENTION_TOKENS = re.compile(r"^(?:@\[\[[^\]]*\]\]\s*)+")


@runtime_checkable
class PostRecord(Protocol):
    """Tools that keep the texts of the messages they posted (``AgentTools`` does)."""

    @property
    def posted(self) -> Sequence[str]:
        """Texts posted through these tools, answered or not."""
        ...


def posted_by(tools: object) -> list[str]:
    """What ``tools`` posted (nothing known for tools that keep no record)."""
    return list(tools.posted) if isinstance(tools, PostRecord) else []


def sent_text(stored: str) -> str:
    """The text an agent sent, from the content the platform stored (its mention tokens off)."""
    return _MENTION_TOKENS.sub("", stored).strip()


def is_post_of(row: MessageRow, agent_id: str, wanted: Collection[str]) -> bool:
    """Whether ``row`` is the agent's text message whose text is exactly one of ``wanted``."""
    if row.sender_id != agent_id or (row.message_type or "text") != "text":
        return False
    stored = row.content or ""
    # exact text, not containment: a later "ok, done" must not count as an earlier "ok"
    return stored.strip() in wanted or sent_text(stored) in wanted


async def reply_landed(
    rest: RestClient, room_id: str, agent_id: str, message_id: str, contents: Collection[str]
) -> bool:
    """Whether one of ``contents`` is in the room as the agent's message after ``message_id``."""
    wanted = {sent.strip() for sent in contents if sent.strip()}
    if not wanted:
        return False
    cursor: str | None = None
    after = False  # past ``message_id`` in the listing (oldest first)
    for _ in range(MAX_CONTEXT_PAGES):
        params: dict[str, int | str] = {"limit": 100}
        if cursor:
            params["cursor"] = cursor
        resp = await rest.request("GET", path("/agent/chats/{}/context", room_id), params=params)
        for row in resp.rows_as(MessageRow):
            if row.id == message_id:
                after = True
            elif after and is_post_of(row, agent_id, wanted):
                return True
        paging = resp.paging
        cursor = paging.next_cursor if paging.has_more else None
        if not cursor:
            return False
    return False
