"""band-sdk's composition API (issue 55): BandLink + RoomPresence + an Execution per room,
and band-sdk's AgentRuntime(link, agent_id, on_execute) / ExecutionContext(room_id, link,
on_execute) calls on our runtime.

A hand-composed agent on the real local platform: the link streams the pushes, the presence
joins the existing room and the rooms the agent is added to and leaves the ones it is removed
from, and a per-room ``Execution`` answers each message and settles it on the link.
"""

from __future__ import annotations

import asyncio
from typing import Any, get_args

import pytest
from bandtest.agents import Human, plain, wait_for
from bandtest.platform import Live, room_with

from band import (
    AgentRuntime,
    BandLink,
    ConversationContext,
    Execution,
    ExecutionContext,
    MessageRetryTracker,
    RoomPresence,
)
from band.platform import SettlementResult
from band.platform.link import LinkEvent, RoomAddedEvent
from band.runtime import ExecutionHandler, MessageHandler
from band.runtime.rooms.events import MessageEvent, ParticipantAddedEvent
from band.runtime.tools import AgentTools


class Answerer:
    """One room's execution: answers each human message and settles it on the link."""

    def __init__(self, room_id: str, link: BandLink) -> None:
        self.room_id = room_id
        self.link = link
        self.started = False
        self.notes: list[str] = []
        self.contexts: list[ConversationContext] = []

    async def start(self) -> None:
        self.started = True

    async def stop(self, timeout: float | None = None) -> bool:
        self.started = False
        return True

    def inject_system_message(self, message: str) -> None:
        self.notes.append(message)

    async def request_resync(self) -> None:
        """Nothing to catch up: every message arrives as a push while the test runs."""

    def interrupt(self, *, kind: str = "interrupt") -> bool:
        return False

    def stop_room(self) -> None:
        self.started = False

    async def resume_room(self) -> None:
        self.started = True

    async def on_event(self, event: LinkEvent) -> None:
        if not isinstance(event, MessageEvent) or event.payload is None:
            return
        msg = event.payload
        if msg.sender_id == self.link.agent_id:
            return
        assert await self.link.mark_processing(self.room_id, msg.id)
        context = await ConversationContext.fetch(self.link.rest, self.room_id, self.link.agent_id)
        self.contexts.append(context)
        tools = AgentTools(self.room_id, self.link.rest, agent_id=self.link.agent_id)
        await tools.send_message(f"got: {msg.content}", mentions=[msg.sender_id])
        result = await self.link.mark_processed_result(self.room_id, msg.id)
        assert result is SettlementResult.ACCEPTED


def test_a_composed_agent_joins_answers_and_leaves_rooms(live: Live) -> None:
    aid, _, key = live.register("Composed")
    first = room_with(live, aid, title="existing")

    async def scenario() -> None:
        human = Human(live)
        link = BandLink(aid, key, ws_url=live.ws, rest_url=live.rest)
        presence = RoomPresence(link)
        executions: dict[str, Answerer] = {}
        joined: list[tuple[str, Any]] = []
        left: list[str] = []

        async def on_joined(room_id: str, room: dict[str, Any]) -> None:
            joined.append((room_id, room))
            execution = Answerer(room_id, link)
            assert isinstance(execution, Execution)  # the protocol a per-room execution meets
            executions[room_id] = execution
            await execution.start()

        async def on_event(room_id: str, event: LinkEvent) -> None:
            await executions[room_id].on_event(event)

        async def on_left(room_id: str) -> None:
            left.append(room_id)
            await executions.pop(room_id).stop()

        presence.on_room_joined = on_joined
        presence.on_room_event = on_event
        presence.on_room_left = on_left
        try:
            await presence.start()
            assert link.is_connected
            assert presence.rooms == [first] and joined[0][0] == first
            assert joined[0][1]["id"] == first and link.is_room_subscribed(first)

            mid = await human.send(first, aid, "hello")
            await wait_for(lambda: human.status_is(first, mid, aid, "processed"))
            replies = await human.replies(first, aid)
            assert [plain(r["content"]) for r in replies] == ["got: hello"]
            context = executions[first].contexts[0]
            assert context.room_id == first and mid in [m["id"] for m in context.messages]
            assert aid in [p["id"] for p in context.participants]

            second = await asyncio.to_thread(room_with, live, aid, title="added")
            await wait_for(lambda: second in presence.rooms)
            mid2 = await human.send(second, aid, "again")
            await wait_for(lambda: human.status_is(second, mid2, aid, "processed"))

            r = await human.http.delete(f"/api/v1/me/chats/{second}/participants/{aid}")
            assert r.status_code == 200, r.text
            await wait_for(lambda: left == [second])
            assert presence.rooms == [first] and not link.is_room_subscribed(second)
        finally:
            await presence.stop()
            await link.disconnect()
            await human.aclose()
        assert left == [second, first] and presence.rooms == []

    asyncio.run(scenario())


