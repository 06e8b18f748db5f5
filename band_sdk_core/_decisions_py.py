# cython: annotation_typing=False
"""DecisionRegistry, CancelledDecisions and is_authorized_sender (spec section 10).

The pure implementation and, compiled with _decisions_c.pxd, the compiled twin _decisions_c.
"""

from __future__ import annotations

import operator
import os
from typing import TYPE_CHECKING, Any, TypeVar

from . import _linked_py as _linked  # compiled: the _linked_c that _decisions_c.pxd cimports
from ._base import (
    no_attribute,
    refuse_copy,
    refuse_create,
    refuse_new,
    refuse_setattr,
    refuse_subclasses,
    word_missing_attributes,
)
from ._enums import ClaimOutcome, not_instance_message

# The id and ticket conversions are the subscriptions' rules (their pure-Python source).
from ._subscriptions_py import _text, _ticket


def _id(value: Any) -> str:
    """_text, with an exact ASCII str returned at once (the common id)."""
    # compiled, _text is a Python-level call into the pure module (a frame per call); this
    # check is C code there (text is a typed str: isascii is a direct C call)
    if type(value) is str:
        text: str = value
        if text.isascii():
            return text
    return _text(value)


#: True when this source runs compiled as ``_decisions_c`` (C attributes are set directly).
_COMPILED = __name__ != "band_sdk_core._decisions_py"
_T = TypeVar("_T")

if TYPE_CHECKING or not _COMPILED:

    def _allocate(base: type, cls: type[_T]) -> _T:
        """A new ``cls`` made by ``base.__new__`` (its constructor is never called)."""
        made: _T = base.__new__(cls)  # type: ignore[call-overload]
        return made

else:  # the compiled base's C constructor, without a Python-level __new__ call
    from ._typename_c import allocate as _allocate

__all__ = ["CancelledDecisions", "DecisionRegistry", "is_authorized_sender"]

_U32_MAX = 0xFFFFFFFF
#: the most entries a registry holds (u32::MAX; signed in C, compared with a signed len())
_ENTRIES_MAX = 0xFFFFFFFF
_U64_MAX = 0xFFFFFFFFFFFFFFFF
_TICKET_MAX = _U64_MAX  # a Python int in both twins: the compiled one compares without converting
_GOLDEN = 0x9E3779B97F4A7C15
_MIX1 = 0xBF58476D1CE4E5B9
_MIX2 = 0x94D049BB133111EB
_CLAIMED = ClaimOutcome.Claimed
_ALREADY = ClaimOutcome.AlreadyClaimed
_STALE = ClaimOutcome.Stale


def splitmix64(state: int) -> tuple[int, int]:
    """Advance a SplitMix64 state; return ``(new_state, output)``."""
    state = (state + _GOLDEN) & _U64_MAX
    z = state
    z = ((z ^ (z >> 30)) * _MIX1) & _U64_MAX
    z = ((z ^ (z >> 27)) * _MIX2) & _U64_MAX
    return state, z ^ (z >> 31)


class _Cancelled:
    """The fields of CancelledDecisions (compiled: a C type, built without Python calls)."""

    __slots__ = ("_claimed", "_unclaimed")
    __reduce_ex__ = __reduce__ = __copy__ = __deepcopy__ = refuse_copy

    _unclaimed: list[str]
    _claimed: list[str]

    def __init__(self, *args: object, **kwargs: object) -> None:
        """Refuse construction from Python."""
        refuse_create(CancelledDecisions)

    # def, not a bound helper: only a def fills the compiled type's setattr slot
    def __setattr__(self, name: str, value: object) -> None:
        refuse_setattr(self, name, value)

    def __delattr__(self, name: str) -> None:
        refuse_setattr(self, name)

    @property
    def unclaimed(self) -> list[str]:
        """Removed tokens nobody had claimed."""
        return list(self._unclaimed)

    @property
    def claimed(self) -> list[str]:
        """Removed tokens that had been claimed."""
        return list(self._claimed)


class CancelledDecisions(_Cancelled):
    """The registrations a cancellation removed, oldest first, split by claim state."""

    # the C base cannot refuse subclasses with the reference's message; this class can
    __slots__ = ()
    __module__ = "band_sdk_core"
    __init_subclass__ = refuse_subclasses
    __new__ = refuse_new  # _cancelled builds it through _Cancelled's constructor


word_missing_attributes(CancelledDecisions)


