"""Whether a turn's reply already reached the room, for a message about to run again.

A reply the platform wrote whose answer was lost (the connection dropped or timed out after the
write) leaves the turn looking cut off, so its message is replayed; running it again would
answer twice. The replay first looks in the room's ``/context`` for what that turn posted.

A message re-served after a restart (or to another process with the same key) carries no
memory of what its earlier attempt posted; its row's open ``processing`` attempt does: any text
message of this agent written after that attempt started is its answer (a room's turns run one
at a time, oldest first, and a turn runs only once its processing mark was accepted).
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Collection, Sequence
from datetime import datetime
from typing import Protocol, runtime_checkable

from band.client.rest import RestClient, path
from band.core.wire import MessageRow

__all__ = [
    "MAX_CONTEXT_PAGES",
    "PostRecord",
    "answered_in_attempt",
    "attempt_started",
    "count_posts",
    "failure_reported",
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


async def rows_after(rest: RestClient, room_id: str, message_id: str) -> AsyncIterator[MessageRow]:
    """The room's ``/context`` rows after ``message_id``, oldest first (none if it is not there)."""
    cursor: str | None = None
    after = False
    for _ in range(MAX_CONTEXT_PAGES):
        params: dict[str, int | str] = {"limit": 100}
        if cursor:
            params["cursor"] = cursor
        resp = await rest.request("GET", path("/agent/chats/{}/context", room_id), params=params)
        for row in resp.rows_as(MessageRow):
            if after:
                yield row
            elif row.id == message_id:
                after = True
        paging = resp.paging
        cursor = paging.next_cursor if paging.has_more else None
        if not cursor:
            return


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


def attempt_started(row: MessageRow, agent_id: str, status: str = "processing") -> datetime | None:
    """When the agent's last attempt on ``row``, ended in ``status`` (default: still open,
    ``processing``), started (None: none known)."""
    statuses = row.metadata.get("delivery_status") if row.metadata is not None else None
    mine = statuses.get(agent_id) if isinstance(statuses, dict) else None
    if not isinstance(mine, dict) or mine.get("status") != status:
        return None
    attempts = mine.get("attempts")
    current = mine.get("current_attempt")
    for attempt in attempts if isinstance(attempts, list) else []:
        if isinstance(attempt, dict) and attempt.get("number") == current:
            return _instant(attempt.get("started_at"))
    return None


def _instant(value: object) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None


async def answered_in_attempt(
    rest: RestClient, room_id: str, agent_id: str, message_id: str, since: datetime | None
) -> bool:
    """Whether the agent answered ``message_id`` in its open attempt (started ``since``).

    With ``since`` unknown (a platform that lists no attempts), an agent text message after
    the trigger and before the room's next message to the agent counts as its answer.
    """
    async for row in rows_after(rest, room_id, message_id):
        mine = row.sender_id == agent_id
        if since is None:
            if (row.message_type or "text") == "text":
                return mine  # the agent spoke first, or the room's next message came first
            continue
        stamp = _instant(row.inserted_at)
        if mine and (row.message_type or "text") == "text" and stamp is not None and stamp > since:
            return True
    return False


async def failure_reported(
    rest: RestClient, room_id: str, agent_id: str, message_id: str, since: datetime | None
) -> bool:
    """Whether the agent posted an ``error`` card after ``message_id`` in the attempt that
    started ``since`` (its failure was told to the room: the card is the message's answer)."""
    if since is None:
        return False
    async for row in rows_after(rest, room_id, message_id):
        stamp = _instant(row.inserted_at)
        if row.sender_id == agent_id and row.message_type == "error" and stamp and stamp > since:
            return True
    return False


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
