"""The agent end to end: echo, offline backlog, failures and retries, missing replies."""

from __future__ import annotations

import asyncio
from typing import Any

from bandtest.platform import RestartablePlatform

from band.core import SimpleAdapter
from band.core.turn import MISSING_REPLY, AgentFailure
from band.runtime.rooms.execution import ADAPTER_FAILED

from .conftest import Echo, Human, InRoom, agent_in_rooms, fast_agent, in_room, plain, wait_for


async def _answered(human: Human, rid: str, aid: str, mids: list[str], replies: int) -> bool:
    """True once every message is processed and the agent posted ``replies`` texts."""
    statuses = [await human.status(rid, mid, aid) for mid in mids]
    return all(s == "processed" for s in statuses) and len(await human.replies(rid, aid)) >= replies


def test_echo_answers_a_mention(platform: RestartablePlatform) -> None:
    """A mention is answered once, mentioning the sender, and marked processed."""

    async def scenario(r: InRoom) -> None:
        adapter = Echo()
        async with r.agent(adapter) as agent:
            assert agent.is_running and agent.agent_name == "Echo"
            mid = await r.send("hello")
            await wait_for(lambda: _answered(r.human, r.rid, r.aid, [mid], 1))
            await asyncio.sleep(0.3)  # a second answer would land here
            replies = await r.replies()
            assert [plain(m["content"]) for m in replies] == ["echo: hello"]
            mentions = replies[0]["metadata"]["mentions"]
            assert [m["id"] for m in mentions] == [r.live.app.state.user_id]
            assert adapter.seen == [mid]
        assert not agent.is_running

    in_room(platform, "Echo", scenario)


def test_offline_messages_are_answered_once_at_start(platform: RestartablePlatform) -> None:
    """Messages sent before the agent starts are drained from /next, each answered once."""
    live, aid, key, rooms = agent_in_rooms(platform, "Echo", 2)

    async def scenario() -> None:
        human = Human(live)
        sent = {
            rid: [await human.send(rid, aid, f"offline {i}") for i in range(3)] for rid in rooms
        }
        adapter = Echo()
        async with fast_agent(live, adapter, aid, key):
            for rid, mids in sent.items():
                await wait_for(lambda rid=rid, mids=mids: _answered(human, rid, aid, mids, 3))
            online = await human.send(rooms[0], aid, "online")
            await wait_for(lambda: _answered(human, rooms[0], aid, [online], 4))
            await asyncio.sleep(0.5)  # idle resyncs run meanwhile; nothing runs twice
        for rid in rooms:
            texts = [plain(r["content"]) for r in await human.replies(rid, aid)]
            expected = [f"echo: offline {i}" for i in range(3)]
            assert texts == ([*expected, "echo: online"] if rid == rooms[0] else expected)
        assert sorted(adapter.seen) == sorted([*sent[rooms[0]], *sent[rooms[1]], online])
        await human.aclose()

    asyncio.run(scenario())


class Boom(SimpleAdapter[Any]):
    """Raises on every message."""

    def __init__(self) -> None:
        super().__init__()
        self.calls = 0

    async def on_message(
        self, msg, tools, history, participants_msg, contacts_msg, *, is_session_bootstrap, room_id
    ):  # type: ignore[no-untyped-def]
        self.calls += 1
        raise RuntimeError("secret detail")


def test_raising_adapter_marks_failed_and_retries(platform: RestartablePlatform) -> None:
    """With max_message_retries=2 the adapter runs twice, then the message stays failed."""

    async def scenario(r: InRoom) -> None:
        adapter = Boom()
        async with r.agent(adapter, max_message_retries=2):
            mid = await r.send("fail please")
            await wait_for(lambda: _calls_at_least(adapter, 2))
            await r.reaches(mid, "failed")
            await asyncio.sleep(1.0)  # several idle resyncs: no third attempt
            assert adapter.calls == 2
            assert await r.human.status(r.rid, mid, r.aid) == "failed"
        errors = await r.replies("error")
        assert len(errors) == 1  # reported once, on the final attempt
        assert "secret detail" not in errors[0]["content"]
        assert await r.replies() == []

    in_room(platform, "Boom", scenario)


