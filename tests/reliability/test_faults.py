"""Faults mid-turn and on the delivery marks: no message lost, no reply twice, failures visible.

Every test drives a real agent against the real local platform; faults come from outside the
agent: the platform closes the socket or restarts, or a loopback proxy in front of its REST API
answers 5xx, delays or swallows the processing/processed marks.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import pytest
from bandtest.platform import RestartablePlatform, fill_context, room_with

from band import Agent

from .conftest import Echo, Human, agent_on, answered_once, wait_for
from .faultproxy import FaultProxy, Rule

PROCESSING = r"/messages/[^/]+/processing$"
PROCESSED = r"/messages/[^/]+/processed$"
REPLY = r"/agent/chats/[^/]+/messages$"


@dataclass
class Scene:
    """One echo agent in a room with the person, while a scenario runs."""

    human: Human
    adapter: Echo
    agent: Agent
    rid: str
    aid: str

    async def send(self, text: str) -> str:
        """The person posts ``text`` mentioning the agent; return the message id."""
        return await self.human.send(self.rid, self.aid, text)

    async def settle(self, mids: list[str], timeout: float = 15.0) -> None:
        """Wait until every one of ``mids`` is processed."""
        await wait_for(lambda: self.human.settled(self.rid, self.aid, mids), timeout=timeout)

    async def settle_each(self, *texts: str) -> list[str]:
        """Post each text in turn, waiting for it to be processed before the next one."""
        mids = []
        for text in texts:
            mids.append(await self.send(text))
            await self.settle(mids[-1:])
        return mids

    async def answered_once(self, texts: list[str]) -> None:
        """Exactly one echo per text, after a quiet moment."""
        await answered_once(self.human, self.rid, self.aid, texts)


def _play(
    platform: RestartablePlatform,
    body: Callable[[Scene], Awaitable[None]],
    *,
    adapter: Callable[[], Echo] = Echo,
    proxy: FaultProxy | None = None,
    rest_timeout: float | None = None,
    history: int = 0,
) -> None:
    """Run ``body`` with a fresh echo agent (REST through ``proxy`` when given) in a new room
    (holding ``history`` of the agent's thought events first)."""
    live = platform.running
    aid, _, key = live.register("Echo")
    rid = room_with(live, aid)
    fill_context(live, aid, key, rid, history, "thought")

    async def scenario() -> None:
        human, echo = Human(live), adapter()
        agent = agent_on(live, echo, aid, key, rest=proxy.url if proxy else None)
        if rest_timeout is not None:
            # a short client timeout, so a held mark times out on our side
            agent.runtime.rest.timeout = rest_timeout
        async with agent:
            await body(Scene(human, echo, agent, rid, aid))
        await human.aclose()

    asyncio.run(scenario())


def _fault_mid_turn(
    platform: RestartablePlatform, fault: Callable[[str], object], texts: list[str]
) -> None:
    """``fault(agent_id)`` strikes while the first turn runs; each of the three texts is
    answered once: the one in the turn, one sent during the fault, one after the reconnect."""

    async def body(s: Scene) -> None:
        first = await s.send(texts[0])
        await asyncio.wait_for(s.adapter.entered.wait(), 10)
        await asyncio.to_thread(fault, s.aid)
        gap = await s.send(texts[1])
        s.adapter.gate.set()
        await wait_for(lambda: s.agent.runtime.phoenix.connections >= 2)
        after = await s.send(texts[2])
        await s.settle([first, gap, after])
        await s.answered_once(texts)

    _play(platform, body, adapter=lambda: Echo(gated=True))


def test_socket_dropped_mid_turn(platform: RestartablePlatform) -> None:
    """The socket closes while a turn runs: the turn's reply lands once, the gap is recovered."""

    def drop(aid: str) -> None:
        assert platform.close_socket(aid, 1011)

    _fault_mid_turn(
        platform, drop, ["in the turn", "while the socket is down", "after the reconnect"]
    )


def test_platform_restarted_mid_turn(platform: RestartablePlatform) -> None:
    """The platform restarts while a turn runs: that turn is answered once, later ones too."""
    _fault_mid_turn(
        platform,
        lambda _aid: platform.restart(),
        ["before the restart", "right after the restart", "after the reconnect"],
    )


@pytest.mark.parametrize("status", [500, 503])
def test_processing_mark_5xx(
    platform: RestartablePlatform, proxy: FaultProxy, status: int, caplog: pytest.LogCaptureFixture
) -> None:
    """5xx on the processing mark: the adapter waits for an accepted mark, then answers once."""
    rule = proxy.add(Rule("POST", PROCESSING, status=status, times=4))
    caplog.set_level(logging.INFO, logger="band")
    refusals_seen_by_turn: list[int] = []

    class Checked(Echo):
        async def on_message(self, msg, tools, *args, **kw):  # type: ignore[no-untyped-def]
            refusals_seen_by_turn.append(rule.hits)
            await super().on_message(msg, tools, *args, **kw)

    async def body(s: Scene) -> None:
        mids = await s.settle_each("refused mark")
        await s.answered_once(["refused mark"])
        assert s.adapter.seen == mids
        assert refusals_seen_by_turn == [4]  # ran only once the platform took the mark

    _play(platform, body, adapter=Checked, proxy=proxy)
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
    proxy.add(Rule("POST", PROCESSED, status=502, times=2, forward_after_status=forwarded))
    caplog.set_level(logging.INFO, logger="band")

    async def body(s: Scene) -> None:
        mids = await s.settle_each("unacknowledged", "next one")
        await s.answered_once(["unacknowledged", "next one"])
        assert s.adapter.seen == mids

    _play(platform, body, proxy=proxy)
    assert proxy.count("POST", PROCESSED, 502) == 2
    assert "marking" in caplog.text and "processed failed" in caplog.text, caplog.text


def test_processed_mark_timeout(platform: RestartablePlatform, proxy: FaultProxy) -> None:
    """The processed mark outlives the client's timeout (then lands): answered once, settled."""
    proxy.add(Rule("POST", PROCESSED, delay=1.5, times=1))

    async def body(s: Scene) -> None:
        mids = await s.settle_each("slow ack", "after the slow ack")
        await s.answered_once(["slow ack", "after the slow ack"])
        assert s.adapter.seen == mids

    _play(platform, body, proxy=proxy, rest_timeout=0.5)


def test_processing_mark_timeout(platform: RestartablePlatform, proxy: FaultProxy) -> None:
    """The processing mark times out on our side and reaches the platform only after the turn
    was answered and marked processed (re-marking re-opens a message): answered once, and the
    message ends processed, not left re-opened."""
    proxy.add(Rule("POST", PROCESSING, delay=2.0, times=1))

    async def body(s: Scene) -> None:
        mids = await s.settle_each("slow processing")
        await asyncio.sleep(2.0)  # the stray mark has landed by now
        await s.settle(mids)
        await s.answered_once(["slow processing"])
        assert s.adapter.seen == mids
        assert await s.human.statuses(s.rid, s.aid, mids) == ["processed"]

    _play(platform, body, proxy=proxy, rest_timeout=0.4)
    assert proxy.count("POST", PROCESSING) == 2  # the retry and the late original


def test_slow_marks_keep_order_and_count(platform: RestartablePlatform, proxy: FaultProxy) -> None:
    """Every mark slow (within the timeout): a burst is answered once each, in order."""
    proxy.add(Rule("POST", PROCESSING, delay=0.2, times=100))
    proxy.add(Rule("POST", PROCESSED, delay=0.2, times=100))

    async def body(s: Scene) -> None:
        texts = [f"burst {i}" for i in range(5)]
        mids = [await s.send(t) for t in texts]
        await s.settle(mids, timeout=20)
        await s.answered_once(texts)
        assert s.adapter.seen == mids

    _play(platform, body, proxy=proxy)


@pytest.mark.parametrize("history", [0, 2050], ids=["new-room", "long-room"])
def test_reply_applied_but_its_answer_lost(
    platform: RestartablePlatform, proxy: FaultProxy, history: int
) -> None:
    """The platform writes the reply but its answer never reaches the agent (held past the
    client's timeout): the message is replayed, and the agent sees its reply already in the
    room instead of answering twice. In a long room too: 2,050 rows of ``/context`` before
    the message, past the 20 pages once read before the reply was called missing."""
    rule = proxy.add(Rule("POST", REPLY, hold=1.5, times=1))

    async def body(s: Scene) -> None:
        mids = [await s.send("lost answer")]
        await s.settle(mids, timeout=20)
        await asyncio.sleep(1.5)  # a second answer would land in this time
        await s.answered_once(["lost answer"])
        assert await s.human.statuses(s.rid, s.aid, mids) == ["processed"]

    _play(platform, body, proxy=proxy, rest_timeout=0.5, history=history)
    assert rule.hits == 1


@pytest.mark.parametrize(
    ("status", "applied", "history"),
    [
        (502, False, 0),
        (503, False, 0),
        (504, True, 0),
        (502, True, 0),
        (429, False, 0),
        (504, True, 2050),  # the 504's row is found past 20 pages of the room's /context
    ],
    ids=["502", "503", "504-applied", "502-applied", "429", "504-applied-long-room"],
)
def test_reply_refused_or_applied_then_refused(
    platform: RestartablePlatform, proxy: FaultProxy, status: int, applied: bool, history: int
) -> None:
    """The reply POST answered 5xx/429 twice (``applied``: the platform wrote it first): the
    reply is posted again only when the room does not hold it yet; answered once, processed,
    no error event. ``history``: rows of ``/context`` before (the room is looked through)."""
    rule = proxy.add(Rule("POST", REPLY, status=status, times=2, forward_after_status=applied))

    async def body(s: Scene) -> None:
        mids = await s.settle_each("refused reply", "next one")
        await s.answered_once(["refused reply", "next one"])
        assert s.adapter.seen == mids  # the turn ran once: its post was retried, not the turn
        assert await s.human.reply_texts(s.rid, s.aid, "error") == []

    _play(platform, body, proxy=proxy, history=history)
    assert rule.hits == 2
    # applied: each turn's refused post is found in the room and not sent again (one POST per
    # turn); refused: the first turn's reply is sent three times, the second's once
    assert proxy.count("POST", REPLY) == (2 if applied else 4)
