"""RestClient honours a cancellation even when the HTTP stack absorbs it."""

from __future__ import annotations

import asyncio

import httpx
import pytest

from band.client import RestClient


class _SwallowingTransport(httpx.AsyncBaseTransport):
    """Answers 200 even when cancelled mid-request, as a racing HTTP stack can."""

    def __init__(self) -> None:
        self.entered = asyncio.Event()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.entered.set()
        try:
            await asyncio.sleep(10)
        except asyncio.CancelledError:
            pass  # the race: the cancel is absorbed and a response comes back
        return httpx.Response(200, json={"data": {"ok": True}})


def test_cancel_absorbed_by_the_http_stack_still_cancels() -> None:
    async def go() -> None:
        transport = _SwallowingTransport()
        async with RestClient("k", "http://127.0.0.1:9", transport=transport) as rest:
            task = asyncio.create_task(rest.request("GET", "/agent/me"))
            await transport.entered.wait()
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task

    asyncio.run(go())


def test_timeout_context_still_times_out() -> None:
    async def go() -> None:
        transport = _SwallowingTransport()
        async with RestClient("k", "http://127.0.0.1:9", transport=transport) as rest:
            with pytest.raises(TimeoutError):
                async with asyncio.timeout(0.05):
                    await rest.request("GET", "/agent/me")

    asyncio.run(go())