def test_default_retry_budget_runs_the_adapter_once(platform: RestartablePlatform) -> None:
    """The default SessionConfig allows one attempt: failed after the first raise."""

    async def scenario(r: InRoom) -> None:
        adapter = Boom()
        async with r.agent(adapter, report_turn_failures_to_room=False):
            mid = await r.send("fail once")
            await r.reaches(mid, "failed")
            await asyncio.sleep(0.8)
            assert adapter.calls == 1
        assert await r.replies("error") == []

    in_room(platform, "Boom", scenario)


class SelfCaused(Boom):
    """Raises an error that is its own cause, as CrewAI's OpenAI provider does (``e from e``)."""

    async def on_message(
        self, msg, tools, history, participants_msg, contacts_msg, *, is_session_bootstrap, room_id
    ):  # type: ignore[no-untyped-def]
        self.calls += 1
        error = RuntimeError("model said 500")
        raise error from error


def test_an_error_that_is_its_own_cause_settles_the_turn(platform: RestartablePlatform) -> None:
    """A looping cause chain does not hang the room: the message is failed, the room goes on."""

    async def scenario(r: InRoom) -> None:
        adapter = SelfCaused()
        async with r.agent(adapter):
            mid = await r.send("fail once")
            await r.reaches(mid, "failed")
            second = await r.send("and again")
            await r.reaches(second, "failed")
        assert adapter.calls == 2

    in_room(platform, "SelfCaused", scenario)


class Silent(SimpleAdapter[Any]):
    """Posts a thought event only: that observes, it does not answer."""

    async def on_message(
        self, msg, tools, history, participants_msg, contacts_msg, *, is_session_bootstrap, room_id
    ):  # type: ignore[no-untyped-def]
        await tools.send_event("thinking about it", "thought")


class Declines(SimpleAdapter[Any]):
    """Declines every message with band_no_reply."""

    async def on_message(
        self, msg, tools, history, participants_msg, contacts_msg, *, is_session_bootstrap, room_id
    ):  # type: ignore[no-untyped-def]
        await tools.no_reply("not for me")


def test_turn_without_reply_posts_the_missing_reply_error(platform: RestartablePlatform) -> None:
    """A turn that only observes posts the missing-reply error event and is marked failed."""

    async def scenario(r: InRoom) -> None:
        async with r.agent(Silent()):
            await r.reaches(await r.send("say something"), "failed")
            await asyncio.sleep(0.5)
        errors = await r.replies("error")
        assert [e["content"] for e in errors] == [MISSING_REPLY]
        assert errors[0]["metadata"]["failure"]["provider"] == "band-runtime"
        assert len(await r.replies("thought")) == 1

    in_room(platform, "Silent", scenario)


def test_missing_reply_report_can_be_turned_off(platform: RestartablePlatform) -> None:
    """report_turn_failures_to_room=False keeps the event out; the message is still failed."""

    async def scenario(r: InRoom) -> None:
        async with r.agent(Silent(), report_turn_failures_to_room=False):
            await r.reaches(await r.send("say something"), "failed")
        assert await r.replies("error") == []

    in_room(platform, "Silent", scenario)


class ReportsAndFails(Boom):
    """Reports its own failure, then fails the turn (as the ACP adapter does on a crash)."""

    async def on_message(
        self, msg, tools, history, participants_msg, contacts_msg, *, is_session_bootstrap, room_id
    ):  # type: ignore[no-untyped-def]
        self.calls += 1
        await tools.send_failure(AgentFailure("my-provider", "the backend fell over"))
        tools.turn.fail("backend down")


