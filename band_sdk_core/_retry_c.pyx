# cython: language_level=3
"""Compiled twin of _retry_py: RetryTracker over C-level FIFO queues.

_retry_py.py is the readable source of behaviour and the pure fallback; this class
keeps the same state in the same order. Each bounded map is a queue of linked slots
indexed by a dict: an eviction unlinks the oldest slot and reuses it for the new id,
so an attempt costs one dict lookup, plus one delete and one insert for a new id,
at any size and after any history.
"""

cimport cython

import operator

from ._base import read_only, refuse_pickle
from ._retry_py import _check_message_id, _check_range

__all__ = ["RetryTracker"]


@cython.final
@cython.freelist(64)
@cython.no_gc  # slots link only to slots and str ids; the queue breaks the links itself
cdef class _Slot:
    """One tracked id: its attempt count, restored ceiling and queue neighbours."""

    cdef object key
    cdef Py_ssize_t count
    cdef Py_ssize_t ceiling  # a restored (stricter) ceiling, or -1 for none
    cdef _Slot prev
    cdef _Slot next


@cython.final
cdef class _Queue:
    """Slots in first-insertion order, indexed by id."""

    cdef dict index
    cdef _Slot first
    cdef _Slot last
    cdef _Slot spare  # the next new id's slot (often the last evicted one)

    def __cinit__(self):
        self.index = {}

    cdef inline _Slot find(self, object key):
        found = self.index.get(key)
        if found is None:
            return None
        return <_Slot>found

    cdef inline void link(self, _Slot slot):
        """Append ``slot`` (already indexed) at the back."""
        slot.prev = self.last
        slot.next = None
        if self.last is None:
            self.first = slot
        else:
            self.last.next = slot
        self.last = slot

    cdef inline void unlink(self, _Slot slot):
        """Take ``slot`` out of the order."""
        if slot.prev is None:
            self.first = slot.next
        else:
            slot.prev.next = slot.next
        if slot.next is None:
            self.last = slot.prev
        else:
            slot.next.prev = slot.prev
        slot.prev = None
        slot.next = None

    cdef _Slot pop_first(self):
        """Remove and return the oldest slot (the queue is not empty)."""
        cdef _Slot slot = self.first
        del self.index[slot.key]
        self.unlink(slot)
        return slot

    cdef _Slot take(self, object key):
        """Remove and return the slot of ``key``, or None."""
        found = self.index.pop(key, None)
        if found is None:
            return None
        self.unlink(<_Slot>found)
        return <_Slot>found

    cdef _Slot add(self, object key, Py_ssize_t bound):
        """The slot of ``key``; a new one is appended and the oldest evicted beyond ``bound``.

        One setdefault finds or inserts (a single probe of the index either way); the
        evicted slot becomes the spare for the next new id, so churn allocates nothing.
        """
        cdef _Slot spare = self.spare
        cdef _Slot old
        if spare is None:
            spare = _Slot.__new__(_Slot)
            self.spare = spare
        found = self.index.setdefault(key, spare)
        if found is not spare:
            return <_Slot>found
        self.spare = None
        spare.key = key
        spare.count = 0
        spare.ceiling = -1
        self.link(spare)
        if len(self.index) > bound:  # evicting after the insert leaves the same state
            old = self.pop_first()
            old.key = None
            self.spare = old
        return spare

    def __dealloc__(self):
        # break the links iteratively (slots are not tracked by the cycle collector)
        cdef _Slot slot = self.first
        cdef _Slot following
        while slot is not None:
            following = slot.next
            slot.prev = None
            slot.next = None
            slot = following
        self.first = None
        self.last = None


@cython.final
cdef class RetryTracker:
    """Per-message retry budget with bounded attempt and permanent-failure tracking."""

    cdef Py_ssize_t _max_retries
    cdef Py_ssize_t _max_tracked
    cdef _Queue _attempts
    cdef _Queue _failed

    __module__ = "band_sdk_core"

    def __cinit__(self, *args, **kwargs):
        self._attempts = _Queue()
        self._failed = _Queue()

    def __init__(self, max_retries=1, max_tracked=10_000):
        """Create a tracker allowing ``max_retries`` retries, tracking ``max_tracked`` ids."""
        # every argument is converted before any is range-checked (the reference's order)
        retries_in = operator.index(max_retries)
        tracked_in = operator.index(max_tracked)
        self._max_retries = _check_range(retries_in, "max_retries", 0)
        self._max_tracked = _check_range(tracked_in, "max_tracked", 1)

    def __reduce_ex__(self, protocol):
        """Refuse pickling and copying."""
        refuse_pickle(self)

    def __reduce__(self):
        """Refuse pickling and copying."""
        refuse_pickle(self)

    def __copy__(self):
        """Refuse copying."""
        refuse_pickle(self)

    def __deepcopy__(self, memo):
        """Refuse copying."""
        refuse_pickle(self)

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

    cdef inline Py_ssize_t _limit(self, _Slot slot):
        """The effective ceiling of a tracked id: the stricter of ours and a restored one."""
        if 0 <= slot.ceiling < self._max_retries:
            return slot.ceiling
        return self._max_retries

    cdef int _add_failed(self, object message_id) except -1:
        """Insert into the bounded permanently-failed set (FIFO eviction, no refresh)."""
        self._failed.add(message_id, self._max_tracked)  # present: no refresh
        return 0

    def record_attempt(self, message_id):
        """Count one attempt; return ``(count, exhausted)``."""
        if type(message_id) is not str:
            _check_message_id(message_id)
        cdef _Slot slot = self._attempts.add(message_id, self._max_tracked)
        slot.count += 1
        cdef Py_ssize_t count = slot.count
        cdef bint exhausted = count > self._limit(slot)
        if exhausted:
            self._add_failed(message_id)
        return (count, exhausted)

    def is_permanently_failed(self, message_id):
        """Whether the message is in the permanently-failed set."""
        if type(message_id) is not str:
            _check_message_id(message_id)
        return message_id in self._failed.index

    def mark_permanently_failed(self, message_id):
        """Add the message to the permanently-failed set."""
        if type(message_id) is not str:
            _check_message_id(message_id)
        self._add_failed(message_id)

    def mark_success(self, message_id):
        """Forget the message's attempt count."""
        if type(message_id) is not str:
            _check_message_id(message_id)
        self._attempts.take(message_id)

    def discard_attempt(self, message_id):
        """Undo one attempt (saturating); the entry goes away at zero."""
        if type(message_id) is not str:
            _check_message_id(message_id)
        cdef _Slot slot = self._attempts.find(message_id)
        if slot is None:
            return
        if slot.count <= 1:
            self._attempts.take(message_id)
        else:
            slot.count -= 1

    def _attempt_count(self, message_id):
        """The current attempt count (0 when untracked)."""
        cdef _Slot slot = self._attempts.find(message_id)
        return 0 if slot is None else slot.count

    def _ceiling(self, message_id):
        """The effective retry ceiling: the stricter of ours and a restored one."""
        cdef _Slot slot = self._attempts.find(message_id)
        return self._max_retries if slot is None else self._limit(slot)

    def _restore_attempts(self, message_id, Py_ssize_t attempts, Py_ssize_t ceiling):
        """Raise the count to ``attempts`` under the stricter ceiling; mark failed at it."""
        cdef _Slot slot = self._attempts.add(message_id, self._max_tracked)  # new: count 0
        if attempts > slot.count:
            slot.count = attempts
        if slot.ceiling < 0 or ceiling < slot.ceiling:
            slot.ceiling = ceiling
        if slot.count >= self._limit(slot):
            self._add_failed(message_id)
