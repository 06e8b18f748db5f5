# cython: language_level=3
"""Compiled twin of _retry_py: RetryTracker over one index and two C-level queues.

_retry_py.py is the readable source of behaviour and the pure fallback; this class
keeps the same state in the same order. Every id that has an attempt entry or is
permanently failed has one slot in one dict; the slot sits in the attempt queue, the
failed queue or both (linked lists in first-insertion order). So recording an attempt
costs a single lookup (an insert for a new id), each eviction unlinks the oldest slot,
and an id evicted from both queues leaves the index: O(1) at any size and history.
"""

cimport cython

from ._ordered_c cimport Chain, Link, chain_append, chain_unlink

import operator

from ._base import read_only, refuse_copy
from ._retry_py import _check_message_id, _check_range

__all__ = ["RetryTracker"]

cdef extern from *:
    """
    #if defined(__GNUC__) || defined(__clang__)
    #define band_prefetch(p) __builtin_prefetch((const void *)(p))
    #else
    #define band_prefetch(p) ((void)(p))
    #endif
    """
    void band_prefetch(void *p)

# One non-str key kept in every index: CPython then stores each entry's hash beside it
# (a "general" dict), so a probe past other ids compares hashes in the table instead of
# reading each id's str object; at 100,000 ids those reads are cache misses.
cdef object _GENERAL = object()


@cython.final
@cython.freelist(64)
@cython.no_gc  # slots link only to slots and str ids; the tracker breaks the links itself
cdef class _Slot(Link):
    """One id: its attempt entry (count, restored ceiling) and its places in both queues.

    Packed into one 64-byte allocation: at 100,000 ids the queues are bound by memory.
    Counts are u32 as in the reference; the failed queue only ever pops its front, so
    it is singly linked.
    """

    cdef object key
    cdef unsigned int count
    cdef char tracked  # in the attempt queue
    cdef char failed  # in the permanently-failed queue
    cdef long long ceiling  # a restored (stricter) ceiling, or -1 for none
    cdef _Slot fnext  # the attempt queue's links are the Link's


