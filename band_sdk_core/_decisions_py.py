"""Pure-Python DecisionRegistry, CancelledDecisions and is_authorized_sender (spec section 10)."""

from __future__ import annotations

import operator
import os
from collections import OrderedDict
from typing import Any

from ._base import no_attribute, refuse_copy, refuse_new, refuse_setattr, refuse_subclasses
from ._enums import ClaimOutcome, not_instance_message

# The id and ticket conversions are the subscriptions' rules; their pure-Python source
# serves this module and its compiled twin (_decisions_c.pyx) as is.
from ._subscriptions_py import _text, _ticket

__all__ = ["CancelledDecisions", "DecisionRegistry", "is_authorized_sender"]

_U32_MAX = 0xFFFFFFFF
_U64_MAX = 0xFFFFFFFFFFFFFFFF
_GOLDEN = 0x9E3779B97F4A7C15
_MIX1 = 0xBF58476D1CE4E5B9
_MIX2 = 0x94D049BB133111EB

# entry layout: [ticket, room_id or None, claimed]
_TICKET = 0
_ROOM = 1
_CLAIMED = 2


def splitmix64(state: int) -> tuple[int, int]:
    """Advance a SplitMix64 state; return ``(new_state, output)``."""
    state = (state + _GOLDEN) & _U64_MAX
    z = state
    z = ((z ^ (z >> 30)) * _MIX1) & _U64_MAX
    z = ((z ^ (z >> 27)) * _MIX2) & _U64_MAX
    return state, z ^ (z >> 31)


class CancelledDecisions:
    """The registrations a cancellation removed, oldest first, split by claim state."""

    __slots__ = ("_claimed", "_unclaimed")
    __module__ = "band_sdk_core"
    __init_subclass__ = refuse_subclasses
    __new__ = refuse_new
    __setattr__ = __delattr__ = refuse_setattr
    __getattr__ = no_attribute
    __reduce_ex__ = __reduce__ = __copy__ = __deepcopy__ = refuse_copy

    _unclaimed: list[str]
    _claimed: list[str]

    @property
    def unclaimed(self) -> list[str]:
        """Removed tokens nobody had claimed."""
        return list(self._unclaimed)

    @property
    def claimed(self) -> list[str]:
        """Removed tokens that had been claimed."""
        return list(self._claimed)


def _cancelled(unclaimed: list[str], claimed: list[str]) -> CancelledDecisions:
    """Build a CancelledDecisions without going through its constructor."""
    result: CancelledDecisions = object.__new__(CancelledDecisions)
    object.__setattr__(result, "_unclaimed", unclaimed)
    object.__setattr__(result, "_claimed", claimed)
    return result


def _index(value: Any) -> int | None:
    """Convert an optional integer argument (None stays None)."""
    return None if value is None else int(operator.index(value))


def _bounded(number: int | None, name: str, low: int, high: int) -> int | None:
    """Check an already converted optional integer argument's range."""
    if number is not None and (number < low or number > high):
        raise ValueError(f"`{name}` must be an integer between {low} and {high}, got {number}")
    return number


def _settings(max_pending: Any, seed: Any) -> tuple[int | None, int]:
    """Check DecisionRegistry's arguments: ``(max_pending, SplitMix64 state)`` (both twins)."""
    # every argument is converted before any is range-checked (the reference's order)
    pending_in = _index(max_pending)
    seed_in = _index(seed)
    limit = _bounded(pending_in, "max_pending", 1, _U32_MAX)
    state = _bounded(seed_in, "seed", 0, _U64_MAX)
    if state is None:
        state = int.from_bytes(os.urandom(8), "little")
    return limit, state