def _cancelled(unclaimed: list[str], claimed: list[str]) -> CancelledDecisions:
    """Build a CancelledDecisions without going through its constructor."""
    if _COMPILED:  # C fields: plain stores (object.__setattr__ was two Python-level calls)
        out: CancelledDecisions = _allocate(_Cancelled, CancelledDecisions)
        out._unclaimed = unclaimed
        out._claimed = claimed
        return out
    result: CancelledDecisions = _allocate(_Cancelled, CancelledDecisions)
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


class _Entry(_linked.Link):
    """One registration; the unclaimed ones are linked in registration order (the book)."""

    __slots__ = ("claimed", "room", "ticket", "token")

    token: str
    ticket: int
    room: str | None
    claimed: bool
    prev: _Entry | None
    next: _Entry | None


def _entry(token: str, ticket: int, room: str | None) -> _Entry:
    """A new unclaimed registration, linked nowhere yet."""
    # __new__ and plain stores, not a constructor call: the compiled twin's fast allocation
    entry: _Entry = _Entry.__new__(_Entry)
    entry.token = token
    entry.ticket = ticket
    entry.room = room
    entry.claimed = False
    entry.prev = entry.next = None
    return entry


class _Book(_linked.Chain):
    """The registry's changing state: token generator, next ticket, and (as the Chain) the
    unclaimed entries, oldest first.

    Kept apart from DecisionRegistry, whose attributes refuse assignment.
    """

    __slots__ = ("state", "ticket")

    first: _Entry | None
    last: _Entry | None

    def __init__(self, state: int) -> None:
        """Start with the SplitMix64 ``state``, ticket 0 and no unclaimed entry."""
        _linked.Chain.__init__(self)
        self.state = state
        self.ticket = 0

    def issue(self) -> int:
        """Consume and return the next ticket."""
        ticket = self.ticket
        self.ticket = ticket + 1
        return ticket