def test_the_link_streams_events_and_reports_why_a_mark_did_not_settle(live: Live) -> None:
    aid, _, key = live.register("Linked")

    async def scenario() -> None:
        human = Human(live)
        link = BandLink(aid, key, ws_url=live.ws, rest_url=live.rest)
        try:
            await link.connect()
            await link.subscribe_agent_rooms(aid)
            events = aiter(link)
            rid = await asyncio.to_thread(room_with, live, aid)
            added = await asyncio.wait_for(anext(events), 10)
            assert isinstance(added, RoomAddedEvent) and added.room_id == rid
            await link.subscribe_room(rid)
            mid = await human.send(rid, aid, "ping")
            while not isinstance(event := await asyncio.wait_for(anext(events), 10), MessageEvent):
                pass
            assert event.room_id == rid and event.payload is not None
            assert event.payload.id == mid and plain(event.payload.content) == "ping"
            # no processing attempt was opened: the platform cannot settle it, and says so
            assert await link.mark_processed_result(rid, mid) is SettlementResult.REJECTED
            # what the room owes the agent, read the three ways the link offers
            assert (await link.get_next_message(rid)).id == mid  # type: ignore[union-attr]
            page = await link.get_actionable_page(rid)
            assert [m.id for m in page.messages] == [mid] and page.next_cursor is None
            owed = await link.get_actionable_message(rid, mid)
            assert owed is not None and plain(owed.content) == "ping" and owed.room_id == rid
            assert await link.mark_processing(rid, mid)
            stale = await link.get_stale_processing_messages(rid)
            assert [m.id for m in stale] == [mid]
            assert await link.report_activity(rid, True)
            assert await link.mark_processed_result(rid, mid) is SettlementResult.ACCEPTED
            assert await link.get_next_message(rid) is None
            assert await link.get_actionable_message(rid, mid) is None
            missing = "00000000-0000-0000-0000-000000000000"
            assert await link.mark_failed_result(rid, missing, "x") is SettlementResult.NOT_FOUND
        finally:
            await link.disconnect()
            await human.aclose()
        assert [e async for e in link] == []  # iteration ends once disconnected

    asyncio.run(scenario())


def test_message_retry_tracker_counts_runs_against_the_budget() -> None:
    tracker = MessageRetryTracker(max_retries=2, room_id="r")
    assert tracker.max_retries == 2
    assert tracker.record_attempt("m") == (1, False)
    tracker.discard_attempt("m")  # an interrupted run is not charged
    assert tracker.record_attempt("m") == (1, False)
    assert tracker.record_attempt("m") == (2, False)
    assert tracker.record_attempt("m") == (3, True)
    assert tracker.is_permanently_failed("m")
    tracker.mark_success("ok")
    assert not tracker.is_permanently_failed("ok")
    tracker.mark_permanently_failed("bad")
    assert tracker.is_permanently_failed("bad")


def test_the_handler_types_take_what_the_runtime_hands_over() -> None:
    """MessageHandler gets (message, tools); ExecutionHandler (room context, event)."""

    message_args, _ = get_args(MessageHandler)
    assert message_args == ["PlatformMessage", "AgentTools"]
    handler_args, _ = get_args(ExecutionHandler)
    assert handler_args == [Any, "LinkEvent"]


