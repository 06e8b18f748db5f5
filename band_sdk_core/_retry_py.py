# cython: annotation_typing=False
"""RetryTracker: bounded per-message attempt counts and permanent failures.

The pure implementation and, compiled with _retry_c.pxd, the compiled twin _retry_c.
Every id that has an attempt entry or is permanently failed has one _Slot in one dict;
the slot sits in the attempt queue (a Chain of _linked_py), the failed queue (a list
read from a moving head) or both, each in first-insertion order. So recording an attempt
costs a single lookup (an insert for a new id), each eviction drops the oldest slot, and
an id evicted from both queues leaves the index: O(1) at any size and history. A slot
links only to its attempt-queue neighbours, which the Chain unlinks without recursion
when freed.
"""

from __future__ import annotations

import operator
from typing import TYPE_CHECKING, Any

from . import _linked_py as _linked  # compiled: the _linked_c that _retry_c.pxd cimports
from ._base import read_only, refuse_copy, refuse_subclasses

if TYPE_CHECKING or __name__ != "band_sdk_core._retry_c":
    # One non-str key kept in every index: CPython then stores each entry's hash beside it
    # (a "general" dict), so a probe past other ids compares hashes in the table instead of
    # reading each id's str object; at 100,000 ids those reads are cache misses.
    _GENERAL = object()

    class _Index(dict[object, "_Slot | None"]):
        """The pure twin's id index: a dict with the compiled StrMap's two hash-taking calls.

        Each is what dict does without the hash (a str caches its own): ``pop_known`` is
        ``pop``, ``prefetch`` nothing. So the tracker's logic is one text for both twins.
        """

        __slots__ = ()

        def pop_known(self, key: object, key_hash: int) -> _Slot | None:
            """Remove ``key`` (present, with ``key_hash``) and return its slot."""
            return self.pop(key)

        def prefetch(self, key_hash: int) -> None:
            """Nothing to load ahead: a dict probe reads the table when it comes."""

    def _new_index() -> _Index:
        """An empty id index (with _GENERAL, never looked up)."""
        return _Index({_GENERAL: None})

else:  # the compiled twin indexes ids in a C table with the same calls (_strmap_c: compiled-only)
    from ._strmap_c import StrMap as _new_index

__all__ = ["RetryTracker"]

# The index also takes the hash a slot remembers: evicting an id from the compiled twin's
# StrMap then needs no read of its str object (at 100,000 ids, a cache miss)

_U32_MAX = 4294967295
# (count, exhausted) results made once: most calls return one of these instead of a new tuple
_CACHED = 64
_FRESH = tuple((count, False) for count in range(_CACHED))
_SPENT = tuple((count, True) for count in range(_CACHED))


def _message_id(message_id: object) -> str:
    """A non-exact-str message id as an exact str; a non-str one rejected (reference wording).

    A str subclass counts by its characters, as in the reference: its own ``__hash__`` or
    ``__eq__`` never decides which id it is.
    """
    if not isinstance(message_id, str):
        if message_id is None:
            raise TypeError("'None' is not an instance of 'str'")
        raise TypeError(f"'{type(message_id).__name__}' object is not an instance of 'str'")
    return str.__str__(message_id)


def _check_range(number: Any, name: str, low: int) -> int:
    """Check an already converted integer argument lies in ``low..=u32::MAX``."""
    if number < low or number > _U32_MAX:
        raise ValueError(f"`{name}` must be an integer between {low} and {_U32_MAX}, got {number}")
    return int(number)


class _Slot(_linked.Link):
    """One id: its attempt entry (count, restored ceiling) and its places in both queues.

    The Link's ``prev``/``next`` are its place in the attempt queue; the failed queue only
    ever pops its front, so it is a list of slots read from a moving head.
    """

    __slots__ = ("ceiling", "count", "failed", "hash", "key", "tracked")

    prev: _Slot | None
    next: _Slot | None

    def __init__(self) -> None:
        """Create a slot in neither queue."""
        self.key: str | None = None
        self.hash: int = 0  # the key's hash (the index's pop_known and prefetch take it)
        self.count: int = 0  # u32 in the compiled twin, as in the reference
        self.tracked: bool = False  # in the attempt queue
        self.failed: bool = False  # in the permanently-failed queue
        self.ceiling: int = -1  # a restored (stricter) ceiling, or -1 for none
        self.prev: _Slot | None = None  # the attempt queue's links
        self.next: _Slot | None = None


