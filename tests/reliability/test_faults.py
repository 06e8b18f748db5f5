"""Faults mid-turn and on the delivery marks: no message lost, no reply twice, failures visible.

Every test drives a real agent against the real local platform; faults come from outside the
agent: the platform closes the socket or restarts, or a loopback proxy in front of its REST API
answers 5xx, delays or swallows the processing/processed marks.
"""

from __future__ import annotations

import asyncio
import logging

import pytest
from bandtest.platform import RestartablePlatform, room_with

from .conftest import Echo, Human, agent_on, answered_once, wait_for
from .faultproxy import FaultProxy, Rule

PROCESSING = r"/messages/[^/]+/processing$"
PROCESSED = r"/messages/[^/]+/processed$"


def _setup(platform: RestartablePlatform) -> tuple[str, str, str]:
    live = platform.live
    assert live is not None
    aid, _, key = live.register("Echo")
    return aid, key, room_with(live, aid)


def test_socket_dropped_mid_turn(platform: RestartablePlatform) -> None:
    """The socket closes while a turn runs: the turn's reply lands once, the gap is recovered."""
    aid, key, rid = _setup(platform)
    live = platform.live
    assert live is not None

    async def scenario() -> None:
        human, adapter = Human(live), Echo(gated=True)
        async with agent_on(live, adapter, aid, key) as agent:
            first = await human.send(rid, aid, "in the turn")
            await asyncio.wait_for(adapter.entered.wait(), 10)
            assert await asyncio.to_thread(platform.close_socket, aid, 1011)
            gap = await human.send(rid, aid, "while the socket is down")
            adapter.gate.set()
            await wait_for(lambda: _true(agent.runtime.phoenix.connections >= 2))
            after = await human.send(rid, aid, "after the reconnect")
            await wait_for(lambda: human.settled(rid, aid, [first, gap, after]))
            await answered_once(
                human, rid, aid, ["in the turn", "while the socket is down", "after the reconnect"]
            )
        await human.aclose()

    asyncio.run(scenario())


def test_platform_restarted_mid_turn(platform: RestartablePlatform) -> None:
    """The platform restarts while a turn runs: that turn is answered once, later ones too."""
    aid, key, rid = _setup(platform)
    live = platform.live
    assert live is not None

    async def scenario() -> None:
        human, adapter = Human(live), Echo(gated=True)
        async with agent_on(live, adapter, aid, key) as agent:
            first = await human.send(rid, aid, "before the restart")
            await asyncio.wait_for(adapter.entered.wait(), 10)
            await asyncio.to_thread(platform.restart)
            gap = await human.send(rid, aid, "right after the restart")
            adapter.gate.set()
            await wait_for(lambda: _true(agent.runtime.phoenix.connections >= 2))
            after = await human.send(rid, aid, "after the reconnect")
            await wait_for(lambda: human.settled(rid, aid, [first, gap, after]))
            await answered_once(
                human,
                rid,
                aid,
                ["before the restart", "right after the restart", "after the reconnect"],
            )
        await human.aclose()

    asyncio.run(scenario())


@pytest.mark.parametrize("status", [500, 503])
def test_processing_mark_5xx(
    platform: RestartablePlatform, proxy: FaultProxy, status: int, caplog: pytest.LogCaptureFixture
) -> None:
    """5xx on the processing mark: the adapter waits for an accepted mark, then answers once."""
    aid, key, rid = _setup(platform)
    live = platform.live
    assert live is not None
    rule = proxy.add(Rule("POST", PROCESSING, status=status, times=4))
    caplog.set_level(logging.INFO, logger="band")
    refusals_seen_by_turn: list[int] = []

    class Checked(Echo):
        async def on_message(self, msg, tools, *args, **kw):  # type: ignore[no-untyped-def]
            refusals_seen_by_turn.append(rule.hits)
            await super().on_message(msg, tools, *args, **kw)

    async def scenario() -> None:
        human, adapter = Human(live), Checked()
        async with agent_on(live, adapter, aid, key, rest=proxy.url):
            mid = await human.send(rid, aid, "refused mark")
            await wait_for(lambda: human.settled(rid, aid, [mid]))
            await answered_once(human, rid, aid, ["refused mark"])
            assert adapter.seen == [mid]
            assert refusals_seen_by_turn == [4]  # ran only once the platform took the mark
        await human.aclose()

    asyncio.run(scenario())
    assert proxy.count("POST", PROCESSING, status) == 4
    # the refusal is visible: the room's worker logs the platform error and resyncs later
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert any("platform unavailable" in w and "resync later" in w for w in warnings), warnings


