"""Stop an agent gracefully on SIGINT/SIGTERM (and SIGHUP where it exists).

``GracefulShutdown`` is for hosts that run the agent with ``install_signal_handlers=False``;
``run_with_graceful_shutdown`` wraps the usual case.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
from collections.abc import Callable
from typing import Protocol


class RunningAgent(Protocol):
    """What the shutdown helpers need of ``band.Agent`` (a protocol: runtime imports no upward)."""

    async def run(
        self, shutdown_timeout: float | None = ..., *, install_signal_handlers: bool = ...
    ) -> None:
        """Serve until stopped."""

    async def stop(self, timeout: float | None = None) -> bool:
        """Stop serving, giving running turns ``timeout`` seconds."""


__all__ = ["GracefulShutdown", "run_with_graceful_shutdown"]

log = logging.getLogger("band.runtime.shutdown")


def _signals() -> list[signal.Signals]:
    sigs = [signal.SIGINT, signal.SIGTERM]
    if hasattr(signal, "SIGHUP"):
        sigs.append(signal.SIGHUP)
    return sigs


class GracefulShutdown:
    """On the first signal: call ``on_signal(signum)``, then ``agent.stop(timeout=timeout)``.

    Use as ``async with GracefulShutdown(agent): ...`` or call :meth:`register_signals` /
    :meth:`unregister_signals`; :meth:`wait_for_shutdown` returns once a signal came.
    A second signal while stopping is ignored.
    """

    def __init__(
        self,
        agent: RunningAgent,
        timeout: float | None = 30.0,
        on_signal: Callable[[int], object] | None = None,
    ) -> None:
        self.agent = agent
        self.timeout = timeout
        self.on_signal = on_signal
        self._event: asyncio.Event | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._installed: list[signal.Signals] = []
        self._stopping = False
        self._task: asyncio.Task[None] | None = None

    def register_signals(self) -> None:
        """Install the handlers on the running loop (again: nothing happens)."""
        if self._loop is not None:
            return
        self._loop = asyncio.get_running_loop()
        if self._event is None:
            self._event = asyncio.Event()
        for sig in _signals():
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                self._loop.add_signal_handler(sig, self._handle, int(sig))
                self._installed.append(sig)

    def unregister_signals(self) -> None:
        """Remove the handlers this object installed."""
        if self._loop is None:
            return
        for sig in self._installed:
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                self._loop.remove_signal_handler(sig)
        self._installed.clear()
        self._loop = None

    def _handle(self, signum: int) -> None:
        if self._stopping:
            log.info("already shutting down; %s ignored", signal.Signals(signum).name)
            return
        self._stopping = True
        log.info("%s received: stopping the agent", signal.Signals(signum).name)
        if self.on_signal is not None:
            try:
                self.on_signal(signum)
            except Exception:  # a faulty callback must not block the shutdown
                log.exception("on_signal callback failed")
        if self._event is not None:
            self._event.set()
        self._task = asyncio.ensure_future(self._stop())

    async def _stop(self) -> None:
        try:
            await asyncio.shield(self.agent.stop(timeout=self.timeout))
        except Exception:
            log.exception("stopping the agent failed")

    async def wait_for_shutdown(self) -> None:
        """Return once a signal has been received."""
        if self._event is None:
            self._event = asyncio.Event()
        await self._event.wait()

    async def __aenter__(self) -> GracefulShutdown:
        self.register_signals()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        self.unregister_signals()
        if self._task is not None:
            await self._task


async def run_with_graceful_shutdown(
    agent: RunningAgent,
    timeout: float | None = 30.0,
    on_signal: Callable[[int], object] | None = None,
) -> None:
    """Run ``agent`` until a signal, then stop it giving turns ``timeout`` seconds."""
    async with GracefulShutdown(agent, timeout=timeout, on_signal=on_signal):
        await agent.run(shutdown_timeout=timeout, install_signal_handlers=False)
