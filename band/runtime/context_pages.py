"""Where the pages of a room's ``/context`` begin, learned from the walks that read them.

``/context`` lists oldest first, by keyset cursor, so a message deep in a long room is reached
by reading every page before it. Each walk notes the cursor of every page it reads with the
time of the page's first row; a later look for a message sent at a known time starts at the
last page that began before it (a keyset cursor stays valid, and rows are only ever added).
A start that does not lead to the message is no harm: the caller reads from the first page.
"""

from __future__ import annotations

import bisect
import weakref
from collections import OrderedDict
from datetime import UTC, datetime

from band.client.rest import RestClient

__all__ = ["PageMap", "pages_of"]


class PageMap:
    """Page starts of the ``max_rooms`` rooms looked in last, ``max_pages`` each at most."""

    def __init__(self, max_rooms: int = 256, max_pages: int = 10_000) -> None:
        self.max_rooms = max_rooms
        self.max_pages = max_pages
        #: room -> (time of a page's first row, the page's cursor), sorted; and the cursors
        self._rooms: OrderedDict[str, tuple[list[tuple[datetime, str]], set[str]]] = OrderedDict()

    def start_for(self, room_id: str, sent_at: datetime | None) -> str | None:
        """The cursor of the last page known to begin before ``sent_at`` (None: read from the
        first page: nothing known, or no time to place the message by)."""
        known = self._rooms.get(room_id)
        if known is None or sent_at is None:
            return None
        self._rooms.move_to_end(room_id)
        starts = known[0]
        # strictly before: a page that begins at the same instant may follow the message
        at = bisect.bisect_left(starts, (_utc(sent_at), ""))
        return starts[at - 1][1] if at else None

    def start_back(self, room_id: str, pages: int) -> str | None:
        """The cursor of the page ``pages`` before the newest one noted (None: fewer known):
        a walk for a room's newest rows starts there instead of at its first page."""
        known = self._rooms.get(room_id)
        if known is None or pages < 0 or len(known[0]) <= pages:
            return None
        self._rooms.move_to_end(room_id)
        return known[0][-1 - pages][1]

    def note(self, room_id: str, cursor: str, first_at: datetime | None) -> None:
        """A page read with ``cursor`` began with a row written at ``first_at``."""
        if first_at is None:
            return
        known = self._rooms.get(room_id)
        if known is None:
            known = self._rooms[room_id] = ([], set())
            while len(self._rooms) > self.max_rooms:
                self._rooms.popitem(last=False)
        starts, cursors = known
        if cursor in cursors or len(starts) >= self.max_pages:
            return
        cursors.add(cursor)
        bisect.insort(starts, (_utc(first_at), cursor))

    def forget(self, room_id: str) -> None:
        """Drop what is known of ``room_id`` (a start that did not lead where it should)."""
        self._rooms.pop(room_id, None)


def _utc(when: datetime) -> datetime:
    """``when`` with a zone (the platform speaks UTC: a naive time is UTC), so all compare."""
    return when if when.tzinfo is not None else when.replace(tzinfo=UTC)


#: Each REST client's page map: one client is one agent's key on one platform, and what one
#: agent's ``/context`` lists (its rows) is not another's.
_MAPS: weakref.WeakKeyDictionary[RestClient, PageMap] = weakref.WeakKeyDictionary()


def pages_of(rest: RestClient) -> PageMap:
    """The page map of the agent that ``rest`` speaks for (made on first use)."""
    found = _MAPS.get(rest)
    if found is None:
        found = _MAPS[rest] = PageMap()
    return found
