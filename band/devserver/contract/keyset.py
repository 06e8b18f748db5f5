"""Opaque keyset cursors over lists band dev sorts in memory (rooms, agents, participants).

A cursor names the sort key of the last row a page returned, plus the parameters it was
issued under (``bound``): a cursor used under other parameters is a 422, never a silently
wrong page.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from ..store.db import StoreError

T = TypeVar("T")
Key = tuple[Any, ...]


def encode(bound: Sequence[Any], key: Key) -> str:
    """The cursor after the row with sort key ``key``, issued under ``bound``."""
    raw = json.dumps([list(bound), list(key)], separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode(cursor: str, bound: Sequence[Any], mismatch: str = "invalid_cursor") -> Key:
    """The sort key ``cursor`` names (422 ``invalid_cursor`` for a cursor band dev did not
    issue, 422 ``mismatch`` for one issued under other parameters than ``bound``)."""
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        issued, key = json.loads(raw)
        if not isinstance(issued, list) or not isinstance(key, list):
            raise ValueError(cursor)
    except (ValueError, binascii.Error, UnicodeDecodeError):
        raise StoreError(
            422,
            "invalid_cursor",
            "cursor is not a cursor this list issued",
            {"cursor": ["is invalid"]},
        ) from None
    if issued != list(bound):
        raise StoreError(
            422,
            mismatch,
            "cursor was issued under other list parameters; "
            "keep them constant while paging, or restart without cursor",
            {"cursor": ["does not match this request's parameters"]},
        )
    return tuple(key)


def window(
    rows: list[T],
    key: Callable[[T], Key],
    limit: int,
    cursor: str | None,
    bound: Sequence[Any],
    *,
    descending: bool = False,
    mismatch: str = "invalid_cursor",
) -> tuple[list[T], bool, str | None]:
    """One page of ``rows`` sorted by ``key``: (rows, has_more, next_cursor)."""
    ordered = sorted(rows, key=key, reverse=descending)
    if cursor is not None:
        after = decode(cursor, bound, mismatch)
        # a row is past the cursor when its key sorts after it in this direction
        ordered = [r for r in ordered if (key(r) < after if descending else key(r) > after)]
    page, more = ordered[:limit], len(ordered) > limit
    return page, more, encode(bound, key(page[-1])) if more and page else None