def test_turn_failed_by_the_adapter_is_marked_failed_once(platform: RestartablePlatform) -> None:
    """turn.fail(): the adapter's error event only, the message failed, never run again."""

    async def scenario(r: InRoom) -> None:
        adapter = ReportsAndFails()
        async with r.agent(adapter, max_message_retries=3):
            await r.reaches(await r.send("try it"), "failed")
            await asyncio.sleep(0.8)  # idle resyncs: the budget would allow more attempts
            assert adapter.calls == 1
        errors = await r.replies("error")
        assert [(e["content"], e["metadata"]["failure"]["provider"]) for e in errors] == [
            ("the backend fell over", "my-provider")
        ]

    in_room(platform, "Fails", scenario)


def test_no_reply_completes_the_turn(platform: RestartablePlatform) -> None:
    """band_no_reply settles the turn: processed, nothing posted."""

    async def scenario(r: InRoom) -> None:
        async with r.agent(Declines()):
            await r.reaches(await r.send("fyi"))
        rows = [m for m in await r.human.messages(r.rid) if m["sender_id"] == r.aid]
        assert rows == []

    in_room(platform, "Quiet", scenario)


async def _calls_at_least(adapter: Boom, n: int) -> bool:
    return adapter.calls >= n


class Hangs(SimpleAdapter[Any]):
    """Never answers."""

    async def on_message(self, *args: Any, **kwargs: Any) -> None:
        await asyncio.Event().wait()


def test_turn_over_max_cycle_seconds_fails(platform: RestartablePlatform) -> None:
    """A turn longer than max_cycle_seconds is cancelled, reported and marked failed."""

    async def scenario(r: InRoom) -> None:
        async with r.agent(Hangs(), max_cycle_seconds=0.3):
            await r.reaches(await r.send("take your time"), "failed")
            await r.reaches(await r.send("next one"), "failed")
        errors = await r.replies("error")
        assert [e["content"] for e in errors] == [ADAPTER_FAILED, ADAPTER_FAILED]

    in_room(platform, "Slow", scenario)


class Sleepy(Echo):
    """Echoes after a pause longer than the default working-indicator grace."""

    async def on_message(self, msg, tools, *args, **kw):  # type: ignore[no-untyped-def]
        await asyncio.sleep(0.9)
        await super().on_message(msg, tools, *args, **kw)


def _activity_reports(
    platform: RestartablePlatform, adapter: Any, *, grace: float = 0.5
) -> list[bool]:
    """The ``working`` values the agent posts while it answers one message."""
    reports: list[bool] = []

    async def scenario(r: InRoom) -> None:
        agent = r.agent(
            adapter,
            working_keep_alive_seconds=0.1,
            working_request_timeout_seconds=0.09,
            working_indicator_delay_s=grace,
        )
        rest = agent.runtime.rest
        send = rest.request

        async def observe(method: str, url: str, **kw: Any) -> Any:  # every call the SDK makes
            if url.endswith(f"/chats/{r.rid}/activity"):
                reports.append(kw["json"]["working"])
            return await send(method, url, **kw)

        rest.request = observe  # type: ignore[method-assign]
        async with agent:
            await r.reaches(await r.send("work"))
        assert await r.replies()  # the turn did answer

    in_room(platform, "Slow", scenario)
    return reports


def test_working_state_is_reported_around_a_slow_turn(platform: RestartablePlatform) -> None:
    """A turn past the grace reports working:true (kept alive) and false at its end."""
    reports = _activity_reports(platform, Sleepy(), grace=0.2)  # ~7 keep-alives in a 0.9 s turn
    assert reports[0] is True and reports[-1] is False
    assert reports.count(True) >= 3 and reports.count(False) == 1  # kept alive


def test_fast_turn_sends_no_working_state(platform: RestartablePlatform) -> None:
    """A turn done within working_indicator_delay_s posts no activity at all."""
    # a grace no echo turn outlasts, even on a loaded CI host (it used to race 0.5 s)
    assert _activity_reports(platform, Echo(), grace=30.0) == []
