# cython: language_level=3
"""Compiled twin of _decisions_py: DecisionRegistry with C-level tokens and queues.

_decisions_py.py is the readable source of behaviour and the pure fallback; this class
keeps the same registrations in the same order. Tokens come from a 64-bit SplitMix64
state in C; the unclaimed registrations are also linked in registration order (an
_ordered_c Chain), so the oldest unclaimed one, the count and evict_oldest cost O(1)
however many claimed ones precede them. CancelledDecisions and is_authorized_sender are
shared with the twin.
"""

cimport cython

from ._ordered_c cimport Chain, Link, chain_append, chain_unlink

from ._base import no_attribute, refuse_copy, refuse_setattr
from ._decisions_py import CancelledDecisions, _cancelled, _settings, is_authorized_sender
from ._enums import ClaimOutcome
from ._subscriptions_py import _text, _ticket

__all__ = ["CancelledDecisions", "DecisionRegistry", "is_authorized_sender"]

cdef object _CLAIMED = ClaimOutcome.Claimed
cdef object _ALREADY = ClaimOutcome.AlreadyClaimed
cdef object _STALE = ClaimOutcome.Stale
cdef object _U64_MAX = 0xFFFFFFFFFFFFFFFF
cdef const char* _HEX = b"0123456789abcdef"


@cython.final
@cython.freelist(64)
@cython.no_gc  # links only to entries; the chain breaks them itself
cdef class _Entry(Link):
    """One registration; unclaimed ones are linked in registration order."""

    cdef object token
    cdef object ticket
    cdef object room
    cdef bint claimed