class DecisionRegistry:
    """Pending chat-mediated asks keyed by token, each registration named by a ticket."""

    __slots__ = ("_book", "_entries", "_limit", "_max_pending", "_rooms")
    __module__ = "band_sdk_core"
    __init_subclass__ = refuse_subclasses
    __reduce_ex__ = __reduce__ = __copy__ = __deepcopy__ = refuse_copy

    _max_pending: int | None
    _limit: int  # -1: no max_pending
    _entries: dict[str, _Entry]  # token -> entry, registration order
    # room -> (token -> entry, registration order): a room's asks without scanning the others
    _rooms: dict[str, dict[str, _Entry]]
    _book: _Book

    def __init__(self, *, max_pending: int | None = None, seed: int | None = None) -> None:
        """Create an empty registry; ``seed`` fixes the minted-token sequence."""
        limit, state = _settings(max_pending, seed)
        # assigned once, through each slot's own descriptor since __setattr__ refuses every
        # name (object.__setattr__ is refused on the compiled type); what changes is in _book
        slots = DecisionRegistry.__dict__
        slots["_max_pending"].__set__(self, limit)
        slots["_limit"].__set__(self, -1 if limit is None else limit)
        slots["_entries"].__set__(self, {})
        slots["_rooms"].__set__(self, {})
        slots["_book"].__set__(self, _Book(state))

    # def, not a bound helper: only a def fills the compiled type's setattr slot
    def __setattr__(self, name: str, value: object) -> None:
        refuse_setattr(self, name, value)

    def __delattr__(self, name: str) -> None:
        refuse_setattr(self, name)

    def __getattr__(self, name: str) -> Any:
        no_attribute(self, name)

    @property
    def max_pending(self) -> int | None:
        """The entry count at which evict_oldest starts evicting, or None."""
        return self._max_pending

    # -- registration -----------------------------------------------------------------

    def _mint(self) -> str | None:
        """Draw tokens until one is not currently registered."""
        entries = self._entries
        if len(entries) > _ENTRIES_MAX:
            return None
        book = self._book
        state = book.state
        while True:  # splitmix64(), inlined: the hot path of register_minted
            state = (state + _GOLDEN) & _U64_MAX
            z = ((state ^ (state >> 30)) * _MIX1) & _U64_MAX
            z = ((z ^ (z >> 27)) * _MIX2) & _U64_MAX
            low = (z ^ (z >> 31)) & _U32_MAX
            token = f"{low:08x}"
            if token not in entries:
                break
        book.state = state
        return token

    def register_minted(self, room_id: str | None = None) -> tuple[str, int] | None:
        """Register a new ask under a freshly minted token; return ``(token, ticket)``."""
        room = None if room_id is None else _id(room_id)
        token = self._mint()
        if token is None:
            return None
        entry = _entry(token, self._book.issue(), room)
        self._entries[token] = entry
        self._book.append(entry)
        if room is not None:
            members = self._rooms.get(room)
            if members is None:
                members = self._rooms[room] = {}
            members[token] = entry
        return (token, entry.ticket)

    def _unroom(self, entry: _Entry) -> None:
        """Take ``entry`` out of its room's index (if it has a room)."""
        room = entry.room
        if room is not None:
            members = self._rooms[room]
            del members[entry.token]
            if not members:
                del self._rooms[room]

    def register_keyed(self, key: str) -> tuple[str, int] | None:
        """Register (or re-register, if unclaimed) an ask under ``key``."""
        token = _id(key)
        entry = self._entries.get(token)
        if entry is not None:
            if entry.claimed:
                return None
            entry.ticket = self._book.issue()  # unclaimed: it keeps its position
            self._unroom(entry)
            entry.room = None
            return (token, entry.ticket)
        entry = _entry(token, self._book.issue(), None)
        self._entries[token] = entry
        self._book.append(entry)
        return (token, entry.ticket)

    def _current(self, token: Any, ticket: Any) -> _Entry | None:
        """The entry registered under exactly ``token`` and ``ticket``, or None."""
        key = _text(token) if type(token) is not str else token
        if type(ticket) is int and 0 <= ticket <= _TICKET_MAX:
            tk = ticket
        else:
            tk = _ticket(ticket)
        entry = self._entries.get(key)
        if entry is None or entry.ticket != tk:
            return None
        return entry

    def try_claim(self, token: str, ticket: int) -> ClaimOutcome:
        """Claim the registration; the first claimant wins."""
        entry = self._current(token, ticket)
        if entry is None:
            return _STALE
        if entry.claimed:
            return _ALREADY
        entry.claimed = True
        self._book.unlink(entry)
        return _CLAIMED

    def withdraw(self, token: str, ticket: int) -> bool:
        """Remove the registration if it is still unclaimed."""
        entry = self._current(token, ticket)
        if entry is None or entry.claimed:
            return False
        del self._entries[entry.token]
        self._unroom(entry)
        self._book.unlink(entry)
        return True

    def forget(self, token: str, ticket: int) -> bool:
        """Remove the registration whether or not it was claimed."""
        entry = self._current(token, ticket)
        if entry is None:
            return False
        del self._entries[entry.token]
        self._unroom(entry)
        if not entry.claimed:
            self._book.unlink(entry)
        return True

    # -- queries ----------------------------------------------------------------------

    def unclaimed(self) -> list[str]:
        """Return the unclaimed tokens, oldest first."""
        tokens: list[str] = []
        entry = self._book.first
        while entry is not None:
            tokens.append(entry.token)
            entry = entry.next
        return tokens

    def unclaimed_in_room(self, room_id: str) -> list[str]:
        """Return the unclaimed tokens minted for ``room_id``, oldest first."""
        members = self._rooms.get(_id(room_id))
        if members is None:
            return []
        return [entry.token for entry in members.values() if not entry.claimed]

    def unclaimed_count(self) -> int:
        """Return how many registrations are unclaimed."""
        return self._book.size

    def oldest_unclaimed(self) -> str | None:
        """Return the oldest unclaimed token, or None."""
        first = self._book.first
        return None if first is None else first.token

    def evict_oldest(self) -> str | None:
        """At capacity, remove and return the oldest unclaimed token; else None."""
        book = self._book
        entry = book.first
        if self._limit < 0 or len(self._entries) < self._limit or entry is None:
            return None
        del self._entries[entry.token]
        self._unroom(entry)
        book.unlink(entry)
        return entry.token

    # -- cancellation -----------------------------------------------------------------

    def _cancel(self, room: str | None, every: bool) -> CancelledDecisions:
        """Remove every entry (or every entry of ``room``) and report them."""
        unclaimed: list[str] = []
        claimed: list[str] = []
        entries = self._entries
        if every:
            matched = entries.copy()
            entries.clear()
            self._rooms.clear()
        else:  # the room's own index, in registration order: the other asks are not visited
            members = self._rooms.pop(room, None)  # type: ignore[arg-type]  # str when not every
            if members is None:
                return _cancelled(unclaimed, claimed)
            matched = members  # taken out of _rooms: iterated as it is, not copied
        for entry in matched.values():
            if entry.claimed:
                claimed.append(entry.token)
            else:
                unclaimed.append(entry.token)
                self._book.unlink(entry)
            if not every:
                del entries[entry.token]
        return _cancelled(unclaimed, claimed)

    def cancel_all(self) -> CancelledDecisions:
        """Remove every registration."""
        return self._cancel(None, True)

    def cancel_room(self, room_id: str) -> CancelledDecisions:
        """Remove every registration minted for ``room_id``."""
        return self._cancel(_id(room_id), False)


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
