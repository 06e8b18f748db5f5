"""The agent's posts as a room's ``/context`` lists them, read after a given message.

A post whose answer was lost (the connection dropped after the platform wrote it) is looked
for here: by the tools before they send again (``band.runtime.tools.landing``) and by the
delivery pipeline before a message runs again (``band.runtime.rooms.answered``).
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Collection

from band.client.rest import RestClient, path
from band.core.wire import MessageRow, parse_instant
from band.runtime.context_pages import pages_of

__all__ = ["CONTEXT_PAGE", "count_posts", "is_post_of", "rows_after", "sent_text"]

#: Rows asked for per page of ``/context`` (the endpoint's maximum).
CONTEXT_PAGE = 100

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


async def rows_after(
    rest: RestClient, room_id: str, message_id: str, sent_at: str | None = None
) -> AsyncIterator[MessageRow]:
    """The room's ``/context`` rows after ``message_id``, oldest first (none if it is not there).

    Every page is read up to the message, however deep it is: stopping early would call a
    landed post missing, and it would be sent twice. ``sent_at`` (the message's
    ``inserted_at``) lets the walk start at the last page known to begin before it
    (``band.runtime.context_pages``): a room's pages are read once, not once per look.
    """
    pages = pages_of(rest)
    start = pages.start_for(room_id, parse_instant(sent_at))
    while True:
        after = False
        async for row in _rows_from(rest, room_id, start):
            if after:
                yield row
            elif row.id == message_id:
                after = True
        if after or start is None:
            return
        # the page noted for that time did not lead to the message: read the room from its start
        pages.forget(room_id)
        start = None


async def _rows_from(
    rest: RestClient, room_id: str, start: str | None
) -> AsyncIterator[MessageRow]:
    """The room's ``/context`` rows from the page at cursor ``start`` (None: the first page)
    to the last, each page's start noted in the client's page map."""
    params: dict[str, str | int] = {"limit": CONTEXT_PAGE}
    if start is not None:
        params["cursor"] = start
    cursor, pages = start, pages_of(rest)
    async for resp in rest.pages(path("/agent/chats/{}/context", room_id), params):
        rows = resp.rows_as(MessageRow)
        if cursor is not None and rows:
            pages.note(room_id, cursor, parse_instant(rows[0].inserted_at))
        for row in rows:
            yield row
        next_cursor = resp.metadata.get("next_cursor")
        cursor = str(next_cursor) if next_cursor else None


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
    sent_at: str | None = None,
) -> tuple[int, str | None]:
    """How many of the agent's ``message_type`` rows with exactly ``content`` follow
    ``message_id`` (sent at ``sent_at``, when known), and the id of the last one."""
    count, last = 0, None
    async for row in rows_after(rest, room_id, message_id, sent_at):
        if (
            row.sender_id == agent_id
            and (row.message_type or "text") == message_type
            and _same_content(row, content)
        ):
            count, last = count + 1, row.id
    return count, last