@cython.final
@cython.no_gc_clear  # __dealloc__ walks the links to break them; the collector must not clear first
cdef class RetryTracker:
    """Per-message retry budget with bounded attempt and permanent-failure tracking."""

    cdef Py_ssize_t _max_retries
    cdef Py_ssize_t _max_tracked
    cdef dict _index  # id -> _Slot, for every id in either queue
    cdef Py_ssize_t _failed
    cdef Chain _attempts  # the slots with an attempt entry, oldest first
    cdef _Slot _ffirst
    cdef _Slot _flast
    cdef _Slot _spare  # the next new id's slot (often the last one to leave the index)

    __module__ = "band_sdk_core"

    def __cinit__(self, *args, **kwargs):
        self._index = {_GENERAL: None}  # never counted: the queues keep their own sizes
        self._attempts = Chain.__new__(Chain)

    def __init__(self, max_retries=1, max_tracked=10_000):
        """Create a tracker allowing ``max_retries`` retries, tracking ``max_tracked`` ids."""
        # every argument is converted before any is range-checked (the reference's order)
        retries_in = operator.index(max_retries)
        tracked_in = operator.index(max_tracked)
        self._max_retries = _check_range(retries_in, "max_retries", 0)
        self._max_tracked = _check_range(tracked_in, "max_tracked", 1)

    def __dealloc__(self):
        # break every link (slots are not tracked by the cycle collector)
        cdef _Slot slot
        if self._index is not None:
            for found in self._index.values():
                if found is not None:  # the _GENERAL key's value
                    slot = <_Slot>found
                    slot.prev = slot.next = slot.fnext = None

    __reduce_ex__ = __reduce__ = __copy__ = __deepcopy__ = refuse_copy

    @property
    def max_retries(self):
        """The retry ceiling."""
        return self._max_retries

    @max_retries.setter
    def max_retries(self, value):
        read_only(self, "max_retries")

    @max_retries.deleter
    def max_retries(self):
        read_only(self, "max_retries")

    # -- the index and the two queues ---------------------------------------------------

    cdef inline _Slot _find(self, object key):
        found = self._index.get(key)
        return None if found is None else <_Slot>found

    cdef _Slot _slot(self, object key):
        """The slot of ``key``, inserted (in neither queue yet) when new: one probe."""
        cdef _Slot spare = self._spare
        if spare is None:
            spare = _Slot.__new__(_Slot)
        else:
            self._spare = None
        found = self._index.setdefault(key, spare)
        if found is spare:
            spare.key = key
            return spare
        if self._spare is None:
            self._spare = spare
        return <_Slot>found

    cdef inline void _leave(self, _Slot slot):
        """Drop a slot that is in neither queue from the index (and keep it as the spare)."""
        if not slot.tracked and not slot.failed:
            del self._index[slot.key]
            slot.key = None
            self._spare = slot

    cdef int _track(self, _Slot slot) except -1:
        """Give ``slot`` a fresh attempt entry at the back; evict the oldest beyond the bound."""
        slot.tracked = True
        slot.count = 0
        slot.ceiling = -1
        chain_append(self._attempts, slot)
        if self._attempts.size > self._max_tracked:  # evicting after the insert: the same state
            self._untrack(<_Slot>self._attempts.first)
            self._prefetch_next_victims()
        return 0

    cdef inline void _prefetch_next_victims(self):
        """Warm what the next evictions read: large queues are bound by memory, not work.

        The next victim's slot was fetched one eviction ago, so its id can be fetched now
        (its hash is read to delete it from the index), and the one after it started.
        """
        cdef _Slot victim = <_Slot>self._attempts.first
        if victim is not None:
            band_prefetch(<void *>victim.key)
            if victim.next is not None:
                band_prefetch(<void *>victim.next)

    cdef int _untrack(self, _Slot slot) except -1:
        """Remove the attempt entry of ``slot``."""
        chain_unlink(self._attempts, slot)
        slot.tracked = False
        self._leave(slot)
        return 0

    cdef int _add_failed(self, _Slot slot) except -1:
        """Put ``slot`` in the permanently-failed queue (no refresh); evict beyond the bound."""
        cdef _Slot oldest
        if slot.failed:
            return 0
        slot.failed = True
        slot.fnext = None
        if self._flast is None:
            self._ffirst = slot
        else:
            self._flast.fnext = slot
        self._flast = slot
        self._failed += 1
        if self._failed > self._max_tracked:
            oldest = self._ffirst
            self._ffirst = oldest.fnext
            oldest.fnext = None
            oldest.failed = False
            self._failed -= 1
            self._leave(oldest)
        return 0

    cdef inline Py_ssize_t _limit(self, _Slot slot):
        """The effective ceiling of a tracked id: the stricter of ours and a restored one."""
        if 0 <= slot.ceiling < self._max_retries:
            return <Py_ssize_t>slot.ceiling
        return self._max_retries

    # -- the API ------------------------------------------------------------------------

    def record_attempt(self, message_id):
        """Count one attempt; return ``(count, exhausted)``."""
        if type(message_id) is not str:
            _check_message_id(message_id)
        cdef _Slot slot = self._slot(message_id)
        if not slot.tracked:
            self._track(slot)
        slot.count += 1
        cdef Py_ssize_t count = <Py_ssize_t>slot.count
        cdef bint exhausted = count > self._limit(slot)
        if exhausted:
            self._add_failed(slot)
        return (count, exhausted)

    def is_permanently_failed(self, message_id):
        """Whether the message is in the permanently-failed set."""
        if type(message_id) is not str:
            _check_message_id(message_id)
        cdef _Slot slot = self._find(message_id)
        return slot is not None and slot.failed != 0

    def mark_permanently_failed(self, message_id):
        """Add the message to the permanently-failed set."""
        if type(message_id) is not str:
            _check_message_id(message_id)
        self._add_failed(self._slot(message_id))

    def mark_success(self, message_id):
        """Forget the message's attempt count."""
        if type(message_id) is not str:
            _check_message_id(message_id)
        cdef _Slot slot = self._find(message_id)
        if slot is not None and slot.tracked:
            self._untrack(slot)

    def discard_attempt(self, message_id):
        """Undo one attempt (saturating); the entry goes away at zero."""
        if type(message_id) is not str:
            _check_message_id(message_id)
        cdef _Slot slot = self._find(message_id)
        if slot is None or not slot.tracked:
            return
        if slot.count <= 1:
            self._untrack(slot)
        else:
            slot.count -= 1

    def _attempt_count(self, message_id):
        """The current attempt count (0 when untracked)."""
        cdef _Slot slot = self._find(message_id)
        return slot.count if slot is not None and slot.tracked else 0

    def _ceiling(self, message_id):
        """The effective retry ceiling: the stricter of ours and a restored one."""
        cdef _Slot slot = self._find(message_id)
        if slot is None or not slot.tracked:
            return self._max_retries
        return self._limit(slot)

    def _restore_attempts(self, message_id, Py_ssize_t attempts, Py_ssize_t ceiling):
        """Raise the count to ``attempts`` under the stricter ceiling; mark failed at it."""
        cdef _Slot slot = self._slot(message_id)
        if not slot.tracked:
            self._track(slot)
        if attempts > <Py_ssize_t>slot.count:
            slot.count = <unsigned int>attempts
        if slot.ceiling < 0 or ceiling < slot.ceiling:
            slot.ceiling = ceiling
        if <Py_ssize_t>slot.count >= self._limit(slot):
            self._add_failed(slot)
