"""A room's conversation context for adapters: ``/context`` rows, cached for a TTL."""

from __future__ import annotations

import time

from band.client.rest import RestClient, path
from band.core.wire import JsonObject, parse_instant
from band.runtime.context_pages import pages_of
from band.runtime.posts import CONTEXT_PAGE
from band.runtime.sessionconfig import SessionConfig

__all__ = ["RoomHistory"]


class RoomHistory:
    """The newest of what the agent sent or was mentioned in, oldest first; refreshed when
    stale."""

    def __init__(self, rest: RestClient, room_id: str, config: SessionConfig) -> None:
        self.rest = rest
        self.room_id = room_id
        self.config = config
        self._rows: list[JsonObject] = []
        #: how many rows hold each string id: a membership test without a scan of the rows
        self._ids: dict[str, int] = {}
        self._fetched_at: float | None = None
        #: the cursor of the last page the last walk read (None: the first page), and how many
        #: of the held rows came before that page: a refresh reads on from there, not from
        #: the start (the rows it reads again replace the rest)
        self._resume: str | None = None
        self._before = 0

    async def for_turn(self, message_id: str, *, refresh: bool) -> list[JsonObject]:
        """The context without ``message_id`` (fetched when ``refresh``, stale or uncached)."""
        if not self.config.enable_context_hydration:
            return []
        stale = (
            self._fetched_at is None
            or time.monotonic() - self._fetched_at >= self.config.context_cache_ttl_seconds
        )
        if refresh or stale or not self.config.enable_context_cache:
            self._set_rows(await self._newest())
            self._fetched_at = time.monotonic()
        rows = self._rows
        if message_id in self._ids:
            rows = [r for r in rows if r.get("id") != message_id]
        return rows[-self.config.max_context_messages :]

    def cached(self) -> list[JsonObject]:
        """The rows fetched last (plus remembered ones), oldest first; no fetch."""
        return list(self._rows)

    def remember(self, row: JsonObject) -> None:
        """Keep a handled message in the cached context (the next fetch replaces it)."""
        rid = row.get("id")
        if isinstance(rid, str):  # every handled message's (a validated row's)
            if rid in self._ids:
                return
            self._ids[rid] = 1  # it was not there
        elif any(r.get("id") == rid for r in self._rows):  # no id, or not a string: compared
            return
        self._rows.append(row)
        keep = self.config.max_context_messages
        excess = len(self._rows) - (keep + 1)
        if keep > 0 and excess > 0:  # however busy the room is between fetches: the oldest go
            for old in self._rows[:excess]:
                oid = old.get("id")
                if isinstance(oid, str):
                    left = self._ids[oid] - 1
                    if left:
                        self._ids[oid] = left
                    else:
                        del self._ids[oid]
            del self._rows[:excess]
            self._before = max(0, self._before - excess)

    async def _newest(self, use_map: bool = True) -> list[JsonObject]:
        """The newest rows of ``/context``, walked to its last page.

        The endpoint lists oldest first, so a long room's newest rows are pages in: the first
        walk reads every page (keeping a bounded tail), or only the last ones when looks into
        the room already saw where its pages begin (``band.runtime.context_pages``); later
        walks start at the page the last one ended on (a keyset cursor stays valid, and rows
        are only ever added).
        """
        start, known = self._resume, False
        keep = self.config.max_context_messages
        pages = pages_of(self.rest)
        if start is None and keep > 0 and use_map:
            # a first walk: from where other looks into the room saw pages begin, enough full
            # pages back for ``keep`` rows and the turn's own (read from the first page when
            # that yields fewer: pages of another size)
            start = pages.start_back(self.room_id, -(-(keep + 1) // CONTEXT_PAGE))
            known = start is not None
        params: dict[str, str | int] = {"limit": CONTEXT_PAGE}
        if start is not None:
            params["cursor"] = start
        # the held rows before the resume page; none for a walk from elsewhere
        before = self._rows[: self._before] if start is not None and not known else []
        page, read = list[JsonObject](), 0
        resume = cursor = start
        url = path("/agent/chats/{}/context", self.room_id)
        async for resp in self.rest.pages(url, params):
            if page:  # the previous page was not the last
                before, resume = self._bounded(before + page), cursor
            data = resp.data
            page = [r for r in data if isinstance(r, dict)] if isinstance(data, list) else []
            if cursor is not None and page:  # where this page begins, for looks into the room
                pages.note(self.room_id, cursor, parse_instant(page[0].get("inserted_at")))
            read += len(page)
            next_cursor = resp.metadata.get("next_cursor")
            cursor = str(next_cursor) if next_cursor else None
        if known and read <= keep:  # the pages noted held fewer rows: read the whole room
            return await self._newest(use_map=False)
        # kept only once the walk is whole: a failed one starts from the same page again
        rows = self._bounded(before + page)
        self._before, self._resume = max(0, len(rows) - len(page)), resume
        return rows

    def _set_rows(self, rows: list[JsonObject]) -> None:
        self._rows = rows
        self._ids = {}
        for r in rows:
            rid = r.get("id")
            if isinstance(rid, str):
                self._ids[rid] = self._ids.get(rid, 0) + 1

    def _bounded(self, rows: list[JsonObject]) -> list[JsonObject]:
        """The rows worth holding: a turn sees ``max_context_messages`` besides its own one."""
        keep = self.config.max_context_messages
        return rows[-(keep + 1) :] if keep > 0 else rows