@pytest.mark.parametrize("forwarded", [False, True], ids=["lost-request", "lost-response"])
def test_processed_mark_5xx(
    platform: RestartablePlatform,
    proxy: FaultProxy,
    forwarded: bool,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """5xx on the processed mark (applied or not): the ack is posted again, no rerun."""
    aid, key, rid = _setup(platform)
    live = platform.live
    assert live is not None
    proxy.add(Rule("POST", PROCESSED, status=502, times=2, forward_after_status=forwarded))
    caplog.set_level(logging.INFO, logger="band")

    async def scenario() -> None:
        human, adapter = Human(live), Echo()
        async with agent_on(live, adapter, aid, key, rest=proxy.url):
            mid = await human.send(rid, aid, "unacknowledged")
            await wait_for(lambda: human.settled(rid, aid, [mid]))
            second = await human.send(rid, aid, "next one")
            await wait_for(lambda: human.settled(rid, aid, [second]))
            await answered_once(human, rid, aid, ["unacknowledged", "next one"])
            assert adapter.seen == [mid, second]
        await human.aclose()

    asyncio.run(scenario())
    assert proxy.count("POST", PROCESSED, 502) == 2
    assert "marking" in caplog.text and "processed failed" in caplog.text, caplog.text


def test_processed_mark_timeout(platform: RestartablePlatform, proxy: FaultProxy) -> None:
    """The processed mark outlives the client's timeout (then lands): answered once, settled."""
    aid, key, rid = _setup(platform)
    live = platform.live
    assert live is not None
    proxy.add(Rule("POST", PROCESSED, delay=1.5, times=1))

    async def scenario() -> None:
        human, adapter = Human(live), Echo()
        agent = agent_on(live, adapter, aid, key, rest=proxy.url)
        # a short client timeout, so the held mark times out on our side
        agent.runtime.rest.timeout = 0.5
        async with agent:
            mid = await human.send(rid, aid, "slow ack")
            await wait_for(lambda: human.settled(rid, aid, [mid]))
            second = await human.send(rid, aid, "after the slow ack")
            await wait_for(lambda: human.settled(rid, aid, [second]))
            await answered_once(human, rid, aid, ["slow ack", "after the slow ack"])
            assert adapter.seen == [mid, second]
        await human.aclose()

    asyncio.run(scenario())


def test_processing_mark_timeout(platform: RestartablePlatform, proxy: FaultProxy) -> None:
    """The processing mark times out on our side and reaches the platform only after the turn
    was answered and marked processed (re-marking re-opens a message): answered once, and the
    message ends processed, not left re-opened."""
    aid, key, rid = _setup(platform)
    live = platform.live
    assert live is not None
    proxy.add(Rule("POST", PROCESSING, delay=2.0, times=1))

    async def scenario() -> None:
        human, adapter = Human(live), Echo()
        agent = agent_on(live, adapter, aid, key, rest=proxy.url)
        agent.runtime.rest.timeout = 0.4
        async with agent:
            mid = await human.send(rid, aid, "slow processing")
            await wait_for(lambda: human.settled(rid, aid, [mid]))
            await asyncio.sleep(2.0)  # the stray mark has landed by now
            await wait_for(lambda: human.settled(rid, aid, [mid]))
            await answered_once(human, rid, aid, ["slow processing"])
            assert adapter.seen == [mid]
            assert await human.statuses(rid, aid, [mid]) == ["processed"]
        await human.aclose()

    asyncio.run(scenario())
    assert proxy.count("POST", PROCESSING) == 2  # the retry and the late original


def test_slow_marks_keep_order_and_count(platform: RestartablePlatform, proxy: FaultProxy) -> None:
    """Every mark slow (within the timeout): a burst is answered once each, in order."""
    aid, key, rid = _setup(platform)
    live = platform.live
    assert live is not None
    proxy.add(Rule("POST", PROCESSING, delay=0.2, times=100))
    proxy.add(Rule("POST", PROCESSED, delay=0.2, times=100))

    async def scenario() -> None:
        human, adapter = Human(live), Echo()
        async with agent_on(live, adapter, aid, key, rest=proxy.url):
            texts = [f"burst {i}" for i in range(5)]
            mids = [await human.send(rid, aid, t) for t in texts]
            await wait_for(lambda: human.settled(rid, aid, mids), timeout=20)
            await answered_once(human, rid, aid, texts)
            assert adapter.seen == mids
        await human.aclose()

    asyncio.run(scenario())


async def _true(value: bool) -> bool:
    return value
