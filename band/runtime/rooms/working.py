"""The room's "working" indicator while a turn runs: reported after a grace, kept alive, cleared."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable

from band.client.rest import RestClient, path
from band.core.wire import ActivityResponse
from band.runtime.rooms.deadline import Deadline
from band.runtime.sessionconfig import SessionConfig

__all__ = ["WorkingState"]

log = logging.getLogger("band.runtime.rooms.working")

#: Reports in flight (the loop keeps only weak references to tasks).
_pending: set[asyncio.Task[None]] = set()


def _track(task: asyncio.Task[None]) -> asyncio.Task[None]:
    _pending.add(task)
    task.add_done_callback(_pending.discard)
    return task


class WorkingState:
    """``async with WorkingState(...)`` around a turn; best effort, never raises.

    ``working: true`` goes out only once the turn has run ``working_indicator_delay_s`` (a fast
    turn's reply is its own signal and costs no indicator calls); ``working: false`` only if
    ``true`` was sent. When the platform answers ``working: false`` to our ``true``, the room's
    execution was stopped on the platform side: ``on_stopped`` is called once.
    """

    def __init__(
        self,
        rest: RestClient,
        room_id: str,
        config: SessionConfig,
        on_stopped: Callable[[], None] | None = None,
        clock: Deadline | None = None,
    ) -> None:
        self.rest = rest
        self.room_id = room_id
        self.config = config
        self.on_stopped = on_stopped
        #: the room's delay timer, shared by its turns (one at a time): not a timer per turn
        self._clock = clock or Deadline()
        self._keepalive: asyncio.Task[None] | None = None
        self._delay: Deadline | None = None  # until the indicator is due
        self._started = 0.0
        self._opening: asyncio.Task[None] | None = None
        self._closing: asyncio.Task[None] | None = None

    async def __aenter__(self) -> WorkingState:
        if self.config.enable_working_state:
            self._started = time.monotonic()
            delay = self.config.working_indicator_delay_s
            if delay <= 0:
                self._show()
            else:  # a fast turn (most) then arms no timer of its own, nor cancels one
                self._delay = self._clock.arm(delay, self._show)
        return self

    def show(self, started: float) -> None:
        """Show the indicator now, for a turn that began at ``started`` (monotonic): the room's
        runner creates the indicator only once its turn has run the delay (``end`` clears it)."""
        self._started = started
        self._show()

    def _show(self) -> None:
        """The turn has run the delay: report ``working: true`` and keep it alive."""
        self._delay = None
        self._open()
        self._keepalive = asyncio.create_task(self._keep_alive())

    def _open(self) -> None:
        # reported alongside the turn, not before it: the reply does not wait on the indicator
        self._opening = _track(asyncio.create_task(self._report(True)))

    async def __aexit__(self, *exc_info: object) -> None:
        if self._delay is not None:  # a fast turn: nothing was shown, nothing to clear
            self._delay.cancel()
            self._delay = None
            return
        await self.end()

    async def end(self) -> None:
        """The turn is over: stop keeping the indicator alive and, once ``working: true``
        landed, report ``working: false`` (``closed()`` waits for it)."""
        if self._keepalive is not None:
            self._keepalive.cancel()
            # wait() never raises the task's own CancelledError, only ours (if we are cancelled)
            await asyncio.wait({self._keepalive})
            self._keepalive = None
            opening, self._opening = self._opening, None
            if opening is None:  # a fast turn: nothing was shown, nothing to clear
                return
            task = asyncio.current_task()
            if task is None or not task.cancelling():  # not while this task is shutting down
                await asyncio.wait({opening})  # true lands before false
                # sent alongside the delivery mark; ``closed()`` waits for it
                self._closing = _track(asyncio.create_task(self._report(False)))
            else:
                opening.cancel()

    @property
    def closing(self) -> bool:
        """Whether an end-of-turn report was sent (``closed()`` waits for it)."""
        return self._closing is not None

    async def closed(self) -> None:
        """Wait until the end-of-turn report is done (it never raises)."""
        if self._closing is not None:
            await asyncio.wait({self._closing})

    async def _keep_alive(self) -> None:
        limit = self.config.max_working_state_seconds
        while limit is None or time.monotonic() - self._started < limit:
            await asyncio.sleep(self.config.working_keep_alive_seconds)
            await self._report(True)

    async def _report(self, working: bool) -> None:
        try:
            resp = await asyncio.wait_for(
                self.rest.request(
                    "POST",
                    path("/agent/chats/{}/activity", self.room_id),
                    json={"working": working},
                    retries=0,
                ),
                self.config.working_request_timeout_seconds,
            )
            answer = resp.data_as(ActivityResponse)
        except Exception as exc:  # an indicator must never fail a turn
            log.debug("room %s: working=%s not reported: %s", self.room_id, working, exc)
            return
        stopped = answer is not None and answer.working is False
        if working and stopped and self.on_stopped is not None:
            log.info("room %s: the platform reports the execution stopped", self.room_id)
            callback, self.on_stopped = self.on_stopped, None
            callback()
