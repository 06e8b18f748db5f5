"""The room's "working" indicator while a turn runs: reported, kept alive, cleared at the end."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from types import TracebackType

from band.client.rest import RestClient, path

from .sessionconfig import SessionConfig

__all__ = ["WorkingState"]

log = logging.getLogger("band.runtime.working")


class WorkingState:
    """``async with WorkingState(...)`` around a turn; best effort, never raises.

    When the platform answers ``working: false`` to our ``true``, the room's execution was
    stopped on the platform side: ``on_stopped`` is called once.
    """

    def __init__(
        self,
        rest: RestClient,
        room_id: str,
        config: SessionConfig,
        on_stopped: Callable[[], None] | None = None,
    ) -> None:
        self.rest = rest
        self.room_id = room_id
        self.config = config
        self.on_stopped = on_stopped
        self._keepalive: asyncio.Task[None] | None = None

    async def __aenter__(self) -> WorkingState:
        if self.config.enable_working_state:
            await self._report(True)
            self._keepalive = asyncio.create_task(self._keep_alive())
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._keepalive is not None:
            self._keepalive.cancel()
            # wait() never raises the task's own CancelledError, only ours (if we are cancelled)
            await asyncio.wait({self._keepalive})
            self._keepalive = None
            task = asyncio.current_task()
            if task is None or not task.cancelling():  # not while this task is shutting down
                await self._report(False)

    async def _keep_alive(self) -> None:
        started = time.monotonic()
        limit = self.config.max_working_state_seconds
        while limit is None or time.monotonic() - started < limit:
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
        except Exception as exc:  # an indicator must never fail a turn
            log.debug("room %s: working=%s not reported: %s", self.room_id, working, exc)
            return
        data = resp.data if isinstance(resp.data, dict) else {}
        if working and data.get("working") is False and self.on_stopped is not None:
            log.info("room %s: the platform reports the execution stopped", self.room_id)
            callback, self.on_stopped = self.on_stopped, None
            callback()
