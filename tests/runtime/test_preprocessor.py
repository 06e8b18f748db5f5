"""``preprocessor=`` and ``stopped_resync_seconds`` against the real local platform."""

from __future__ import annotations

import asyncio
import dataclasses
import inspect
from typing import Any

import pytest
from bandtest.platform import Live

from band import Agent
from band.core import AgentInput, BandConfigError, Preprocessor
from band.platform.event import MessageEvent
from band.preprocessing import DefaultPreprocessor
from band.runtime.rooms.context import RoomContext

from .conftest import Echo, Human, fast_agent, plain, room_with, wait_for


class Screening(DefaultPreprocessor):
    """Skips messages marked ``#skip``; tags the others' text."""

    def __init__(self) -> None:
        self.seen: list[tuple[RoomContext, MessageEvent, str]] = []

    async def process(self, ctx: Any, event: Any, agent_id: str) -> AgentInput | None:
        self.seen.append((ctx, event, agent_id))
        if "#skip" in event.payload.content:
            return None
        inp = await super().process(ctx, event, agent_id)
        assert inp is not None
        msg = dataclasses.replace(inp.msg, content=f"[screened] {plain(inp.msg.content)}")
        return dataclasses.replace(inp, msg=msg)


async def _true(value: bool) -> bool:
    return value


def test_preprocessor_skips_and_rewrites_turns(live: Live) -> None:
    aid, _, key = live.register("Screened")
    rid = room_with(live, aid)

    async def scenario() -> None:
        human = Human(live)
        pre = Screening()
        adapter = Echo()
        agent = fast_agent(live, adapter, aid, key, {"preprocessor": pre})
        try:
            await agent.start()
            skipped = await human.send(rid, aid, "ignore me #skip")
            kept = await human.send(rid, aid, "hello")
            replies = await wait_for(lambda: human.replies(rid, aid))
            assert [plain(r["content"]) for r in replies] == ["echo: [screened] hello"]
            assert adapter.seen == [kept]  # the skipped one never reached the adapter

            async def settled() -> bool:
                return await human.status(rid, skipped, aid) == "processed"

            await wait_for(settled)  # a skipped message counts as handled, not failed
            assert await human.replies(rid, aid, "error") == []
            ctx, event, agent_id = pre.seen[0]
            assert isinstance(ctx, RoomContext) and ctx.room_id == rid
            assert isinstance(event, MessageEvent) and event.room_id == rid
            assert event.payload is not None and event.payload.id == skipped
            assert agent_id == aid
        finally:
            await agent.stop()
            await human.aclose()

    asyncio.run(scenario())


def test_preprocessor_argument_is_checked(live: Live) -> None:
    aid, _, key = live.register("Picky")
    assert isinstance(DefaultPreprocessor(), Preprocessor)
    # band-sdk's DefaultPreprocessor has its Protocol base's constructor, shown as
    # (*args, **kwargs), which refuses any argument; ours is the same
    kinds = [p.kind for p in inspect.signature(DefaultPreprocessor).parameters.values()]
    assert kinds == [inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD]
    with pytest.raises(TypeError, match="takes no arguments"):
        DefaultPreprocessor(object())  # type: ignore[call-arg]
    with pytest.raises(BandConfigError, match="preprocessor must have a process"):
        Agent.create(Echo(), aid, key, rest_url=live.rest, ws_url=live.ws, preprocessor=object())  # type: ignore[arg-type]


def _probe_scenario(live: Live, stopped_resync: float | None) -> bool:
    """Park the room locally only (a missed ``play``); whether a message gets answered."""
    aid, _, key = live.register("Parked")
    rid = room_with(live, aid)

    async def scenario() -> bool:
        human = Human(live)
        agent = fast_agent(
            live, Echo(), aid, key, idle_resync_seconds=30.0, idle_resync_max_seconds=30.0,
            stopped_resync_seconds=stopped_resync,
        )  # fmt: skip
        try:
            await agent.start()
            await wait_for(lambda: _true(rid in agent.runtime.rooms))
            room = agent.runtime.rooms[rid]
            await wait_for(lambda: _true(room.running))
            await room.control("stop")  # the platform never stopped it: only a probe finds out
            await human.send(rid, aid, "are you there?")
            try:
                await wait_for(lambda: human.replies(rid, aid), timeout=4)
            except AssertionError:
                return False
            return True
        finally:
            await agent.stop()
            await human.aclose()

    return asyncio.run(scenario())


def test_stopped_resync_seconds_sets_the_stopped_room_probe(live: Live) -> None:
    assert _probe_scenario(live, 0.2) is True
    # without it a stopped room probes at idle_resync_seconds (30 s here): still parked at 4 s
    assert _probe_scenario(live, None) is False