class DecisionRegistry:
    """Pending chat-mediated asks keyed by token, each registration named by a ticket."""

    __slots__ = ("_entries", "_max_pending", "_next_ticket", "_state", "_unclaimed")
    __module__ = "band_sdk_core"
    __init_subclass__ = refuse_subclasses
    __setattr__ = __delattr__ = refuse_setattr
    __getattr__ = no_attribute
    __reduce_ex__ = __reduce__ = __copy__ = __deepcopy__ = refuse_copy

    _max_pending: int | None
    _state: int
    _next_ticket: int
    _entries: dict[str, list[Any]]
    # the unclaimed tokens in registration order, beside the entries: the oldest unclaimed
    # token, the count and evict_oldest are O(1) however many claimed entries precede them
    _unclaimed: OrderedDict[str, None]

    def __init__(self, *, max_pending: int | None = None, seed: int | None = None) -> None:
        """Create an empty registry; ``seed`` fixes the minted-token sequence."""
        limit, state = _settings(max_pending, seed)
        object.__setattr__(self, "_max_pending", limit)
        object.__setattr__(self, "_state", state)
        object.__setattr__(self, "_next_ticket", 0)
        object.__setattr__(self, "_entries", {})
        object.__setattr__(self, "_unclaimed", OrderedDict())

    @property
    def max_pending(self) -> int | None:
        """The entry count at which evict_oldest starts evicting, or None."""
        return self._max_pending

    def _issue(self) -> int:
        """Consume and return the next ticket."""
        ticket = self._next_ticket
        object.__setattr__(self, "_next_ticket", ticket + 1)
        return ticket

    def _mint(self) -> str | None:
        """Draw tokens until one is not currently registered."""
        entries = self._entries
        if len(entries) > _U32_MAX:
            return None
        state = self._state
        while True:  # splitmix64(), inlined: the hot path of register_minted
            state = (state + _GOLDEN) & _U64_MAX
            z = ((state ^ (state >> 30)) * _MIX1) & _U64_MAX
            z = ((z ^ (z >> 27)) * _MIX2) & _U64_MAX
            token = format((z ^ (z >> 31)) & _U32_MAX, "08x")
            if token not in entries:
                break
        object.__setattr__(self, "_state", state)
        return token

    def register_minted(self, room_id: str | None = None) -> tuple[str, int] | None:
        """Register a new ask under a freshly minted token; return ``(token, ticket)``."""
        room = None if room_id is None else _text(room_id)
        token = self._mint()
        if token is None:
            return None
        ticket = self._next_ticket
        object.__setattr__(self, "_next_ticket", ticket + 1)
        self._entries[token] = [ticket, room, False]
        self._unclaimed[token] = None
        return token, ticket

    def register_keyed(self, key: str) -> tuple[str, int] | None:
        """Register (or re-register, if unclaimed) an ask under ``key``."""
        token = _text(key)
        entry = self._entries.get(token)
        if entry is not None and entry[_CLAIMED]:
            return None
        ticket = self._issue()
        if entry is None:
            self._entries[token] = [ticket, None, False]
            self._unclaimed[token] = None
        else:  # unclaimed already: it keeps its position
            entry[_TICKET] = ticket
            entry[_ROOM] = None
        return token, ticket

    def _current(self, token: Any, ticket: Any) -> tuple[str, list[Any] | None]:
        """Convert the arguments and return the entry registered under exactly them."""
        key = _text(token)
        tk = _ticket(ticket)
        entry = self._entries.get(key)
        if entry is None or entry[_TICKET] != tk:
            return key, None
        return key, entry

    def try_claim(self, token: str, ticket: int) -> ClaimOutcome:
        """Claim the registration; the first claimant wins."""
        key, entry = self._current(token, ticket)
        if entry is None:
            return ClaimOutcome.Stale
        if entry[_CLAIMED]:
            return ClaimOutcome.AlreadyClaimed
        entry[_CLAIMED] = True
        del self._unclaimed[key]
        return ClaimOutcome.Claimed

    def withdraw(self, token: str, ticket: int) -> bool:
        """Remove the registration if it is still unclaimed."""
        key, entry = self._current(token, ticket)
        if entry is None or entry[_CLAIMED]:
            return False
        del self._entries[key]
        del self._unclaimed[key]
        return True

    def forget(self, token: str, ticket: int) -> bool:
        """Remove the registration whether or not it was claimed."""
        key, entry = self._current(token, ticket)
        if entry is None:
            return False
        del self._entries[key]
        self._unclaimed.pop(key, None)
        return True

    def unclaimed(self) -> list[str]:
        """Return the unclaimed tokens, oldest first."""
        return list(self._unclaimed)

    def unclaimed_in_room(self, room_id: str) -> list[str]:
        """Return the unclaimed tokens minted for ``room_id``, oldest first."""
        room = _text(room_id)
        entries = self._entries
        return [token for token in self._unclaimed if entries[token][_ROOM] == room]

    def unclaimed_count(self) -> int:
        """Return how many registrations are unclaimed."""
        return len(self._unclaimed)

    def oldest_unclaimed(self) -> str | None:
        """Return the oldest unclaimed token, or None."""
        return next(iter(self._unclaimed), None)  # the linked order: O(1)

    def evict_oldest(self) -> str | None:
        """At capacity, remove and return the oldest unclaimed token; else None."""
        limit = self._max_pending
        if limit is None or len(self._entries) < limit:
            return None
        if not self._unclaimed:
            return None
        token: str = self._unclaimed.popitem(False)[0]
        del self._entries[token]
        return token

    def _cancel(self, room: str | None, every: bool) -> CancelledDecisions:
        """Remove every entry (or every entry of ``room``) and report them."""
        unclaimed: list[str] = []
        claimed: list[str] = []
        for token, entry in self._entries.items():
            if every or (entry[_ROOM] is not None and entry[_ROOM] == room):
                if entry[_CLAIMED]:
                    claimed.append(token)
                else:
                    unclaimed.append(token)
        if every:
            self._entries.clear()
            self._unclaimed.clear()
        else:
            for token in unclaimed:
                del self._entries[token]
                del self._unclaimed[token]
            for token in claimed:
                del self._entries[token]
        return _cancelled(unclaimed, claimed)

    def cancel_all(self) -> CancelledDecisions:
        """Remove every registration."""
        return self._cancel(None, True)

    def cancel_room(self, room_id: str) -> CancelledDecisions:
        """Remove every registration minted for ``room_id``."""
        return self._cancel(_text(room_id), False)


def is_authorized_sender(
    authorized_senders: set[str] | frozenset[str] | None, sender_id: str | None
) -> bool:
    """Whether ``sender_id`` may answer: None admits anyone, a set only its members."""
    members: set[str] | None = None
    if authorized_senders is not None:
        if not isinstance(authorized_senders, (set, frozenset)):
            raise TypeError(not_instance_message(authorized_senders, "set"))
        members = {_text(item) for item in authorized_senders}
    sender = None if sender_id is None else _text(sender_id)
    if members is None:
        return True
    if sender is None:
        return False
    return sender in members
