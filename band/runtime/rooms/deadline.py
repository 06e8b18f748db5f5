"""A deadline that moves often (one per message) on one loop timer, not a timer each.

A room's worker waits on its queue under a deadline almost every message, and its turns arm
the working indicator's delay; most of those deadlines are never reached (a message comes, the
turn ends). A loop timer armed and cancelled per message costs a handle, a heap push and a
cancelled entry the loop drops only when it is due. ``Deadline`` keeps one timer: it is armed
only when none would fire by the new due time; when it fires early (for a deadline set later),
it re-arms at that deadline; when the deadline was cancelled, it does nothing.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

__all__ = ["Deadline"]


class Deadline:
    """At most one pending call, due at a time that ``arm`` sets and ``cancel`` drops."""

    def __init__(self) -> None:
        self._timer: asyncio.TimerHandle | None = None
        self._call: Callable[[], None] | None = None  # the armed call, due at _due
        self._due = 0.0
        self._loop: asyncio.AbstractEventLoop | None = None  # the owner's, from the first arm

    def arm(self, delay: float, call: Callable[[], None]) -> Deadline:
        """Call ``call`` once ``delay`` seconds have passed, unless ``cancel`` (or another
        ``arm``, which replaces it) comes first; returns itself (what cancels it)."""
        loop = self._loop
        if loop is None:  # armed about every message: the loop is looked up once
            loop = self._loop = asyncio.get_running_loop()
        due = self._due = loop.time() + delay
        self._call = call
        timer = self._timer
        if timer is None or timer.when() > due:
            if timer is not None:
                timer.cancel()
            self._timer = loop.call_at(due, self._fire)
        return self

    def cancel(self) -> None:
        """Drop the armed call (its timer may still fire, and then does nothing)."""
        self._call = None

    def close(self) -> None:
        """Drop the armed call and the timer (the owner is done with it)."""
        self._call = None
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _fire(self) -> None:
        self._timer = None
        call = self._call
        if call is None:
            return  # cancelled: the next ``arm`` arms a timer again
        loop = asyncio.get_running_loop()
        if loop.time() >= self._due:
            self._call = None
            call()
        else:  # armed for an earlier deadline than the one set since
            self._timer = loop.call_at(self._due, self._fire)
