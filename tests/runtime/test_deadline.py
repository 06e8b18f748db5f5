"""A room's shared timers: ``Deadline`` (one loop timer for many deadlines) and ``Inbox``.

Times are read off the loop's clock: a deadline is never reached early (a lower bound, exact
on any machine); the upper bounds only tell a timer re-armed for the right deadline from one
left at a much later one, with seconds of slack for a loaded host.
"""

from __future__ import annotations

import asyncio

import pytest

from band.runtime.rooms.deadline import Deadline
from band.runtime.rooms.inbox import Inbox


def test_deadline_calls_once_at_its_due_time() -> None:
    async def scenario() -> None:
        loop = asyncio.get_running_loop()
        deadline, fired = Deadline(), asyncio.Event()
        calls: list[float] = []

        def call() -> None:
            calls.append(loop.time())
            fired.set()

        start = loop.time()
        deadline.arm(0.05, call)
        await fired.wait()
        assert len(calls) == 1 and calls[0] >= start + 0.05

    asyncio.run(scenario())


def test_a_later_deadline_rearms_the_timer_an_earlier_one_left() -> None:
    """A cancelled early deadline's timer fires first; the later deadline is still kept."""

    async def scenario() -> None:
        loop = asyncio.get_running_loop()
        deadline, fired = Deadline(), asyncio.Event()
        early: list[float] = []
        deadline.arm(0.02, lambda: early.append(loop.time()))
        deadline.cancel()  # a fast turn ended; its timer stays armed
        start = loop.time()
        deadline.arm(0.2, fired.set)  # the next turn's, due after that timer
        await fired.wait()
        assert not early  # the cancelled call never ran
        assert loop.time() >= start + 0.2

    asyncio.run(scenario())


def test_an_earlier_deadline_replaces_a_later_timer() -> None:
    async def scenario() -> None:
        loop = asyncio.get_running_loop()
        deadline, fired = Deadline(), asyncio.Event()
        deadline.arm(30.0, lambda: pytest.fail("the replaced call ran"))
        start = loop.time()
        deadline.arm(0.05, fired.set)
        await asyncio.wait_for(fired.wait(), 10)  # not the 30 s timer
        assert loop.time() >= start + 0.05
        deadline.close()

    asyncio.run(scenario())


async def _handed_while_waiting(inbox: Inbox[str], timeout: float, item: str) -> None:
    """``item`` comes while ``inbox.get(timeout)`` waits, and ends that wait."""
    waiting = asyncio.ensure_future(inbox.get(timeout))
    await asyncio.sleep(0)
    inbox.put(item)
    assert await waiting == item


async def _times_out(inbox: Inbox[str], timeout: float) -> None:
    """An empty inbox's ``get(timeout)`` gives up, not before ``timeout`` (nor much after)."""
    loop = asyncio.get_running_loop()
    start = loop.time()
    with pytest.raises(TimeoutError):
        await asyncio.wait_for(inbox.get(timeout), timeout + 10)
    assert loop.time() >= start + timeout


def test_inbox_is_first_in_first_out_and_times_out_at_its_deadline() -> None:
    async def scenario() -> None:
        inbox: Inbox[str] = Inbox()
        inbox.put("a")
        inbox.put("b")
        assert len(inbox) == 2
        assert [await inbox.get(0.0), await inbox.get(0.0)] == ["a", "b"]
        # a wait that an item ends leaves its timer armed; the next, longer wait outlives it
        await _handed_while_waiting(inbox, 0.05, "c")
        await _times_out(inbox, 0.3)
        # a shorter wait after a long one is not held to the long one's timer
        await _handed_while_waiting(inbox, 30.0, "d")
        await _times_out(inbox, 0.05)
        inbox.close()

    asyncio.run(scenario())


def test_an_inbox_wait_cancelled_loses_no_item() -> None:
    async def scenario() -> None:
        inbox: Inbox[int] = Inbox()
        waiting = asyncio.ensure_future(inbox.get(30.0))
        await asyncio.sleep(0)
        waiting.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiting
        inbox.put(1)
        assert await inbox.get(0.0) == 1
        inbox.close()

    asyncio.run(scenario())
