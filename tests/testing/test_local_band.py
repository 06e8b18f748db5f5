"""``band.testing.LocalBand``: a real ``band dev`` with people, agents and rooms, driven from a
plain synchronous test."""

from __future__ import annotations

import time
from typing import Any

import httpx
import pytest

from band.core import SimpleAdapter
from band.demo.adapter import DemoAdapter, SilentAdapter
from band.testing import MISSING_REPLY_FAILURE, LocalBand, force_transport_disconnect, local_band


def test_an_agent_answers_a_mention() -> None:
    with local_band() as band:
        bot = band.run_agent(DemoAdapter(), name="Echo")
        room = band.room(bot, title="greetings")
        reply = room.ask(bot, "hello there")
        assert reply.text == "Hello Local Person! You said: hello there"
        assert reply.sender_name == "Echo" and reply.sender_type == "Agent"
        assert {p["id"] for p in room.participants()} == {band.me.id, bot.id}
        assert (band.me.name, band.me.handle) == ("Local Person", "local")
        assert room.wait_for(lambda _: room.messages_from(bot, "tool_result"))
        assert room.delivery_status(room.messages()[0].id, bot) in ("processing", "processed")


def test_another_person_joins_through_contacts_and_is_answered() -> None:
    with local_band() as band:
        bot = band.run_agent(DemoAdapter(), name="Helper")
        bob = band.person("Bob Stone")
        assert bob.handle == "bob-stone" and "band_u_" not in repr(bob)
        band.connect(band.me, bob)
        room = band.room(bot, bob)
        as_bob = room.as_person(bob)
        reply = as_bob.ask(bot, "hi from bob")
        assert reply.text == "Hello Bob Stone! You said: hi from bob"
        assert [m.sender_name for m in room.messages_from(bob)] == ["Bob Stone"]


def test_a_stranger_cannot_be_added_without_contacts() -> None:
    with local_band() as band:
        stranger = band.person("Eve")
        room = band.room()
        with pytest.raises(AssertionError, match="participants -> 4"):
            room.add(stranger)


def test_a_silent_agent_gets_the_missing_reply_report_and_waiting_times_out() -> None:
    with local_band() as band:
        bot = band.run_agent(SilentAdapter(), name="Mute")
        room = band.room(bot)
        mid = room.say("anyone?", mention=bot)
        with pytest.raises(AssertionError, match=r"condition not met in 0\.5s"):
            room.wait_for_reply(bot, after=mid, timeout=0.5)
        [error] = room.wait_for(lambda _: room.messages_from(bot, "error"))
        assert (error.metadata["failure"]["provider"], error.content) == MISSING_REPLY_FAILURE
        room.wait_for(lambda _: room.delivery_status(mid, bot) == "failed")


class Declines(SimpleAdapter[Any]):
    """Settles every turn with ``no_reply``: processed, with no text answer."""

    async def on_message(self, msg: Any, tools: Any, *args: Any, **kwargs: Any) -> None:
        await tools.no_reply("nothing to add")


def test_ask_raises_once_the_turn_failed_without_a_reply() -> None:
    # the timeout is far beyond the test's life: only the settled turn can end the wait
    with local_band() as band:
        bot = band.run_agent(SilentAdapter(), name="Mute")
        room = band.room(bot)
        with pytest.raises(AssertionError, match=r"settled \(failed\) without a text reply") as e:
            room.ask(bot, "anyone?", timeout=3600)
        assert "'error'" in str(e.value) and MISSING_REPLY_FAILURE[1] in str(e.value)
        assert "anyone?" in str(e.value)


def test_ask_raises_once_the_turn_was_processed_without_a_reply() -> None:
    with local_band() as band:
        bot = band.run_agent(Declines(), name="Quiet")
        room = band.room(bot)
        with pytest.raises(AssertionError, match=r"settled \(processed\) without a text reply"):
            room.ask(bot, "anyone?", timeout=3600)


def test_an_agent_survives_a_dropped_socket() -> None:
    with local_band() as band:
        bot = band.run_agent(DemoAdapter(), name="Sturdy")
        room = band.room(bot)
        assert room.ask(bot, "one").text.endswith("one")
        phoenix = bot.agent.runtime.phoenix
        bot.call(force_transport_disconnect(bot.agent))
        deadline = time.monotonic() + 10
        while phoenix.connections < 2 or not phoenix.connected:
            assert time.monotonic() < deadline, "the agent did not reconnect"
            time.sleep(0.02)
        assert room.ask(bot, "two").text.endswith("two")


def test_stop_stops_agents_then_the_platform() -> None:
    band = LocalBand().start()
    url = band.rest_url
    bot = band.run_agent(DemoAdapter(), name="Brief")
    assert bot.agent.is_running
    band.stop()
    assert not bot.agent.is_running
    bot.stop()  # idempotent
    with pytest.raises(httpx.TransportError):  # nothing listens
        httpx.get(url + "/api/v1/me/profile", timeout=2)


def test_the_urls_are_the_started_platforms_and_only_then() -> None:
    band = LocalBand()
    for url in ("rest_url", "ws_url"):
        with pytest.raises(RuntimeError, match="LocalBand is not started"):
            getattr(band, url)
    with band:
        port = band.port
        assert port > 0
        assert band.rest_url == f"http://127.0.0.1:{port}"
        assert band.ws_url == f"ws://127.0.0.1:{port}/api/v1/socket/websocket"
        # band dev itself answers there: a request without a key is refused, not unreachable
        assert httpx.get(band.rest_url + "/api/v1/me/profile", timeout=5).status_code == 401
    with pytest.raises(RuntimeError, match="LocalBand is not started"):
        band.rest_url  # noqa: B018 -- the property raises


def test_an_agent_on_the_tests_own_loop_with_the_async_calls() -> None:
    import asyncio

    async def scenario(band: LocalBand) -> str:
        agent = band.agent(DemoAdapter(), name="OnMyLoop")  # not started: ours to run
        room = band.room(agent.runtime.agent_id)
        async with agent:
            reply = await room.ask_async(agent.runtime.agent_id, "same loop")
            assert (await room.messages_async())[0].text == "same loop"
            return reply.text

    with local_band() as band:
        assert asyncio.run(scenario(band)) == "Hello Local Person! You said: same loop"
