# cython: annotation_typing=False
"""RetryTracker: bounded per-message attempt counts and permanent failures.

The pure implementation; _retry_c.pyx is its compiled twin (same state, same order).
"""

from __future__ import annotations

import operator
from collections import OrderedDict
from typing import Any

from ._base import read_only, refuse_copy, refuse_subclasses

__all__ = ["RetryTracker"]

_U32_MAX = 4294967295


def _check_message_id(message_id: object) -> None:
    """Reject a non-str message id with the reference wording."""
    if not isinstance(message_id, str):
        if message_id is None:
            raise TypeError("'None' is not an instance of 'str'")
        raise TypeError(f"'{type(message_id).__name__}' object is not an instance of 'str'")


def _check_range(number: Any, name: str, low: int) -> int:
    """Check an already converted integer argument lies in ``low..=u32::MAX``."""
    if number < low or number > _U32_MAX:
        raise ValueError(f"`{name}` must be an integer between {low} and {_U32_MAX}, got {number}")
    return int(number)


class RetryTracker:
    """Per-message retry budget with bounded attempt and permanent-failure tracking."""

    __slots__ = ("_attempts", "_ceilings", "_failed", "_max_retries", "_max_tracked")
    __module__ = "band_sdk_core"
    __init_subclass__ = refuse_subclasses

    _max_retries: int
    _max_tracked: int
    # Both bounded maps evict the oldest insertion in O(1) with popitem(last=False): a plain
    # dict used as a FIFO (del d[next(iter(d))]) walks every earlier deletion on each eviction.
    _attempts: OrderedDict[str, int]
    _ceilings: dict[str, int]  # only ids that also have an attempt entry
    _failed: OrderedDict[str, None]

    def __init__(self, max_retries: int = 1, max_tracked: int = 10_000) -> None:
        """Create a tracker allowing ``max_retries`` retries, tracking ``max_tracked`` ids."""
        # every argument is converted before any is range-checked (the reference's order)
        retries_in = operator.index(max_retries)
        tracked_in = operator.index(max_tracked)
        retries = _check_range(retries_in, "max_retries", 0)
        tracked = _check_range(tracked_in, "max_tracked", 1)
        self._max_retries = retries
        self._max_tracked = tracked
        self._attempts = OrderedDict()
        self._ceilings = {}
        self._failed = OrderedDict()

    __reduce_ex__ = __reduce__ = __copy__ = __deepcopy__ = refuse_copy

    @property
    def max_retries(self) -> int:
        """The retry ceiling."""
        return self._max_retries

    @max_retries.setter
    def max_retries(self, value: object) -> None:
        read_only(self, "max_retries")

    @max_retries.deleter
    def max_retries(self) -> None:
        read_only(self, "max_retries")

    def record_attempt(self, message_id: str) -> tuple[int, bool]:
        """Count one attempt; return ``(count, exhausted)``."""
        if type(message_id) is not str:  # exact str is the common case: skip the call
            _check_message_id(message_id)
        # the helpers are inlined here: this is the hot path of the pure implementation
        attempts = self._attempts
        previous: int = attempts.get(message_id, -1)  # counts are never negative
        count: int
        if previous < 0:
            if len(attempts) >= self._max_tracked:
                oldest = attempts.popitem(False)[0]
                if self._ceilings:
                    self._ceilings.pop(oldest, None)
            count = 1
        else:
            count = previous + 1
        attempts[message_id] = count
        limit = self._max_retries
        if self._ceilings:
            restored = self._ceilings.get(message_id, limit)
            if restored < limit:
                limit = restored
        if count <= limit:
            return (count, False)
        failed = self._failed
        if message_id not in failed:
            if len(failed) >= self._max_tracked:
                failed.popitem(False)
            failed[message_id] = None
        return (count, True)

    def is_permanently_failed(self, message_id: str) -> bool:
        """Whether the message is in the permanently-failed set."""
        if type(message_id) is not str:
            _check_message_id(message_id)
        return message_id in self._failed

    def mark_permanently_failed(self, message_id: str) -> None:
        """Add the message to the permanently-failed set."""
        _check_message_id(message_id)
        self._add_failed(message_id)

    def mark_success(self, message_id: str) -> None:
        """Forget the message's attempt count."""
        if type(message_id) is not str:
            _check_message_id(message_id)
        self._attempts.pop(message_id, None)
        if self._ceilings:
            self._ceilings.pop(message_id, None)

    def discard_attempt(self, message_id: str) -> None:
        """Undo one attempt (saturating); the entry goes away at zero."""
        _check_message_id(message_id)
        attempts = self._attempts
        if message_id not in attempts:
            return
        count: int = attempts[message_id]
        if count <= 1:
            del attempts[message_id]
            self._ceilings.pop(message_id, None)
        else:
            attempts[message_id] = count - 1

    def _attempt_count(self, message_id: str) -> int:
        """The current attempt count (0 when untracked)."""
        return self._attempts.get(message_id, 0)

    def _ceiling(self, message_id: str) -> int:
        """The effective retry ceiling: the stricter of ours and a restored one."""
        limit: int = self._max_retries
        if not self._ceilings:  # no restored ceilings (the common case)
            return limit
        restored: int = self._ceilings.get(message_id, limit)
        return restored if restored < limit else limit

    def _make_room(self) -> None:
        """Evict the oldest attempt entry when the map is full."""
        attempts = self._attempts
        if len(attempts) >= self._max_tracked:
            oldest = attempts.popitem(False)[0]
            if self._ceilings:
                self._ceilings.pop(oldest, None)

    def _restore_attempts(self, message_id: str, attempts: int, ceiling: int) -> None:
        """Raise the count to ``attempts`` under the stricter ceiling; mark failed at it."""
        table = self._attempts
        count: int
        if message_id in table:
            current: int = table[message_id]
            count = current if current > attempts else attempts
        else:
            self._make_room()
            count = attempts
        table[message_id] = count
        previous: int = self._ceilings.get(message_id, ceiling)
        self._ceilings[message_id] = previous if previous < ceiling else ceiling
        if count >= self._ceiling(message_id):
            self._add_failed(message_id)

    def _add_failed(self, message_id: str) -> None:
        """Insert into the bounded permanently-failed set (FIFO eviction)."""
        failed = self._failed
        if message_id in failed:
            return
        if len(failed) >= self._max_tracked:
            failed.popitem(False)
        failed[message_id] = None
