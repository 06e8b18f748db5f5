"""The messages a room owes the agent, as its actionable listing serves them, page by page.

``/next`` serves the oldest message not yet processed, and a failed message stays actionable:
once ``/next`` keeps serving one that may not run here (failed for good, or its mark pending),
what came after it is read from this listing, every page of it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

from band.client.rest import RestClient, path
from band.runtime.rooms.messages import Inbound, inbound

__all__ = ["LISTING_PAGE", "actionable_pages"]

#: Rows asked for per page of the actionable listing (the endpoint's maximum).
LISTING_PAGE = 100


async def actionable_pages(
    rest: RestClient, room_id: str, cursor: str | None = None
) -> AsyncIterator[tuple[list[Inbound], str | None]]:
    """Each page of the room's actionable listing, oldest first, from ``cursor`` (None: the
    first page): its messages and the cursor of the page after it (None on the last)."""
    params: dict[str, str | int] = {"sort_order": "asc", "limit": LISTING_PAGE}
    if cursor is not None:
        params["cursor"] = cursor
    url = path("/agent/chats/{}/messages", room_id)
    async for resp in rest.pages(url, params):  # the REST client's one paging rule
        rows = resp.data if isinstance(resp.data, list) else []
        items = [item for item in map(inbound, rows) if item is not None and item.row.id]
        next_cursor = resp.metadata.get("next_cursor")
        yield items, str(next_cursor) if next_cursor and resp.metadata.get("has_more") else None
