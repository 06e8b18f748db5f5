"""band-sdk 6.0.1's Agent lifecycle API on ours, in process against a real band dev."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import signal
from typing import Any, ClassVar

import pytest
from bandtest.agents import Human, fast_agent, plain, wait_for
from bandtest.platform import Live, room_with

from band import Agent, ExecutionContext, GracefulShutdown
from band.agent import running_agents
from band.core import SimpleAdapter
from band.core.exceptions import ProviderRunError
from band.platform.event import MessageEvent
from band.preprocessing import DefaultPreprocessor
from band.runtime.contacts.config import ContactEventConfig, ContactEventStrategy
from band.runtime.tools import AgentTools


class Echo(SimpleAdapter[Any]):
    rosters: ClassVar[list[str | None]] = []

    async def on_message(
        self, msg, tools, history, participants_msg, contacts_msg, *, is_session_bootstrap, room_id
    ):  # type: ignore[no-untyped-def]
        self.rosters.append(participants_msg)
        await tools.send_message(f"echo: {msg.content}", mentions=[msg.sender_id])


class SkipSecrets(DefaultPreprocessor):
    """Skips messages containing "secret"; records the context type it was given."""

    contexts: ClassVar[list[type]] = []
    histories: ClassVar[list[list[dict[str, Any]]]] = []

    async def process(self, ctx: ExecutionContext, event: MessageEvent, agent_id: str) -> Any:
        self.contexts.append(type(ctx))
        assert isinstance(AgentTools.from_context(ctx), AgentTools)
        if event.payload is not None and "secret" in event.payload.content:
            return None
        inp = await super().process(ctx, event, agent_id)
        if inp is not None:
            self.histories.append(ctx.get_history_for_llm(exclude_message_id=inp.msg.id))
        return inp


def test_agent_constructor_takes_a_preprocessor(live: Live) -> None:
    """Agent(runtime, adapter, preprocessor): the preprocessor decides which messages run."""
    aid, _, key = live.register("Filter")
    rid = room_with(live, aid)

    async def scenario() -> None:
        human = Human(live)
        built = fast_agent(live, Echo(), aid, key)
        agent = Agent(built.runtime, Echo(), preprocessor=SkipSecrets())
        await agent.start()
        try:
            skipped = await human.send(rid, aid, "a secret")
            await wait_for(lambda: human.status_is(rid, skipped, aid, "processed"))
            answered = await human.send(rid, aid, "hello")
            await wait_for(lambda: human.status_is(rid, answered, aid, "processed"))
            texts = [plain(r["content"]) for r in await human.replies(rid, aid)]
            assert texts == ["echo: hello"]
            assert set(SkipSecrets.contexts) == {ExecutionContext}
            # the skipped message is history now, formatted as band-sdk formats it
            [[earlier]] = SkipSecrets.histories
            assert earlier["content"] == "@local/filter a secret"
            assert (earlier["role"], earlier["sender_type"]) == ("user", "User")
            # the first turn's roster, in band-sdk's format (build_participants_message)
            roster = str(Echo.rosters[0]).split("\n")
            assert roster[0] == "## Current Participants"
            assert roster[1:3] == [
                "- @local — Local Person (User)",
                '- @local/filter — Filter (Agent): "Filter agent"',
            ]
        finally:
            await agent.stop(timeout=5)
            await human.aclose()

    asyncio.run(scenario())


def test_lifecycle_calls(live: Live, caplog: pytest.LogCaptureFixture) -> None:
    """A second start() warns; stop() ends run_forever(); running_agents(); contacts flag."""
    aid, _, key = live.register("Life")
    caplog.set_level(logging.WARNING, logger="band.agent")
    contacts = ContactEventConfig(strategy=ContactEventStrategy.HUB_ROOM)

    async def scenario() -> None:
        agent = fast_agent(live, Echo(), aid, key, {"contact_config": contacts})
        await agent.run_forever()  # not started: returns at once
        await agent.start()
        await agent.start()
        assert "already started" in caplog.text
        assert running_agents() == [agent] and agent.is_contacts_subscribed
        waiting = asyncio.ensure_future(agent.run_forever(install_signal_handlers=False))
        await asyncio.sleep(0.2)
        assert not waiting.done()
        assert await agent.stop(timeout=5) is True
        await asyncio.wait_for(waiting, 5)
        assert running_agents() == [] and not agent.is_contacts_subscribed

    asyncio.run(scenario())


def test_graceful_shutdown_stops_on_a_signal(live: Live) -> None:
    """GracefulShutdown calls on_signal and stops the agent with its timeout."""
    aid, _, key = live.register("Grace")

    async def scenario() -> None:
        agent = fast_agent(live, Echo(), aid, key)
        seen: list[int] = []
        async with GracefulShutdown(agent, timeout=5, on_signal=seen.append) as shutdown:
            running = asyncio.ensure_future(agent.run(install_signal_handlers=False))
            await wait_for(lambda: agent.is_running)
            os.kill(os.getpid(), signal.SIGTERM)
            await asyncio.wait_for(shutdown.wait_for_shutdown(), 5)
            await asyncio.wait_for(running, 10)
        assert seen == [signal.SIGTERM] and not agent.is_running

    asyncio.run(scenario())


class Failing(SimpleAdapter[Any]):
    async def on_message(
        self, msg, tools, history, participants_msg, contacts_msg, *, is_session_bootstrap, room_id
    ):  # type: ignore[no-untyped-def]
        raise ProviderRunError("rate_limited", "the prompt said: launch codes")


def test_provider_run_error_fails_the_turn_with_its_code_only(live: Live) -> None:
    """The turn is failed; the platform and the room see the code, never the detail."""
    aid, _, key = live.register("Provider")
    rid = room_with(live, aid)

    async def scenario() -> None:
        human = Human(live)
        async with fast_agent(live, Failing(), aid, key):
            mid = await human.send(rid, aid, "go")
            await wait_for(lambda: human.status_is(rid, mid, aid, "failed"))
            rows = await human.messages(rid)
        await human.aclose()
        status = next(m for m in rows if m["id"] == mid)["metadata"]["delivery_status"][aid]
        assert "ProviderRunError: rate_limited" in str(status)
        assert "launch codes" not in json.dumps(rows)

    asyncio.run(scenario())