class RetryTracker:
    """Per-message retry budget with bounded attempt and permanent-failure tracking."""

    __slots__ = (
        "_failed",
        "_fhead",
        "_index",
        "_max_retries",
        "_max_tracked",
        "_queue",
        "_spare",
    )
    __module__ = "band_sdk_core"
    __init_subclass__ = refuse_subclasses

    def __init__(self, max_retries: int = 1, max_tracked: int = 10_000) -> None:
        """Create a tracker allowing ``max_retries`` retries, tracking ``max_tracked`` ids."""
        # every argument is converted before any is range-checked (the reference's order)
        retries_in = operator.index(max_retries)
        tracked_in = operator.index(max_tracked)
        retries = _check_range(retries_in, "max_retries", 0)
        tracked = _check_range(tracked_in, "max_tracked", 1)
        self._max_retries: int = retries
        self._max_tracked: int = tracked
        # id -> _Slot for every id in either queue (never counted: the queues keep sizes)
        self._index = _new_index()
        self._queue: _linked.Chain = _linked.Chain()  # the attempt queue, oldest first
        # the permanently-failed queue, oldest first from _failed[_fhead] (None before it)
        self._failed: list[_Slot | None] = []
        self._fhead: int = 0
        self._spare: _Slot | None = None  # the next new id's slot (often the last to leave)

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

    # -- the index and the two queues ---------------------------------------------------

    def _find(self, key: object) -> _Slot | None:
        """The slot of ``key``, or None."""
        return self._index.get(key)

    def _slot(self, key: str) -> _Slot:
        """The slot of ``key``, inserted (in neither queue yet) when new: one probe."""
        spare = self._spare
        if spare is None:
            spare = _Slot()
        else:
            self._spare = None
        found = self._index.setdefault(key, spare)
        if found is spare:
            spare.key = key
            spare.hash = hash(key)
            return spare
        if self._spare is None:
            self._spare = spare
        return found  # type: ignore[return-value]  # only _GENERAL maps to None

    def _leave(self, slot: _Slot) -> None:
        """Drop a slot that is in neither queue from the index (and keep it as the spare)."""
        if not slot.tracked and not slot.failed:
            self._index.pop_known(slot.key, slot.hash)
            slot.key = None
            self._spare = slot

    def _track(self, slot: _Slot) -> None:
        """Give ``slot`` a fresh attempt entry at the back; evict the oldest beyond the bound."""
        slot.tracked = True
        slot.count = 0
        slot.ceiling = -1
        queue = self._queue
        queue.append(slot)
        if queue.size > self._max_tracked:  # evicting after the insert: the same state
            self._untrack(queue.first)  # type: ignore[arg-type]  # a _Slot: the queue is not empty
            # the next eviction's index bucket loads meanwhile (compiled twin)
            oldest: _Slot = queue.first  # type: ignore[assignment]  # at least one remains
            self._index.prefetch(oldest.hash)

    def _untrack(self, slot: _Slot) -> None:
        """Remove the attempt entry of ``slot`` (unlink it from the attempt queue)."""
        self._queue.unlink(slot)
        slot.tracked = False
        self._leave(slot)

    def _add_failed(self, slot: _Slot) -> None:
        """Put ``slot`` in the permanently-failed queue; evict beyond the bound."""
        if not slot.failed:  # an id already in keeps its place (no refresh)
            slot.failed = True
            failed = self._failed
            failed.append(slot)
            head = self._fhead
            if len(failed) - head > self._max_tracked:
                oldest: _Slot = failed[head]  # type: ignore[assignment]  # at or past the head
                failed[head] = None
                head += 1
                if head * 2 >= len(failed):  # at most half dead: amortised O(1) per eviction
                    del failed[:head]
                    head = 0
                self._fhead = head
                oldest.failed = False
                self._leave(oldest)

    def _limit(self, slot: _Slot) -> int:
        """The effective ceiling of a tracked id: the stricter of ours and a restored one."""
        ceiling = slot.ceiling
        if 0 <= ceiling < self._max_retries:
            return ceiling
        return self._max_retries

    # -- the API ------------------------------------------------------------------------

    def record_attempt(self, message_id: str) -> tuple[int, bool]:
        """Count one attempt; return ``(count, exhausted)``."""
        if type(message_id) is not str:  # exact str is the common case: skip the call
            message_id = _message_id(message_id)
        slot = self._slot(message_id)
        if not slot.tracked:
            self._track(slot)
        slot.count += 1
        count = slot.count
        exhausted = count > self._limit(slot)
        if exhausted:
            self._add_failed(slot)
            if count < _CACHED:
                return _SPENT[count]
            return (count, True)
        if count < _CACHED:
            return _FRESH[count]
        return (count, False)

    def is_permanently_failed(self, message_id: str) -> bool:
        """Whether the message is in the permanently-failed set."""
        if type(message_id) is not str:
            message_id = _message_id(message_id)
        slot = self._find(message_id)
        return slot is not None and slot.failed

    def mark_permanently_failed(self, message_id: str) -> None:
        """Add the message to the permanently-failed set."""
        if type(message_id) is not str:
            message_id = _message_id(message_id)
        self._add_failed(self._slot(message_id))

    def mark_success(self, message_id: str) -> None:
        """Forget the message's attempt count."""
        if type(message_id) is not str:
            message_id = _message_id(message_id)
        slot = self._find(message_id)
        if slot is not None and slot.tracked:
            self._untrack(slot)

    def discard_attempt(self, message_id: str) -> None:
        """Undo one attempt (saturating); the entry goes away at zero."""
        if type(message_id) is not str:
            message_id = _message_id(message_id)
        slot = self._find(message_id)
        if slot is None or not slot.tracked:
            return
        if slot.count <= 1:
            self._untrack(slot)
        else:
            slot.count -= 1

    def _attempt_count(self, message_id: str) -> int:
        """The current attempt count (0 when untracked)."""
        if type(message_id) is not str:  # from ClaimRegistry, which accepts subclasses
            message_id = str.__str__(message_id)
        slot = self._find(message_id)
        return slot.count if slot is not None and slot.tracked else 0

    def _ceiling(self, message_id: str) -> int:
        """The effective retry ceiling: the stricter of ours and a restored one."""
        if type(message_id) is not str:  # from ClaimRegistry, which accepts subclasses
            message_id = str.__str__(message_id)
        slot = self._find(message_id)
        if slot is None or not slot.tracked:
            return self._max_retries
        return self._limit(slot)

    def _restore_attempts(self, message_id: str, attempts: int, ceiling: int) -> None:
        """Raise the count to ``attempts`` under the stricter ceiling; mark failed at it."""
        if type(message_id) is not str:  # from ClaimRegistry, which accepts subclasses
            message_id = str.__str__(message_id)
        slot = self._slot(message_id)
        if not slot.tracked:
            self._track(slot)
        if attempts > slot.count:
            slot.count = attempts
        if slot.ceiling < 0 or ceiling < slot.ceiling:
            slot.ceiling = ceiling
        if slot.count >= self._limit(slot):
            self._add_failed(slot)
