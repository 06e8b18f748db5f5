"""A room worker's queue: first in, first out, and a wait that ends at a deadline.

The worker waits on its queue under a deadline (the idle ``/next`` re-check, a stopped room's
probe) almost every message. ``asyncio.timeout`` around ``Queue.get`` arms and cancels a loop
timer per wait; here the waits share one (``Deadline``).
"""

from __future__ import annotations

import asyncio
from collections import deque
from typing import Generic, TypeVar

from band.runtime.rooms.deadline import Deadline

__all__ = ["Inbox"]

T = TypeVar("T")


class Inbox(Generic[T]):
    """One consumer's FIFO queue whose ``get`` gives up at a deadline (``TimeoutError``)."""

    def __init__(self) -> None:
        self._items: deque[T] = deque()
        self._waiter: asyncio.Future[None] | None = None
        self._deadline = Deadline()
        self._loop: asyncio.AbstractEventLoop | None = None  # the consumer's, from its first wait

    def __len__(self) -> int:
        return len(self._items)

    def put(self, item: T) -> None:
        """Append ``item`` and wake the waiting consumer."""
        self._items.append(item)
        waiter = self._waiter  # ``_wake``, inlined: a put per message
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    async def get(self, timeout: float) -> T:
        """The oldest item, waiting at most ``timeout`` seconds for one (else ``TimeoutError``)."""
        if not self._items:
            loop = self._loop
            if loop is None:  # a wait about every message: the loop is looked up once
                loop = self._loop = asyncio.get_running_loop()
            waiter = self._waiter = loop.create_future()
            self._deadline.arm(timeout, self._wake)
            try:
                await waiter
            finally:
                self._waiter = None
                self._deadline.cancel()
            if not self._items:
                raise TimeoutError
        return self._items.popleft()

    def _wake(self) -> None:
        """End the consumer's wait (an item came, or its deadline passed)."""
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    def close(self) -> None:
        """Drop the timer (the consumer has ended)."""
        self._deadline.close()
