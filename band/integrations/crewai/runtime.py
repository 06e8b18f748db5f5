"""Running the Band tools' coroutines from CrewAI's synchronous tools."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

__all__ = ["run_async"]

T = TypeVar("T")


def run_async(
    coro: Coroutine[Any, Any, T], fallback_loop: asyncio.AbstractEventLoop | None = None
) -> T:
    """Run ``coro`` from synchronous code (a CrewAI tool) and return its result.

    CrewAI calls tools from a worker thread while the agent's event loop, which the Band
    clients belong to, runs elsewhere: pass it as ``fallback_loop`` and the coroutine runs
    there. Without one running, a thread with no loop runs it on a new loop. Called on a
    thread whose loop is running (a sync tool called from async code), it runs on a new loop
    in a helper thread: a running loop cannot be re-entered without patching asyncio for
    the whole process, which this SDK does not do.
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        if fallback_loop is not None and fallback_loop.is_running():
            return asyncio.run_coroutine_threadsafe(coro, fallback_loop).result()
        return asyncio.run(coro)
    return _in_helper_thread(coro)


def _in_helper_thread(coro: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run(coro)`` in a thread of its own, waited for."""
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["result"] = asyncio.run(coro)
        except BaseException as exc:  # handed to the caller's thread
            box["error"] = exc

    helper = threading.Thread(target=run, name="band-crewai-run-async", daemon=True)
    helper.start()
    helper.join()
    if "error" in box:
        raise box["error"]
    result: T = box["result"]
    return result
