"""The agent's posts as a room's ``/context`` lists them, read after a given message.

A post whose answer was lost (the connection dropped after the platform wrote it) is looked
for here: by the tools before they send again (``band.runtime.tools.landing``) and by the
delivery pipeline before a message runs again (``band.runtime.rooms.answered``).
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Collection

from band.client.rest import RestClient, path
from band.core.wire import MessageRow

__all__ = ["MAX_CONTEXT_PAGES", "count_posts", "is_post_of", "rows_after", "sent_text"]

#: Pages of ``/context`` (100 rows each) read past the message before giving up.
MAX_CONTEXT_PAGES = 20

#: The ``@[[<id>]] `` tokens the platform prepends to a message's content, one per mention.
_MENTION_TOKENS = re.compile(r"^(?:@\[\[[^\]]*\]\]\s*)+")


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


async def rows_after(rest: RestClient, room_id: str, message_id: str) -> AsyncIterator[MessageRow]:
    """The room's ``/context`` rows after ``message_id``, oldest first (none if it is not there)."""
    after = False
    url = path("/agent/chats/{}/context", room_id)
    async for resp in rest.pages(url, {"limit": 100}, max_pages=MAX_CONTEXT_PAGES):
        for row in resp.rows_as(MessageRow):
            if after:
                yield row
            elif row.id == message_id:
                after = True


def _same_content(row: MessageRow, content: str) -> bool:
    stored = row.content or ""
    return stored.strip() == content.strip() or sent_text(stored) == content.strip()


async def count_posts(
    rest: RestClient,
    room_id: str,
    agent_id: str,
    message_id: str,
    content: str,
    message_type: str = "text",
) -> tuple[int, str | None]:
    """How many of the agent's ``message_type`` rows with exactly ``content`` follow
    ``message_id``, and the id of the last one."""
    count, last = 0, None
    async for row in rows_after(rest, room_id, message_id):
        if (
            row.sender_id == agent_id
            and (row.message_type or "text") == message_type
            and _same_content(row, content)
        ):
            count, last = count + 1, row.id
    return count, last
