"""The agent's posts as a room's ``/context`` lists them, read after a given message.

A post whose answer was lost (the connection dropped after the platform wrote it) is looked
for here: by the tools before they send again (``band.runtime.tools.landing``) and by the
delivery pipeline before a message runs again (``band.runtime.rooms.answered``).
"""

from __future__ import annotations

import re
from collections import OrderedDict
from collections.abc import AsyncIterator, Collection

from band.client.rest import RestClient, path
from band.core.wire import MessageRow

__all__ = ["CONTEXT_PAGE", "count_posts", "is_post_of", "rows_after", "sent_text"]

#: Rows asked for per page of ``/context`` (the endpoint's maximum).
CONTEXT_PAGE = 100
#: How many messages' pages ``rows_after`` remembers (``_page_of``).
_REMEMBERED = 256

#: (room, message) -> the cursor of the ``/context`` page a message was last found on. The
#: endpoint lists oldest first, so a message deep in a long room is reached by walking every
#: page before it; a message is looked for again and again (each retry of a post, each replay),
#: and a keyset cursor stays valid, so the later walks start at its page.
_page_of: OrderedDict[tuple[str, str], str] = OrderedDict()

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
    """The room's ``/context`` rows after ``message_id``, oldest first (none if it is not there).

    Every page is read up to the message, however deep it is: stopping early would call a
    landed post missing, and it would be sent twice.
    """
    key = (room_id, message_id)
    start = _page_of.get(key)
    found = False
    async for row in _rows_after(rest, room_id, message_id, start, key):
        found = True
        yield row
    if start is not None and not found and key not in _page_of:
        # the remembered page no longer holds it (another platform, a reset room): read it all
        async for row in _rows_after(rest, room_id, message_id, None, key):
            yield row


async def _rows_after(
    rest: RestClient, room_id: str, message_id: str, start: str | None, key: tuple[str, str]
) -> AsyncIterator[MessageRow]:
    """``rows_after``'s walk from the page at cursor ``start`` (None: the first page); the
    message's page is remembered when found, forgotten when it is not on the walk."""
    _page_of.pop(key, None)
    params: dict[str, str | int] = {"limit": CONTEXT_PAGE}
    if start is not None:
        params["cursor"] = start
    after, cursor = False, start
    async for resp in rest.pages(path("/agent/chats/{}/context", room_id), params):
        for row in resp.rows_as(MessageRow):
            if after:
                yield row
            elif row.id == message_id:
                after = True
                if cursor is not None:
                    _remember_page(key, cursor)
        next_cursor = resp.metadata.get("next_cursor")
        cursor = str(next_cursor) if next_cursor else None


def _remember_page(key: tuple[str, str], cursor: str) -> None:
    """Keep ``cursor`` as the page of ``key``'s message (the oldest entries go past the bound)."""
    _page_of[key] = cursor
    _page_of.move_to_end(key)
    while len(_page_of) > _REMEMBERED:
        _page_of.popitem(last=False)


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