def test_band_sdks_agent_runtime_composition_answers_once_and_calls_its_hooks(
    live: Live,
) -> None:
    """band-sdk's docstring composition, ``AgentRuntime(link, agent_id, on_execute, ...)``,
    runs on our runtime: each message reaches on_execute once (claimed, marked, settled),
    participant changes reach their hooks and on_execute, leaving a room cleans it up."""
    aid, _, key = live.register("HandComposed")
    other, _, _ = live.register("Bystander")
    rid = room_with(live, aid, title="composed")

    async def scenario() -> None:
        human = Human(live)
        link = BandLink(aid, key, ws_url=live.ws, rest_url=live.rest)
        runs: list[tuple[str, str]] = []  # (room, message id) per on_execute run on a message
        seen: list[Any] = []  # every event on_execute got, in order
        added: list[tuple[str, str | None]] = []
        removed: list[tuple[str, str | None]] = []
        cleaned: list[str] = []

        async def on_execute(ctx: ExecutionContext, event: Any) -> None:
            seen.append(event)
            if isinstance(event, MessageEvent) and event.payload is not None:
                runs.append((ctx.room_id, event.payload.id))
                history = ctx.get_history_for_llm()
                tools = AgentTools.from_context(ctx)
                text = f"got: {event.payload.content} ({len(ctx.participants)} here)"
                await tools.send_message(text, mentions=[event.payload.sender_id])
                assert isinstance(history, list)

        async def on_added(room_id: str, event: Any) -> None:
            added.append((room_id, event.payload.id if event.payload else None))

        async def on_removed(room_id: str, event: Any) -> None:
            removed.append((room_id, event.payload.id if event.payload else None))

        async def on_cleanup(room_id: str) -> None:
            cleaned.append(room_id)

        runtime = AgentRuntime(
            link,
            aid,
            on_execute,
            on_session_cleanup=on_cleanup,
            on_participant_added=on_added,
            on_participant_removed=on_removed,
        )
        running = asyncio.create_task(runtime.run(install_signal_handlers=False))
        try:
            await wait_for(lambda: rid in runtime.rooms and runtime.rooms[rid].running)
            first = await human.send(rid, aid, "hello")
            await wait_for(lambda: human.status_is(rid, first, aid, "processed"))
            second = await human.send(rid, aid, "again")
            await wait_for(lambda: human.status_is(rid, second, aid, "processed"))
            replies = [plain(r["content"]) for r in await human.replies(rid, aid)]
            assert replies == ["got: hello (2 here)", "got: again (2 here)"]
            assert runs == [(rid, first), (rid, second)]  # each message ran exactly once

            body = {"participant": {"participant_id": other}}
            r = await human.http.post(f"/api/v1/me/chats/{rid}/participants", json=body)
            assert r.status_code == 201, r.text
            await wait_for(lambda: added == [(rid, other)])
            r = await human.http.delete(f"/api/v1/me/chats/{rid}/participants/{other}")
            assert r.status_code == 200, r.text
            await wait_for(lambda: removed == [(rid, other)])
            kinds = [type(e).__name__ for e in seen]
            assert kinds[-2:] == ["ParticipantAddedEvent", "ParticipantRemovedEvent"]

            r = await human.http.delete(f"/api/v1/me/chats/{rid}/participants/{aid}")
            assert r.status_code == 200, r.text
            await wait_for(lambda: cleaned == [rid])
            assert rid not in runtime.rooms
        finally:
            await runtime.stop()
            await asyncio.wait_for(running, 30)
            await human.aclose()
        assert not link.is_connected and runs == [(rid, first), (rid, second)]

    asyncio.run(scenario())


