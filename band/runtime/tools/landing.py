"""Posts whose answer may be lost: retried with backoff, and only after reading they did not land.

A message or event POST is not idempotent. A 429 means the platform did not act: it is sent again
after the platform's ``Retry-After`` (or the client's jittered backoff). A 5xx, a timeout or a
dropped connection leaves the outcome unknown: before sending again, the room's ``/context`` is
read for this agent's row with the same content after the turn's trigger message; when it is
there the write landed and is not repeated. Without a trigger (no turn to anchor the read) an
unknown outcome is not retried: the error goes to the caller, as before.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass

from band.client.errors import BandAPIError, BandConnectionError
from band.client.rest import RestClient, transient
from band.core.wire import JsonObject, JsonValue
from band.runtime.posts import count_posts

__all__ = ["WRITE_ATTEMPTS", "Landed", "post_write"]

log = logging.getLogger("band.tools")

#: Sends of one write (the first and its retries); the bound of a turn's wait on one post.
WRITE_ATTEMPTS = 5
#: Statuses that say the platform refused before acting (rate limited): safe to send again.
NOT_APPLIED = frozenset({429})


@dataclass(frozen=True, slots=True)
class Landed:
    """A write whose answer was lost but whose row is in the room."""

    id: str | None


def _outcome_known(exc: BaseException) -> bool:
    """Whether ``exc`` says for sure that the platform did not apply the write."""
    return isinstance(exc, BandAPIError) and exc.status_code in NOT_APPLIED


async def post_write(
    rest: RestClient,
    url: str,
    body: JsonValue,
    *,
    room_id: str,
    agent_id: str | None,
    trigger_id: str | None,
    content: str,
    message_type: str,
    written: dict[tuple[str, str], int],
    trigger_at: str | None = None,
) -> JsonObject | Landed:
    """POST ``body`` to ``url``; the answer's ``data``, or ``Landed`` when a lost answer's row
    is found. ``written``: the rows the agent wrote after the trigger in this turn, by
    ``(message_type, stripped content)``, counted here when this one lands (the write landed
    when the room holds one more than counted before; ``trigger_at``: when the trigger was
    written, where the look starts). Raises the last error once
    ``WRITE_ATTEMPTS`` ran out, or at once for a permanent error."""
    key = (message_type, content.strip())
    earlier = written.get(key, 0)
    result: JsonObject | Landed | None = None
    last: BaseException | None = None
    for attempt in range(WRITE_ATTEMPTS):
        if last is not None:
            await asyncio.sleep(rest.retry_delay(attempt - 1, last))
            if not _outcome_known(last):
                assert agent_id is not None and trigger_id is not None
                count, row_id = await count_posts(
                    rest, room_id, agent_id, trigger_id, content, message_type, trigger_at
                )
                if count > earlier:
                    log.info("room %s: a lost %s answer: it had landed", room_id, message_type)
                    result = Landed(row_id)
                    break
            log.info(
                "room %s: posting the %s again (attempt %d): %s",
                room_id,
                message_type,
                attempt + 1,
                last,
            )
        try:
            resp = await rest.request("POST", url, json=body, retries=0)
        except (BandAPIError, BandConnectionError) as exc:
            if not transient(exc):
                raise
            if not _outcome_known(exc) and (agent_id is None or trigger_id is None):
                raise  # nothing to read the outcome against: the caller decides
            last = exc
            continue
        data = resp.data
        result = dict(data) if isinstance(data, dict) else {}
        break
    if result is None:
        assert last is not None
        raise last
    written[key] = written.get(key, 0) + 1
    return result
