"""Disconnects mid-run (server-side close, platform restart): nothing lost, nothing twice."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from pathlib import Path

import pytest
from bandtest.platform import RestartablePlatform

from .conftest import Echo, Human, InRoom, in_room, plain, wait_for


async def _all_processed(human: Human, rid: str, aid: str, mids: list[str]) -> bool:
    return all([await human.status(rid, mid, aid) == "processed" for mid in mids])


async def _assert_each_answered_once(human: Human, rid: str, aid: str, texts: list[str]) -> None:
    replies = sorted(plain(r["content"]) for r in await human.replies(rid, aid))
    assert replies == sorted(f"echo: {t}" for t in texts)


def _each_message_recovered_once(
    platform: RestartablePlatform,
    disrupt: Callable[[str], object],
    texts: tuple[str, str, str],
    timeout: float,
) -> None:
    """Send one message before ``disrupt(aid)``, one right after it, one after the reconnect.

    Each is processed and answered exactly once, and the adapter saw each once.
    """
    before, gap_text, after_text = texts

    async def scenario(r: InRoom) -> None:
        adapter = Echo()
        async with r.agent(adapter) as agent:
            phoenix = agent.runtime.phoenix
            first = await r.send(before)
            await wait_for(lambda: _all_processed(r.human, r.rid, r.aid, [first]))
            await asyncio.to_thread(disrupt, r.aid)
            gap = await r.send(gap_text)
            await wait_for(lambda: phoenix.connections >= 2, timeout=timeout)
            after = await r.send(after_text)
            mids = [first, gap, after]
            await wait_for(lambda: _all_processed(r.human, r.rid, r.aid, mids), timeout=timeout)
            await asyncio.sleep(0.5)
            await _assert_each_answered_once(r.human, r.rid, r.aid, list(texts))
            assert sorted(adapter.seen) == sorted(mids)

    in_room(platform, "Echo", scenario)


def test_socket_closed_by_the_server(platform: RestartablePlatform) -> None:
    """Messages sent while the socket is down are recovered after the reconnect, once each."""

    def close_socket(aid: str) -> None:
        assert platform.close_socket(aid, 1011)

    # "during" is not pushed: no socket right then
    _each_message_recovered_once(platform, close_socket, ("before", "during", "after"), 10.0)


def test_platform_restarted_mid_run(platform: RestartablePlatform) -> None:
    """uvicorn stops and a new one serves the same SQLite file on the same port."""
    # the second is sent as soon as the platform is back, possibly before the agent reconnected
    texts = ("before restart", "right after restart", "after reconnect")
    _each_message_recovered_once(platform, lambda aid: platform.restart(), texts, 15.0)


class GatedEcho(Echo):
    """Echo whose first turn waits for ``gate`` before answering."""

    def __init__(self) -> None:
        super().__init__()
        self.gate = asyncio.Event()
        self.entered = asyncio.Event()
        self.errors: list[BaseException] = []

    async def on_message(self, msg, tools, *args, **kw):  # type: ignore[no-untyped-def]
        if not self.entered.is_set():
            self.entered.set()
            await self.gate.wait()
        try:
            await super().on_message(msg, tools, *args, **kw)
        except Exception as exc:
            self.errors.append(exc)
            raise


def test_platform_down_during_a_turn(platform: RestartablePlatform) -> None:
    """A reply that cannot reach the platform is not a failure: the turn is replayed once up."""

    async def scenario(r: InRoom) -> None:
        adapter = GatedEcho()
        async with r.agent(adapter):
            mid = await r.send("in flight")
            await asyncio.wait_for(adapter.entered.wait(), 10)
            await asyncio.to_thread(platform.stop)
            adapter.gate.set()
            await wait_for(lambda: bool(adapter.errors))
            await asyncio.to_thread(platform.start)
            # a generous bound: it only ends a failing wait (about 4 s here; a loaded 2-core CI
            # host, past its reconnect and re-check backoffs, once took more than 15 s)
            await wait_for(lambda: _all_processed(r.human, r.rid, r.aid, [mid]), timeout=60)
            await asyncio.sleep(0.5)
            await _assert_each_answered_once(r.human, r.rid, r.aid, ["in flight"])
            assert adapter.seen == [mid, mid]  # cut off once, then answered

    in_room(platform, "Echo", scenario)


def test_a_platform_that_no_longer_knows_the_key_is_said_to_and_what_to_do(
    platform: RestartablePlatform, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """band dev restarted on another database refuses the agent's upgrade with 401 (not
    terminal, as in band-sdk: the agent keeps retrying); the warning says what it means."""
    caplog.set_level(logging.WARNING, logger="band.client.phoenix")

    async def scenario(r: InRoom) -> None:
        async with r.agent(Echo()) as agent:
            platform.db_path = str(tmp_path / "another.sqlite3")
            await asyncio.to_thread(platform.restart)
            await wait_for(lambda: agent.runtime.phoenix.last_refusal is not None, timeout=30)
            assert agent.is_running  # still retrying

    in_room(platform, "Echo", scenario)
    refused = [m for m in caplog.messages if "upgrade refused with HTTP 401" in m]
    assert refused and "band dev agent create" in refused[0] and "(terminal=False)" in refused[0]