def test_band_sdks_execution_context_runs_one_room_fed_by_its_caller(live: Live) -> None:
    """``ExecutionContext(room_id, link, on_execute)``: start() answers what the room already
    owes the agent, on_event() queues pushed messages (each runs once, even when fed twice)
    and participant changes (hook, then on_execute); stop_room() parks the room and
    resume_room() catches up on what arrived meanwhile."""
    aid, _, key = live.register("OneRoom")
    other, _, _ = live.register("Visitor")
    rid = room_with(live, aid, title="one room")

    async def scenario() -> None:
        human = Human(live)
        link = BandLink(aid, key, ws_url=live.ws, rest_url=live.rest)
        runs: list[str] = []
        seen: list[str] = []
        added: list[tuple[str, str | None]] = []

        async def on_execute(ctx: ExecutionContext, event: Any) -> None:
            seen.append(type(event).__name__)
            if isinstance(event, MessageEvent) and event.payload is not None:
                runs.append(event.payload.id)
                tools = AgentTools.from_context(ctx)
                await tools.send_message(
                    f"got: {event.payload.content}", mentions=[event.payload.sender_id]
                )

        async def on_added(room_id: str, event: Any) -> None:
            added.append((room_id, event.payload.id if event.payload else None))

        ctx = ExecutionContext(rid, link, on_execute, on_participant_added=on_added)
        assert ctx.agent_id == aid and ctx.thread_id == rid and not ctx.is_running
        waiting = await human.send(rid, aid, "before start")
        try:
            await link.connect()
            await link.subscribe_room(rid)
            await ctx.start()
            assert ctx.is_running
            await wait_for(lambda: human.status_is(rid, waiting, aid, "processed"))
            pushed = await human.send(rid, aid, "pushed")
            events = aiter(link)
            async for event in events:  # the agent's own reply is pushed too: fed, and ignored
                await ctx.on_event(event)
                if isinstance(event, MessageEvent) and event.payload and event.payload.id == pushed:
                    break
            await ctx.on_event(event)  # a duplicate delivery: still one run
            await wait_for(lambda: human.status_is(rid, pushed, aid, "processed"))
            assert ctx.interrupt() is False  # no turn is running

            body = {"participant": {"participant_id": other}}
            r = await human.http.post(f"/api/v1/me/chats/{rid}/participants", json=body)
            assert r.status_code == 201, r.text
            async for event in events:
                await ctx.on_event(event)
                if isinstance(event, ParticipantAddedEvent):
                    break
            assert added == [(rid, other)] and seen[-1] == "ParticipantAddedEvent"
            assert other in [p["id"] for p in ctx.participants]

            ctx.stop_room()
            await wait_for(lambda: ctx.is_stopped)
            parked = await human.send(rid, aid, "while parked")  # not fed: /next serves it
            await ctx.resume_room()
            await wait_for(lambda: human.status_is(rid, parked, aid, "processed"))
            assert await ctx.stop(timeout=5) is True
            replies = [plain(r["content"]) for r in await human.replies(rid, aid)]
        finally:
            await link.disconnect()
            await human.aclose()
        assert runs == [waiting, pushed, parked]
        assert replies == ["got: before start", "got: pushed", "got: while parked"]

    asyncio.run(scenario())


def test_the_composition_call_and_the_keyword_call_are_not_mixed(live: Live) -> None:
    aid, _, key = live.register("Mixed")
    link = BandLink(aid, key, ws_url=live.ws, rest_url=live.rest)

    async def on_execute(ctx: Any, event: Any) -> None:
        """Never run: the constructor refuses first."""

    with pytest.raises(TypeError, match="not both"):
        AgentRuntime(link, aid, on_execute, api_key=key)
    with pytest.raises(TypeError, match="on_execute needs a BandLink"):
        AgentRuntime(None, aid, on_execute)
    with pytest.raises(TypeError, match="on_execute needs a BandLink"):
        AgentRuntime(None, aid, None, Answerer)
    with pytest.raises(RuntimeError, match="runs inside the runtime"):
        asyncio.run(ExecutionContext("r", rest=link.rest, agent_id=aid).start())


