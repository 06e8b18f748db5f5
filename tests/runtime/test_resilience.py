"""Disconnects mid-run (server-side close, platform restart): nothing lost, nothing twice."""

from __future__ import annotations

import asyncio

from bandtest.platform import RestartablePlatform

from .conftest import Echo, Human, fast_agent, plain, room_with, wait_for


async def _all_processed(human: Human, rid: str, aid: str, mids: list[str]) -> bool:
    return all([await human.status(rid, mid, aid) == "processed" for mid in mids])


async def _assert_each_answered_once(human: Human, rid: str, aid: str, texts: list[str]) -> None:
    replies = sorted(plain(r["content"]) for r in await human.replies(rid, aid))
    assert replies == sorted(f"echo: {t}" for t in texts)


def test_socket_closed_by_the_server(platform: RestartablePlatform) -> None:
    """Messages sent while the socket is down are recovered after the reconnect, once each."""
    live = platform.live
    assert live is not None
    aid, _, key = live.register("Echo")
    rid = room_with(live, aid)

    async def scenario() -> None:
        human = Human(live)
        adapter = Echo()
        async with fast_agent(live, adapter, aid, key) as agent:
            phoenix = agent.runtime.phoenix
            first = await human.send(rid, aid, "before")
            await wait_for(lambda: _all_processed(human, rid, aid, [first]))
            assert await asyncio.to_thread(platform.close_socket, aid, 1011)
            gap = await human.send(rid, aid, "during")  # not pushed: no socket right now
            await wait_for(lambda: _true(phoenix.connections >= 2))
            after = await human.send(rid, aid, "after")
            mids = [first, gap, after]
            await wait_for(lambda: _all_processed(human, rid, aid, mids))
            await asyncio.sleep(0.5)
            await _assert_each_answered_once(human, rid, aid, ["before", "during", "after"])
            assert sorted(adapter.seen) == sorted(mids)
        await human.aclose()

    asyncio.run(scenario())


def test_platform_restarted_mid_run(platform: RestartablePlatform) -> None:
    """uvicorn stops and a new one serves the same SQLite file on the same port."""
    live = platform.live
    assert live is not None
    aid, _, key = live.register("Echo")
    rid = room_with(live, aid)

    async def scenario() -> None:
        human = Human(live)
        adapter = Echo()
        async with fast_agent(live, adapter, aid, key) as agent:
            phoenix = agent.runtime.phoenix
            first = await human.send(rid, aid, "before restart")
            await wait_for(lambda: _all_processed(human, rid, aid, [first]))
            await asyncio.to_thread(platform.restart)
            # sent as soon as the platform is back, possibly before the agent reconnected
            gap = await human.send(rid, aid, "right after restart")
            await wait_for(lambda: _true(phoenix.connections >= 2), timeout=15)
            after = await human.send(rid, aid, "after reconnect")
            mids = [first, gap, after]
            await wait_for(lambda: _all_processed(human, rid, aid, mids), timeout=15)
            await asyncio.sleep(0.5)
            await _assert_each_answered_once(
                human, rid, aid, ["before restart", "right after restart", "after reconnect"]
            )
            assert sorted(adapter.seen) == sorted(mids)
        await human.aclose()

    asyncio.run(scenario())


async def _true(value: bool) -> bool:
    return value


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
    live = platform.live
    assert live is not None
    aid, _, key = live.register("Echo")
    rid = room_with(live, aid)

    async def scenario() -> None:
        human = Human(live)
        adapter = GatedEcho()
        async with fast_agent(live, adapter, aid, key):
            mid = await human.send(rid, aid, "in flight")
            await asyncio.wait_for(adapter.entered.wait(), 10)
            await asyncio.to_thread(platform.stop)
            adapter.gate.set()
            await wait_for(lambda: _true(bool(adapter.errors)))
            await asyncio.to_thread(platform.start)
            await wait_for(lambda: _all_processed(human, rid, aid, [mid]), timeout=15)
            await asyncio.sleep(0.5)
            await _assert_each_answered_once(human, rid, aid, ["in flight"])
            assert adapter.seen == [mid, mid]  # cut off once, then answered
        await human.aclose()

    asyncio.run(scenario())