@cython.final
cdef class DecisionRegistry:
    """Pending chat-mediated asks keyed by token, each registration named by a ticket."""

    cdef object _max_pending
    cdef Py_ssize_t _limit  # -1: no max_pending
    cdef unsigned long long _state
    cdef object _next_ticket
    cdef dict _entries  # token -> _Entry, registration order
    cdef Chain _unclaimed  # the unclaimed entries, oldest first (it breaks its links itself)

    __module__ = "band_sdk_core"

    def __cinit__(self, *args, **kwargs):
        self._entries = {}
        self._unclaimed = Chain.__new__(Chain)
        self._next_ticket = 0
        self._limit = -1

    def __init__(self, *, max_pending=None, seed=None):
        """Create an empty registry; ``seed`` fixes the minted-token sequence."""
        limit, state = _settings(max_pending, seed)
        self._max_pending = limit
        self._limit = -1 if limit is None else limit
        self._state = state

    __reduce_ex__ = __reduce__ = __copy__ = __deepcopy__ = refuse_copy

    def __setattr__(self, name, value):
        refuse_setattr(self, name, value)

    def __delattr__(self, name):
        refuse_setattr(self, name)

    def __getattr__(self, name):
        no_attribute(self, name)

    @property
    def max_pending(self):
        """The entry count at which evict_oldest starts evicting, or None."""
        return self._max_pending

    # -- registration -----------------------------------------------------------------

    cdef object _issue(self):
        """Consume and return the next ticket."""
        ticket = self._next_ticket
        self._next_ticket = ticket + 1
        return ticket

    cdef object _mint(self):
        """Draw tokens until one is not currently registered."""
        cdef unsigned long long state = self._state
        cdef unsigned long long z
        cdef unsigned int low
        cdef char buf[8]
        cdef int i
        if len(self._entries) > 0xFFFFFFFF:
            return None
        while True:
            state += 0x9E3779B97F4A7C15ULL  # wraps mod 2**64
            z = state
            z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL
            z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL
            low = <unsigned int>((z ^ (z >> 31)) & 0xFFFFFFFFULL)
            for i in range(8):
                buf[7 - i] = _HEX[low & 15]
                low >>= 4
            token = buf[:8].decode("ascii")
            if token not in self._entries:
                break
        self._state = state
        return token

    def register_minted(self, room_id=None):
        """Register a new ask under a freshly minted token; return ``(token, ticket)``."""
        room = None if room_id is None else _text(room_id)
        token = self._mint()
        if token is None:
            return None
        cdef _Entry entry = _Entry.__new__(_Entry)
        entry.token = token
        entry.ticket = self._issue()
        entry.room = room
        self._entries[token] = entry
        chain_append(self._unclaimed, entry)
        return (token, entry.ticket)

    def register_keyed(self, key):
        """Register (or re-register, if unclaimed) an ask under ``key``."""
        token = _text(key)
        found = self._entries.get(token)
        cdef _Entry entry
        if found is not None:
            entry = <_Entry>found
            if entry.claimed:
                return None
            entry.ticket = self._issue()  # unclaimed: it keeps its position
            entry.room = None
            return (token, entry.ticket)
        entry = _Entry.__new__(_Entry)
        entry.token = token
        entry.ticket = self._issue()
        self._entries[token] = entry
        chain_append(self._unclaimed, entry)
        return (token, entry.ticket)

    cdef _Entry _current(self, object token, object ticket):
        """The entry registered under exactly ``token`` and ``ticket``, or None."""
        key = _text(token) if type(token) is not str else token
        if type(ticket) is int and 0 <= ticket <= _U64_MAX:
            tk = ticket
        else:
            tk = _ticket(ticket)
        found = self._entries.get(key)
        if found is None or (<_Entry>found).ticket != tk:
            return None
        return <_Entry>found

    def try_claim(self, token, ticket):
        """Claim the registration; the first claimant wins."""
        cdef _Entry entry = self._current(token, ticket)
        if entry is None:
            return _STALE
        if entry.claimed:
            return _ALREADY
        entry.claimed = True
        chain_unlink(self._unclaimed, entry)
        return _CLAIMED

    def withdraw(self, token, ticket):
        """Remove the registration if it is still unclaimed."""
        cdef _Entry entry = self._current(token, ticket)
        if entry is None or entry.claimed:
            return False
        del self._entries[entry.token]
        chain_unlink(self._unclaimed, entry)
        return True

    def forget(self, token, ticket):
        """Remove the registration whether or not it was claimed."""
        cdef _Entry entry = self._current(token, ticket)
        if entry is None:
            return False
        del self._entries[entry.token]
        if not entry.claimed:
            chain_unlink(self._unclaimed, entry)
        return True

    # -- queries ----------------------------------------------------------------------

    def unclaimed(self):
        """Return the unclaimed tokens, oldest first."""
        cdef list tokens = []
        cdef Link link = self._unclaimed.first
        while link is not None:
            tokens.append((<_Entry>link).token)
            link = link.next
        return tokens

    def unclaimed_in_room(self, room_id):
        """Return the unclaimed tokens minted for ``room_id``, oldest first."""
        room = _text(room_id)
        cdef list tokens = []
        cdef Link link = self._unclaimed.first
        cdef _Entry entry
        while link is not None:
            entry = <_Entry>link
            if entry.room is not None and entry.room == room:
                tokens.append(entry.token)
            link = link.next
        return tokens

    def unclaimed_count(self):
        """Return how many registrations are unclaimed."""
        return self._unclaimed.size

    def oldest_unclaimed(self):
        """Return the oldest unclaimed token, or None."""
        return None if self._unclaimed.first is None else (<_Entry>self._unclaimed.first).token

    def evict_oldest(self):
        """At capacity, remove and return the oldest unclaimed token; else None."""
        if self._limit < 0 or len(self._entries) < self._limit or self._unclaimed.first is None:
            return None
        cdef _Entry entry = <_Entry>self._unclaimed.first
        del self._entries[entry.token]
        chain_unlink(self._unclaimed, entry)
        return entry.token

    # -- cancellation -----------------------------------------------------------------

    cdef object _cancel(self, object room, bint every):
        """Remove every entry (or every entry of ``room``) and report them."""
        cdef list unclaimed = []
        cdef list claimed = []
        cdef _Entry entry
        for found in list(self._entries.values()):
            entry = <_Entry>found
            if every or (entry.room is not None and entry.room == room):
                if entry.claimed:
                    claimed.append(entry.token)
                else:
                    unclaimed.append(entry.token)
                    chain_unlink(self._unclaimed, entry)
                if not every:
                    del self._entries[entry.token]
        if every:
            self._entries.clear()
        return _cancelled(unclaimed, claimed)

    def cancel_all(self):
        """Remove every registration."""
        return self._cancel(None, True)

    def cancel_room(self, room_id):
        """Remove every registration minted for ``room_id``."""
        return self._cancel(_text(room_id), False)
