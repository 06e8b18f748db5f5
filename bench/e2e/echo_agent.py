"""The e2e bench's agent: one echo agent, the same script under our SDK and the official one.

Both SDKs expose ``band.Agent`` and ``band.core.SimpleAdapter``; the harness starts this file
with the interpreter under test and passes the credentials in the environment. With
``BAND_E2E_PROFILE=<path>`` (``run.py --profile``), SIGUSR1 starts a cProfile of the process
(CPU time) and SIGUSR2 stops it; the stats are written to ``<path>`` when the agent exits.
Under our SDK the loop is the one ``band.runtime.eventloop`` picks (uvloop when installed, unless
``BAND_UVLOOP=0``, which the harness sets for every variant but ``uv``); the official SDK and
older commits have no such module and run on ``asyncio.run``.
"""

import asyncio
import os
import signal
from collections.abc import Callable, Coroutine
from typing import Any

from band import Agent
from band.core import SimpleAdapter


class Echo(SimpleAdapter):  # type: ignore[type-arg]
    """Answers every mention with its text, mentioning the sender."""

    async def on_message(  # type: ignore[no-untyped-def]
        self, msg, tools, history, participants_msg, contacts_msg, *, is_session_bootstrap, room_id
    ):
        await tools.send_message(f"echo: {msg.content}", mentions=[msg.sender_id])


async def main(agent: Agent, profile: str) -> None:
    """Run the agent; under ``profile``, SIGUSR1/SIGUSR2 start and stop cProfile."""
    if not profile:
        await agent.run()
        return
    import cProfile
    import time

    # CPU time, not wall-clock: on a shared machine a preempted call would count the wait
    profiler = cProfile.Profile(time.process_time)
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGUSR1, profiler.enable)
    loop.add_signal_handler(signal.SIGUSR2, profiler.disable)
    try:
        await agent.run()
    finally:
        profiler.disable()
        profiler.dump_stats(profile)


def _runner() -> Callable[[Coroutine[Any, Any, None]], None]:
    """Our SDK's loop runner where there is one, else ``asyncio.run``."""
    try:
        from band.runtime.eventloop import run
    except ImportError:
        return asyncio.run
    return run


if __name__ == "__main__":
    agent = Agent.create(
        adapter=Echo(),
        agent_id=os.environ["BAND_E2E_AGENT_ID"],
        api_key=os.environ["BAND_E2E_AGENT_KEY"],
    )
    _runner()(main(agent, os.environ.get("BAND_E2E_PROFILE", "")))
