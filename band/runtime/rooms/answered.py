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

from collections.abc import Collection, Sequence
from datetime import datetime
from typing import Protocol, runtime_checkable

from band.client.rest import RestClient
from band.core.wire import MessageRow, parse_instant
from band.runtime.posts import (
    CONTEXT_PAGE,
    count_posts,
    is_post_of,
    rows_after,
    sent_text,
)

__all__ = [
    "CONTEXT_PAGE",
    "PostRecord",
    "answered_in_attempt",
    "attempt_error",
    "attempt_started",
    "count_posts",
    "failure_reported",
    "is_post_of",
    "posted_by",
    "reply_landed",
    "sent_text",
]


@runtime_checkable
class PostRecord(Protocol):
    """Tools that keep the texts of the messages they posted (``AgentTools`` does)."""

    @property
    def posted(self) -> Sequence[str]:
        """Texts posted through these tools, answered or not."""
        ...


def posted_by(tools: object) -> list[str]:
    """What ``tools`` posted (nothing known for tools that keep no record)."""
    # getattr, not isinstance(tools, PostRecord): a runtime Protocol check walks the protocol's
    # members on every call, and this runs once per turn
    posted = getattr(tools, "posted", None)
    return [] if posted is None else list(posted)


def _last_attempt(row: MessageRow, agent_id: str, status: str) -> dict[str, object] | None:
    """The agent's current attempt on ``row`` when its delivery is in ``status`` (else None)."""
    statuses = row.metadata.get("delivery_status") if row.metadata is not None else None
    mine = statuses.get(agent_id) if isinstance(statuses, dict) else None
    if not isinstance(mine, dict) or mine.get("status") != status:
        return None
    attempts = mine.get("attempts")
    current = mine.get("current_attempt")
    for attempt in attempts if isinstance(attempts, list) else []:
        if isinstance(attempt, dict) and attempt.get("number") == current:
            return attempt
    return None


def attempt_started(row: MessageRow, agent_id: str, status: str = "processing") -> datetime | None:
    """When the agent's last attempt on ``row``, ended in ``status`` (default: still open,
    ``processing``), started (None: none known)."""
    attempt = _last_attempt(row, agent_id, status)
    return None if attempt is None else parse_instant(attempt.get("started_at"))


def attempt_error(row: MessageRow, agent_id: str) -> str | None:
    """The error the agent's last attempt on ``row`` failed with (None: not failed, or the
    platform keeps no error with its attempts)."""
    attempt = _last_attempt(row, agent_id, "failed")
    error = None if attempt is None else attempt.get("error")
    return error if isinstance(error, str) else None


async def answered_in_attempt(
    rest: RestClient,
    room_id: str,
    agent_id: str,
    message_id: str,
    since: datetime | None,
    sent_at: str | None = None,
) -> bool:
    """Whether the agent answered ``message_id`` (sent at ``sent_at``, when known) in its open
    attempt (started ``since``).

    With ``since`` unknown (a platform that lists no attempts), an agent text message after
    the trigger and before the room's next message to the agent counts as its answer.
    """
    async for row in rows_after(rest, room_id, message_id, sent_at):
        mine = row.sender_id == agent_id
        if since is None:
            if (row.message_type or "text") == "text":
                return mine  # the agent spoke first, or the room's next message came first
            continue
        stamp = parse_instant(row.inserted_at)
        if mine and (row.message_type or "text") == "text" and stamp is not None and stamp > since:
            return True
    return False


async def failure_reported(
    rest: RestClient,
    room_id: str,
    agent_id: str,
    message_id: str,
    since: datetime | None,
    sent_at: str | None = None,
) -> bool:
    """Whether the agent posted an ``error`` card after ``message_id`` (sent at ``sent_at``,
    when known) in the attempt that started ``since`` (its failure was told to the room: the
    card is the message's answer)."""
    if since is None:
        return False
    async for row in rows_after(rest, room_id, message_id, sent_at):
        stamp = parse_instant(row.inserted_at)
        if row.sender_id == agent_id and row.message_type == "error" and stamp and stamp > since:
            return True
    return False


async def reply_landed(
    rest: RestClient,
    room_id: str,
    agent_id: str,
    message_id: str,
    contents: Collection[str],
    sent_at: str | None = None,
) -> bool:
    """Whether one of ``contents`` is in the room as the agent's message after ``message_id``
    (sent at ``sent_at``, when known)."""
    wanted = {sent.strip() for sent in contents if sent.strip()}
    if not wanted:
        return False
    async for row in rows_after(rest, room_id, message_id, sent_at):
        if is_post_of(row, agent_id, wanted):
            return True
    return False