def test_the_composition_filters_rooms_takes_control_messages_and_hears_stops(
    live: Live,
) -> None:
    """room_filter decides which rooms the runtime joins; on_message_control settles a
    control message without a turn; a platform stop reaches on_control with its room."""
    aid, _, key = live.register("Controlled")
    kept = room_with(live, aid, title="kept")
    skipped = room_with(live, aid, title="skipped")

    async def scenario() -> None:
        human = Human(live)
        link = BandLink(aid, key, ws_url=live.ws, rest_url=live.rest)
        runs: list[str] = []
        controls: list[str] = []
        modes: list[tuple[str, str]] = []
        filtered: list[Any] = []

        def room_filter(room: dict[str, Any]) -> bool:
            filtered.append(room.get("title"))
            return room.get("title") != "skipped"

        async def on_execute(ctx: ExecutionContext, event: Any) -> None:
            if isinstance(event, MessageEvent) and event.payload is not None:
                runs.append(event.payload.content)
                tools = AgentTools.from_context(ctx)
                await tools.send_message("a turn", mentions=[event.payload.sender_id])

        async def on_message_control(ctx: ExecutionContext, event: MessageEvent) -> bool:
            if event.payload is None or plain(event.payload.content) != "/ping":
                return False
            controls.append(ctx.room_id)
            tools = AgentTools.from_context(ctx)
            await tools.send_message("pong", mentions=[event.payload.sender_id])
            return True

        async def on_control(room_id: str, mode: str) -> None:
            modes.append((room_id, str(mode)))

        runtime = AgentRuntime(
            link,
            aid,
            on_execute,
            room_filter=room_filter,
            on_control=on_control,
            on_message_control=on_message_control,
        )
        try:
            await runtime.start()
            assert list(runtime.rooms) == [kept] and sorted(filtered) == ["kept", "skipped"]
            ping = await human.send(kept, aid, "/ping")
            await wait_for(lambda: human.status_is(kept, ping, aid, "processed"))
            hello = await human.send(kept, aid, "hello")
            await wait_for(lambda: human.status_is(kept, hello, aid, "processed"))
            assert controls == [kept] and [plain(r) for r in runs] == ["hello"]
            replies = [plain(r["content"]) for r in await human.replies(kept, aid)]
            assert replies == ["pong", "a turn"]
            await human.control(kept, aid, "stop")
            await wait_for(lambda: modes == [(kept, "stop")])
            assert await human.status(skipped, ping, aid) is None  # never the agent's here
        finally:
            await runtime.stop()
            await human.aclose()

    asyncio.run(scenario())


def test_an_execution_factory_runs_the_callers_own_execution_per_room(live: Live) -> None:
    """band-sdk's execution_factory: the runtime joins the rooms and feeds each one's own
    execution its events in order; controls and the room's release reach it."""
    aid, _, key = live.register("Factory")
    rid = room_with(live, aid, title="own execution")

    async def scenario() -> None:
        human = Human(live)
        link = BandLink(aid, key, ws_url=live.ws, rest_url=live.rest)
        made: dict[str, Answerer] = {}
        hubs: list[str | None] = []
        executed: list[Any] = []
        cleaned: list[str] = []

        def factory(room_id: str, link: Any, *, hub_room_id: str | None = None) -> Answerer:
            hubs.append(hub_room_id)
            made[room_id] = Answerer(room_id, link)
            return made[room_id]

        async def on_execute(ctx: ExecutionContext, event: Any) -> None:
            executed.append(event)  # the factory's executions handle every event instead

        async def on_cleanup(room_id: str) -> None:
            cleaned.append(room_id)

        runtime = AgentRuntime(link, aid, on_execute, factory, on_session_cleanup=on_cleanup)
        try:
            await runtime.start()
            await wait_for(lambda: rid in made and made[rid].started)
            assert hubs == [None] and isinstance(made[rid], Execution)
            mid = await human.send(rid, aid, "hello")
            await wait_for(lambda: human.status_is(rid, mid, aid, "processed"))
            replies = [plain(r["content"]) for r in await human.replies(rid, aid)]
            assert replies == ["got: hello"] and executed == []
            await human.control(rid, aid, "stop")
            await wait_for(lambda: not made[rid].started)
            await human.control(rid, aid, "play")
            await wait_for(lambda: made[rid].started)
            r = await human.http.delete(f"/api/v1/me/chats/{rid}/participants/{aid}")
            assert r.status_code == 200, r.text
            await wait_for(lambda: cleaned == [rid])
            assert not made[rid].started and rid not in runtime.rooms
        finally:
            await runtime.stop()
            await human.aclose()

    asyncio.run(scenario())
