# cython: annotation_typing=False
"""ClaimRegistry: in-flight, pending-settlement and completed state per room."""

from __future__ import annotations

import operator
from typing import TYPE_CHECKING, Any

from ._base import read_only, refuse_copy, refuse_subclasses
from ._enums import ParkedReason, not_instance_message
from ._errors import check_trace_context, validation_error

if TYPE_CHECKING:
    from .retry import RetryTracker

if TYPE_CHECKING or __name__ != "band_sdk_core._claims_c":
    from collections import OrderedDict

    class _Ordered(OrderedDict[str, None]):
        """OrderedDict with the compiled OrderedMap's ``push`` and ``refresh``."""

        __slots__ = ()

        def push(self, key: str, bound: int) -> None:
            """Move ``key`` to the back, or add it there and drop the oldest beyond ``bound``."""
            if key in self:
                self.move_to_end(key)
            else:
                self[key] = None
                if len(self) > bound:
                    self.popitem(False)

        def refresh(self, key: str) -> bool:
            """Move ``key`` to the back if present; return whether it was."""
            if key in self:
                self.move_to_end(key)
                return True
            return False

else:  # the compiled twin keeps the same order in a typed C-level map
    from ._ordered_c import OrderedMap as _Ordered

__all__ = ["ClaimRegistry"]

_U32_MAX = 4294967295
_CONFLICT = (
    "error",
    "invalid_value",
    "the message already has a different pending terminal intent",
)
_FACTS_ERROR = "delivery facts must be bool values"


def _str(value: object) -> str:
    """A str argument as an exact str (the reference keeps only the characters); else TypeError."""
    if type(value) is str:
        return value
    if not isinstance(value, str):
        raise TypeError(not_instance_message(value, "str"))
    return str.__str__(value)


_tracker_class: type | None = None


def _check_tracker(value: object) -> None:
    """Reject anything but the active RetryTracker class (the facade's, resolved on first use)."""
    global _tracker_class
    tracker = _tracker_class
    if tracker is None:
        # Imported lazily: _compat imports this module before the facade may be bound.
        from .retry import RetryTracker

        tracker = _tracker_class = RetryTracker
    if not isinstance(value, tracker):
        raise TypeError(not_instance_message(value, "RetryTracker"))


def _check_trace(value: object) -> None:
    """Reject a trace context that is neither a str nor None (a C check in the compiled twin)."""
    if value is not None and not isinstance(value, str):
        check_trace_context(value)  # raises, in the shared wording


def _check_fact(value: object) -> None:
    """Reject a delivery fact that is not a bool."""
    if value is not True and value is not False:
        raise TypeError(_FACTS_ERROR)


def _check_reason(value: object) -> None:
    """Reject anything but a ParkedReason member."""
    if not isinstance(value, ParkedReason):
        raise TypeError(not_instance_message(value, "ParkedReason"))


class _Entry:
    """One pending terminal intent."""

    __slots__ = ("attempts", "error", "failed", "max_retries", "parked", "serial", "text")

    failed: bool
    error: str | None
    parked: ParkedReason | None
    serial: int  # the token's number
    text: str | None  # the token, once someone asked for it
    attempts: int  # < 0: a ``finished`` continuation
    max_retries: int

    def token(self) -> str:
        """The token string (made on first use: most intents are never asked for theirs)."""
        text = self.text
        if text is None:
            # formatted, not str(): the compiled twin formats the C integer without an int object
            text = self.text = f"{self.serial}"
        return text

    def ack_view(self) -> dict[str, Any]:
        """The PendingAck dict."""
        parked = None if self.parked is None else self.parked.wire_name
        if self.failed:
            return {"status": "failed", "error": self.error, "parked": parked}
        return {"status": "processed", "parked": parked}

    def settlement_view(self) -> dict[str, Any]:
        """The PendingSettlement dict."""
        parked = None if self.parked is None else self.parked.wire_name
        continuation: dict[str, Any]
        if self.attempts < 0:
            continuation = {"kind": "finished"}
        else:
            continuation = {
                "kind": "retry",
                "attempts": self.attempts,
                "max_retries": self.max_retries,
            }
        if self.failed:
            return {
                "token": self.token(),
                "status": "failed",
                "error": self.error,
                "parked": parked,
                "continuation": continuation,
            }
        return {
            "token": self.token(),
            "status": "processed",
            "parked": parked,
            "continuation": continuation,
        }


class _Room:
    """One room's state: in-flight ids, pending entries and completed ids."""

    __slots__ = ("completed", "inflight", "pending")

    inflight: set[str]
    pending: dict[str, _Entry]  # creation order; kept when emptied, for the room's next intent
    # oldest first, made on first use; OrderedDict evicts and refreshes in O(1) at any size
    completed: _Ordered | None


def _pending_entry(room: _Room | None, message_id: str) -> _Entry | None:
    """The room's pending entry for the message, if any."""
    if room is None or not room.pending:
        return None
    return room.pending.get(message_id)


class ClaimRegistry:
    """Ownership ledger for inbound delivery: in-flight, pending and completed per room."""

    __slots__ = (
        "_last_id",
        "_last_room",
        "_max_completed",
        "_next_token",
        "_retries",
        "_rooms",
    )
    __module__ = "band_sdk_core"
    __init_subclass__ = refuse_subclasses

    def __init__(self, max_completed: int = 500) -> None:
        """Create a registry keeping ``max_completed`` completed ids per room."""
        number = operator.index(max_completed)
        if number < 1 or number > _U32_MAX:
            raise ValueError(
                f"`max_completed` must be an integer between 1 and {_U32_MAX}, got {number}"
            )
        self._max_completed: int = int(number)
        # one entry per room holding anything: each call looks its room up once
        self._rooms: dict[str, _Room] = {}
        # the room of the last call (calls come in runs on one room): an identity test instead
        # of a lookup; None once that room is removed
        self._last_id: object = None
        self._last_room: _Room | None = None
        self._retries: dict[tuple[str, str], int] = {}
        self._next_token: int = 0

    __reduce_ex__ = __reduce__ = __copy__ = __deepcopy__ = refuse_copy

    @property
    def max_completed(self) -> int:
        """Completed-list capacity per room."""
        return self._max_completed

    @max_completed.setter
    def max_completed(self, value: object) -> None:
        read_only(self, "max_completed")

    @max_completed.deleter
    def max_completed(self) -> None:
        read_only(self, "max_completed")

    # -- internal helpers -------------------------------------------------

    def _room(self, room_id: str) -> _Room | None:
        """The room's state, or None when it has none (never created here)."""
        if room_id is self._last_id:
            return self._last_room
        room = self._rooms.get(room_id)
        if room is not None:
            self._last_id = room_id
            self._last_room = room
        return room

    def _new_room(self, room_id: str) -> _Room:
        """Create and index the state of a room that has none."""
        # __new__ and plain stores, not a constructor call: the compiled twin's fast allocation
        room: _Room = _Room.__new__(_Room)
        room.inflight = set()
        room.pending = {}
        room.completed = None
        self._rooms[room_id] = room
        self._last_id = room_id
        self._last_room = room
        return room

    def _prune(self, room_id: str, room: _Room) -> None:
        """Remove the room's state once it holds nothing (so rooms left behind are not kept)."""
        if not room.inflight and not room.pending and room.completed is None:
            del self._rooms[room_id]
            if room is self._last_room:
                self._last_id = None
                self._last_room = None

    def _new_entry(
        self,
        room: _Room,
        message_id: str,
        failed: bool,
        error: str | None,
        attempts: int,
        max_retries: int,
    ) -> _Entry:
        """Create and store a pending entry with a fresh token."""
        entry: _Entry = _Entry.__new__(_Entry)
        entry.failed = failed
        entry.error = error
        entry.parked = None
        entry.serial = self._next_token
        entry.text = None
        entry.attempts = attempts
        entry.max_retries = max_retries
        self._next_token += 1
        room.pending[message_id] = entry
        return entry

    def _is_completed(self, room: _Room | None, message_id: str) -> bool:
        """Whether the message is completed; a hit refreshes its LRU position."""
        if room is None:
            return False
        completed = room.completed
        return completed is not None and completed.refresh(message_id)

    def _push_completed(self, room: _Room, message_id: str) -> None:
        """Append/refresh in the room's completed list."""
        completed = room.completed
        if completed is None:
            completed = room.completed = _Ordered()
        completed.push(message_id, self._max_completed)

    def _complete(self, room: _Room, room_id: str, message_id: str) -> None:
        """Append/refresh in the completed list; drop pending entry and retry counter."""
        self._push_completed(room, message_id)
        if room.pending:
            room.pending.pop(message_id, None)
        if self._retries:  # no counters (the common case): skip building the key
            self._retries.pop((room_id, message_id), None)

    def _room_count(self) -> int:
        """How many rooms hold state (the tests' view of the memory bound)."""
        return len(self._rooms)

    # -- claims and completion ------------------------------------------

    def try_claim(self, room_id: str, message_id: str) -> bool:
        """Claim the message unless it is already in flight (completion is not consulted)."""
        room_id = _str(room_id)
        message_id = _str(message_id)
        room = self._room(room_id)
        if room is None:
            room = self._new_room(room_id)
        elif message_id in room.inflight:
            return False
        room.inflight.add(message_id)
        return True

    def release(self, room_id: str, message_id: str) -> None:
        """Drop the in-flight claim."""
        room_id = _str(room_id)
        message_id = _str(message_id)
        room = self._room(room_id)
        if room is not None:
            inflight = room.inflight
            inflight.discard(message_id)
            if not inflight:
                self._prune(room_id, room)

    def inflight_ids(self, room_id: str) -> list[str]:
        """In-flight ids of the room (unordered)."""
        room_id = _str(room_id)
        room = self._room(room_id)
        return [] if room is None else list(room.inflight)

    def is_completed(self, room_id: str, message_id: str) -> bool:
        """Whether the message is locally completed (a hit refreshes its LRU position)."""
        room_id = _str(room_id)
        message_id = _str(message_id)
        return self._is_completed(self._room(room_id), message_id)

    def completed_ids(self, room_id: str) -> list[str]:
        """Completed ids of the room, oldest first."""
        room_id = _str(room_id)
        room = self._room(room_id)
        if room is None or room.completed is None:
            return []
        return list(room.completed)

    def discard_completed(self, room_id: str) -> None:
        """Forget the room's completed list."""
        room_id = _str(room_id)
        room = self._room(room_id)
        if room is not None:
            room.completed = None
            self._prune(room_id, room)

    def remember_completed(self, room_id: str, message_id: str) -> None:
        """Mark completed; clears the pending entry and the ack-retry counter."""
        room_id = _str(room_id)
        message_id = _str(message_id)
        room = self._room(room_id)
        if room is None:
            room = self._new_room(room_id)
        self._complete(room, room_id, message_id)

    # -- ack-pending API ---------------------------------------------------

    def is_ack_pending(self, room_id: str, message_id: str) -> bool:
        """Whether a pending entry exists."""
        room_id = _str(room_id)
        message_id = _str(message_id)
        return _pending_entry(self._room(room_id), message_id) is not None

    def remember_ack_pending(self, room_id: str, message_id: str) -> None:
        """Record a processed intent unless one already exists."""
        room_id = _str(room_id)
        message_id = _str(message_id)
        room = self._room(room_id)
        if room is None:
            room = self._new_room(room_id)
        elif _pending_entry(room, message_id) is not None:
            return
        self._new_entry(room, message_id, False, None, -1, 0)

    def remember_failed_ack_pending(
        self, room_id: str, message_id: str, error: str, trace_context: str | None = None
    ) -> None:
        """Record a failed intent; a different existing intent raises ValueError."""
        room_id = _str(room_id)
        message_id = _str(message_id)
        error = _str(error)
        _check_trace(trace_context)
        room = self._room(room_id)
        entry = _pending_entry(room, message_id)
        if entry is None:
            if room is None:
                room = self._new_room(room_id)
            self._new_entry(room, message_id, True, error, -1, 0)
        elif not (entry.failed and entry.error == error):
            raise validation_error([_CONFLICT], trace_context)

    def pending_ack(self, room_id: str, message_id: str) -> dict[str, Any] | None:
        """The PendingAck view of the entry, or None."""
        room_id = _str(room_id)
        message_id = _str(message_id)
        entry = _pending_entry(self._room(room_id), message_id)
        return None if entry is None else entry.ack_view()

    def park_ack(self, room_id: str, message_id: str, reason: ParkedReason) -> bool:
        """Park the entry with ``reason``; False when there is none."""
        room_id = _str(room_id)
        message_id = _str(message_id)
        _check_reason(reason)
        entry = _pending_entry(self._room(room_id), message_id)
        if entry is None:
            return False
        entry.parked = reason
        return True

    def unpark_acks(self, room_id: str) -> int:
        """Unpark every entry of the room; return how many were parked."""
        room_id = _str(room_id)
        room = self._room(room_id)
        count = 0
        if room is not None:
            for entry in room.pending.values():
                if entry.parked is not None:
                    entry.parked = None
                    count += 1
        return count

    def pending_ack_ids(self, room_id: str) -> list[str]:
        """Pending ids of the room, creation order."""
        room_id = _str(room_id)
        room = self._room(room_id)
        return [] if room is None else list(room.pending)

    def record_ack_retry(self, room_id: str, message_id: str) -> int:
        """Increment and return the ack-retry counter."""
        room_id = _str(room_id)
        message_id = _str(message_id)
        key = (room_id, message_id)
        count = self._retries.get(key, 0) + 1
        self._retries[key] = count
        return count

    # -- fenced settlement API --------------------------------------------

    def record_processed_settlement(
        self, room_id: str, message_id: str, trace_context: str | None = None
    ) -> dict[str, Any]:
        """Record (or return the existing) processed intent."""
        room_id = _str(room_id)
        message_id = _str(message_id)
        _check_trace(trace_context)
        room = self._room(room_id)
        entry = _pending_entry(room, message_id)
        if entry is None:
            if room is None:
                room = self._new_room(room_id)
            entry = self._new_entry(room, message_id, False, None, -1, 0)
        elif entry.failed:
            raise validation_error([_CONFLICT], trace_context)
        return entry.settlement_view()

    def record_failed_settlement(
        self,
        room_id: str,
        message_id: str,
        error: str,
        retry_tracker: RetryTracker,
        allow_retry: bool,
        trace_context: str | None = None,
    ) -> dict[str, Any]:
        """Record (or return the identical existing) failed intent with its continuation."""
        room_id = _str(room_id)
        message_id = _str(message_id)
        error = _str(error)
        _check_tracker(retry_tracker)
        if allow_retry is not True and allow_retry is not False:
            raise TypeError(not_instance_message(allow_retry, "bool"))
        _check_trace(trace_context)
        tracker = retry_tracker  # typed in the compiled twin: its calls are C calls
        room = self._room(room_id)
        entry = _pending_entry(room, message_id)
        if entry is None:
            attempts = tracker._attempt_count(message_id)
            ceiling = tracker._ceiling(message_id)
            if room is None:
                room = self._new_room(room_id)
            if allow_retry and attempts < ceiling:
                entry = self._new_entry(room, message_id, True, error, attempts, ceiling)
            else:
                entry = self._new_entry(room, message_id, True, error, -1, 0)
        elif not (entry.failed and entry.error == error):
            raise validation_error([_CONFLICT], trace_context)
        return entry.settlement_view()

    def pending_settlement(
        self, room_id: str, message_id: str, trace_context: str | None = None
    ) -> dict[str, Any] | None:
        """The PendingSettlement view of the entry, or None."""
        room_id = _str(room_id)
        message_id = _str(message_id)
        _check_trace(trace_context)
        entry = _pending_entry(self._room(room_id), message_id)
        return None if entry is None else entry.settlement_view()

    def confirm_settlement(
        self, room_id: str, message_id: str, token: str, retry_tracker: RetryTracker
    ) -> bool:
        """Apply the entry whose token matches; False when absent or stale."""
        room_id = _str(room_id)
        message_id = _str(message_id)
        token = _str(token)
        _check_tracker(retry_tracker)
        tracker = retry_tracker  # typed in the compiled twin: its calls are C calls
        room = self._room(room_id)
        entry = _pending_entry(room, message_id)
        if room is None or entry is None or entry.token() != token:
            return False
        del room.pending[message_id]
        if self._retries:
            self._retries.pop((room_id, message_id), None)
        if not entry.failed:
            self._push_completed(room, message_id)
            tracker.mark_success(message_id)
        elif entry.attempts < 0:
            self._push_completed(room, message_id)
            tracker.mark_permanently_failed(message_id)
            tracker.mark_success(message_id)
        else:
            # the message stays incomplete: the room may now hold nothing
            self._prune(room_id, room)
            tracker._restore_attempts(message_id, entry.attempts, entry.max_retries)
        return True

    def park_settlement(
        self, room_id: str, message_id: str, token: str, reason: ParkedReason
    ) -> bool:
        """Park the entry when ``token`` matches."""
        room_id = _str(room_id)
        message_id = _str(message_id)
        token = _str(token)
        _check_reason(reason)
        entry = _pending_entry(self._room(room_id), message_id)
        if entry is None or entry.token() != token:
            return False
        entry.parked = reason
        return True

    def has_retryable_settlement(self, room_id: str) -> bool:
        """Whether the room has an unparked pending entry."""
        room_id = _str(room_id)
        room = self._room(room_id)
        if room is not None:
            for entry in room.pending.values():
                if entry.parked is None:
                    return True
        return False

    # -- delivery eligibility -------------------------------------------

    def _eligibility(
        self,
        room_id: str,
        message_id: str,
        retry_tracker: RetryTracker,
        self_echo: bool,
        durably_processed: bool,
        durably_failed: bool,
        allow_failed_retry: bool,
        claim: bool,
    ) -> str:
        """Check the arguments, apply the eligibility rules, claim a runnable message if asked."""
        room_id = _str(room_id)
        message_id = _str(message_id)
        _check_tracker(retry_tracker)
        tracker = retry_tracker  # typed in the compiled twin: its calls are C calls
        _check_fact(self_echo)
        _check_fact(durably_processed)
        _check_fact(durably_failed)
        _check_fact(allow_failed_retry)
        if self_echo:
            return "self"
        room = self._room(room_id)
        if _pending_entry(room, message_id) is not None:
            return "pending"
        if self._is_completed(room, message_id) or durably_processed:
            return "completed"
        if tracker.is_permanently_failed(message_id):
            return "exhausted"
        if durably_failed and not allow_failed_retry:
            return "failed"
        if room is None:
            if claim:
                self._new_room(room_id).inflight.add(message_id)
        elif message_id in room.inflight:
            return "inflight"
        elif claim:
            room.inflight.add(message_id)
        return "runnable"

    def delivery_eligibility(
        self,
        room_id: str,
        message_id: str,
        retry_tracker: RetryTracker,
        *,
        self_echo: bool = False,
        durably_processed: bool = False,
        durably_failed: bool = False,
        allow_failed_retry: bool = True,
    ) -> str:
        """Classify whether the message may run now (pure query)."""
        return self._eligibility(
            room_id,
            message_id,
            retry_tracker,
            self_echo,
            durably_processed,
            durably_failed,
            allow_failed_retry,
            False,
        )

    def guarded_claim(
        self,
        room_id: str,
        message_id: str,
        retry_tracker: RetryTracker,
        *,
        self_echo: bool = False,
        durably_processed: bool = False,
        durably_failed: bool = False,
        allow_failed_retry: bool = True,
    ) -> str:
        """Classify like ``delivery_eligibility`` and claim when runnable."""
        return self._eligibility(
            room_id,
            message_id,
            retry_tracker,
            self_echo,
            durably_processed,
            durably_failed,
            allow_failed_retry,
            True,
        )
