"""Rooms and control: room_added / room_removed, participant events, agent.control."""

from __future__ import annotations

import asyncio
import functools
from typing import Any

import pytest
from bandtest.platform import RestartablePlatform, room_with

from band.runtime.pushes import WireStats
from band.runtime.rooms import execution
from band.runtime.rooms.events import ParticipantAddedEvent, ParticipantRemovedEvent

from .conftest import Echo, Human, InRoom, agent_in_rooms, fast_agent, in_room, plain, wait_for


class Recorder(Echo):
    """Echo that keeps what each turn was given."""

    def __init__(self) -> None:
        super().__init__()
        self.inputs: list[dict[str, Any]] = []

    async def on_message(
        self, msg, tools, history, participants_msg, contacts_msg, *, is_session_bootstrap, room_id
    ):  # type: ignore[no-untyped-def]
        self.inputs.append(
            {
                "participants_msg": participants_msg,
                "bootstrap": is_session_bootstrap,
                "history": [m["id"] for m in history.raw],
                "room_id": room_id,
                "sender_name": msg.sender_name,
            }
        )
        await super().on_message(
            msg,
            tools,
            history,
            participants_msg,
            contacts_msg,
            is_session_bootstrap=is_session_bootstrap,
            room_id=room_id,
        )


def test_room_added_and_removed(platform: RestartablePlatform) -> None:
    """A room the agent is added to while running is joined; removal leaves it."""
    live = platform.running
    aid, _, key = live.register("Echo")

    async def scenario() -> None:
        human = Human(live)
        adapter = Echo()
        async with fast_agent(live, adapter, aid, key) as agent:
            assert agent.runtime.rooms == {}
            rid = await asyncio.to_thread(room_with, live, aid)
            await wait_for(lambda: rid in agent.runtime.rooms)
            mid = await human.send(rid, aid, "new room")
            await wait_for(lambda: human.status_is(rid, mid, aid, "processed"))
            r = await human.http.delete(f"/api/v1/me/chats/{rid}/participants/{aid}")
            assert r.status_code == 200, r.text
            await wait_for(lambda: rid not in agent.runtime.rooms)
            conn = live.app.state.fanout.agent_connected(aid)
            assert f"chat_room:{rid}" not in conn.topics
            assert f"room_participants:{rid}" not in conn.topics
        assert [plain(r["content"]) for r in await human.replies(rid, aid)] == ["echo: new room"]
        await human.aclose()

    asyncio.run(scenario())


def test_turn_input_participants_and_history(platform: RestartablePlatform) -> None:
    """First turn: bootstrap with the participant list; later turns: history, list on change."""
    live = platform.running
    aid, _, key = live.register("Echo")
    other, _, _ = live.register("Helper")
    rid = room_with(live, aid)

    async def scenario() -> None:
        human = Human(live)
        adapter = Recorder()
        events: list[tuple[str, str, str]] = []

        async def added(room_id: str, event: ParticipantAddedEvent) -> None:
            assert event.payload is not None
            events.append((event.type, room_id, event.payload.name))

        async def removed(room_id: str, event: ParticipantRemovedEvent) -> None:
            assert event.payload is not None
            events.append((event.type, room_id, event.payload.name))

        callbacks = {"on_participant_added": added, "on_participant_removed": removed}
        async with fast_agent(live, adapter, aid, key, callbacks):
            first = await human.send(rid, aid, "one")
            await wait_for(lambda: human.status_is(rid, first, aid, "processed"))
            second = await human.send(rid, aid, "two")
            await wait_for(lambda: human.status_is(rid, second, aid, "processed"))
            body = {"participant": {"participant_id": other}}
            r = await human.http.post(f"/api/v1/me/chats/{rid}/participants", json=body)
            assert r.status_code == 201, r.text
            await asyncio.sleep(0.2)  # the participant_added push
            third = await human.send(rid, aid, "three")
            await wait_for(lambda: human.status_is(rid, third, aid, "processed"))
            r = await human.http.delete(f"/api/v1/me/chats/{rid}/participants/{other}")
            assert r.status_code == 200, r.text
            await wait_for(lambda: len(events) == 2)
        assert events == [
            ("participant_added", rid, "Helper"),
            ("participant_removed", rid, "Helper"),
        ]
        one, two, three = adapter.inputs
        assert one["bootstrap"] and not two["bootstrap"] and not three["bootstrap"]
        assert one["participants_msg"] and "Echo" in one["participants_msg"]
        assert "Helper" not in one["participants_msg"]
        assert two["participants_msg"] is None  # unchanged since it was sent
        assert "Helper" in three["participants_msg"]
        assert first not in one["history"] and first in two["history"]
        assert {one["room_id"], two["room_id"]} == {rid}
        await human.aclose()

    asyncio.run(scenario())


class Gated(Echo):
    """Echo whose first turn blocks until cancelled or released."""

    def __init__(self) -> None:
        super().__init__()
        self.gate = asyncio.Event()
        self.entered = asyncio.Event()
        self.interrupts: list[tuple[str, str]] = []

    async def on_message(self, msg, tools, *args, **kw):  # type: ignore[no-untyped-def]
        if not self.entered.is_set():
            self.entered.set()
            await self.gate.wait()
        await super().on_message(msg, tools, *args, **kw)

    async def on_interrupt(self, room_id: str, mode: str) -> None:
        self.interrupts.append((room_id, mode))


async def _control_mid_turn(r: InRoom, adapter: Gated, text: str, mode: str) -> str:
    """Send ``text``; once its turn is running, apply the room control ``mode``."""
    mid = await r.send(text)
    await asyncio.wait_for(adapter.entered.wait(), 10)
    await r.human.control(r.rid, r.aid, mode)
    return mid


def test_stop_parks_the_room_and_play_resumes(platform: RestartablePlatform) -> None:
    """stop cancels the turn and leaves messages for replay; play answers each once."""

    async def scenario(r: InRoom) -> None:
        adapter = Gated()
        async with r.agent(adapter):
            first = await _control_mid_turn(r, adapter, "first", "stop")
            await wait_for(lambda: adapter.interrupts == [(r.rid, "stop")])
            second = await r.send("second")
            await asyncio.sleep(0.8)  # idle resyncs while stopped run nothing
            assert await r.replies() == []
            assert await r.human.status(r.rid, first, r.aid) == "processing"
            await r.human.control(r.rid, r.aid, "play")
            await r.reaches(first)
            await r.reaches(second)
            await asyncio.sleep(0.3)
        assert sorted(await r.texts()) == ["echo: first", "echo: second"]

    in_room(platform, "Echo", scenario)


def test_interrupt_ends_the_turn(platform: RestartablePlatform) -> None:
    """interrupt cancels the running turn (marked failed) and the room goes on."""

    async def scenario(r: InRoom) -> None:
        adapter = Gated()
        async with r.agent(adapter):
            first = await _control_mid_turn(r, adapter, "long task", "interrupt")
            await r.reaches(first, "failed")
            assert adapter.interrupts == [(r.rid, "interrupt")]
            await r.reaches(await r.send("next"))
        assert await r.texts() == ["echo: next"]

    in_room(platform, "Echo", scenario)


async def _attempts(r: InRoom, mid: str) -> list[dict[str, Any]]:
    """The agent's processing attempts on ``mid``, as the platform lists them."""
    for m in await r.human.messages(r.rid):
        if m["id"] == mid:
            return list(m["metadata"]["delivery_status"][r.aid]["attempts"])
    raise AssertionError(f"message {mid} is not in the room")


async def _stays_failed_at_two_restarts(r: InRoom, first: str) -> None:
    """Restart the agent twice: each start takes the failed ``first`` up again (a new attempt)
    and ends it at once without running it, then answers a new message."""
    for restart in (2, 3):
        again = Echo()
        async with r.agent(again):
            await wait_for(functools.partial(_attempts_ended, r, first, restart), timeout=30)
            await r.reaches(first, "failed")
            mid = await r.send(f"after restart {restart}")
            await r.reaches(mid)
        assert again.seen == [mid]
    assert await r.texts() == ["echo: after restart 2", "echo: after restart 3"]


def test_an_interrupted_message_is_not_run_after_a_restart(platform: RestartablePlatform) -> None:
    """The platform serves a failed message again after a restart; one the person interrupted
    stays failed without running (its turn is not redone), at the first restart and the next."""

    async def scenario(r: InRoom) -> None:
        adapter = Gated()
        async with r.agent(adapter):
            first = await _control_mid_turn(r, adapter, "long task", "interrupt")
            await r.reaches(first, "failed")
        assert [a["error"] for a in await _attempts(r, first)] == ["interrupted"]
        await _stays_failed_at_two_restarts(r, first)
        assert [a["error"] for a in await _attempts(r, first)] == ["interrupted"] * 3

    in_room(platform, "Echo", scenario)


class Silent(Echo):
    """Ends its turns without a reply (the runtime posts the no-reply error card)."""

    async def on_message(self, msg, tools, *args, **kw):  # type: ignore[no-untyped-def]
        self.seen.append(msg.id)


def test_a_reported_failure_is_not_run_at_any_restart(platform: RestartablePlatform) -> None:
    """A failed message whose error card is in the room is not run after a restart, nor after
    the next one (the first restart's attempt started after the card)."""

    async def scenario(r: InRoom) -> None:
        async with r.agent(Silent()):
            first = await r.send("say nothing")
            await r.reaches(first, "failed")
        await _stays_failed_at_two_restarts(r, first)
        assert len(await r.replies("error")) == 1

    in_room(platform, "Echo", scenario)


def test_a_message_behind_pages_of_failed_ones_is_answered(platform: RestartablePlatform) -> None:
    """120 messages an earlier process left failed for good stand before one sent while the
    agent was away: at start that one is answered (the actionable listing is walked past its
    first page of 100, which held only failed ones), and later drains start past that page."""

    async def scenario(r: InRoom) -> None:
        chat = f"/api/v1/agent/chats/{r.rid}/messages"
        for n in range(120):
            mid = await r.send(f"old {n}")
            assert r.live.agent(r.key, "POST", f"{chat}/{mid}/processing").status_code == 200
            body = {"error": "interrupted"}
            assert r.live.agent(r.key, "POST", f"{chat}/{mid}/failed", json=body).status_code == 200
        away = await r.send("while you were away")
        echo = Echo()
        agent = r.agent(echo)
        listings: list[dict[str, Any]] = []
        request = agent.runtime.rest.request

        async def recording(method: str, url: str, **kw: Any) -> Any:
            if method == "GET" and url.endswith("/messages"):
                listings.append(dict(kw.get("params") or {}))
            return await request(method, url, **kw)

        agent.runtime.rest.request = recording  # type: ignore[method-assign]
        async with agent:
            await r.reaches(away)
            await wait_for(lambda: len(listings) >= 4)  # the idle resyncs drain again
        assert echo.seen == [away]
        assert await r.texts() == ["echo: while you were away"]
        assert "cursor" not in listings[0] and listings[1].get("cursor")  # the whole walk
        assert all(q.get("cursor") == listings[1]["cursor"] for q in listings[2:])

    in_room(platform, "Echo", scenario)


def test_a_backlog_longer_than_a_drain_is_answered_before_a_later_message(
    platform: RestartablePlatform, monkeypatch: pytest.MonkeyPatch
) -> None:
    """More messages wait at start than one drain runs (``MAX_DRAIN``, made 5 here): the rest
    of the backlog runs next, oldest first, before a message pushed meanwhile, and without
    waiting for the idle resync."""
    monkeypatch.setattr(execution, "MAX_DRAIN", 5)

    async def scenario(r: InRoom) -> None:
        backlog = [await r.send(f"old {n}") for n in range(8)]
        adapter = Gated()
        async with r.agent(adapter, idle_resync_seconds=60, idle_resync_max_seconds=60):
            await asyncio.wait_for(adapter.entered.wait(), 10)  # the drain's first turn
            pushed = await r.send("pushed meanwhile")
            adapter.gate.set()
            await r.reaches(pushed)
            await wait_for(lambda: len(adapter.seen) == 9)
        assert adapter.seen == [*backlog, pushed]

    in_room(platform, "Echo", scenario)


async def _attempts_ended(r: InRoom, mid: str, n: int) -> bool:
    """Whether the agent made ``n`` attempts on ``mid``, the last one ended (a ``wait_for``
    check)."""
    attempts = await _attempts(r, mid)
    return len(attempts) == n and attempts[-1]["status"] != "processing"


def test_room_deleted_is_left(platform: RestartablePlatform) -> None:
    """A deleted room (room_deleted / room_removed pushes) is dropped with its topics."""

    async def scenario(r: InRoom) -> None:
        rid, aid, human = r.rid, r.aid, r.human
        keep = await asyncio.to_thread(room_with, r.live, aid)
        async with r.agent(Echo()) as agent:
            await wait_for(lambda: {rid, keep} <= set(agent.runtime.rooms))
            resp = await human.http.post("/api/v1/me/chats/bulk-delete", json={"ids": [rid]})
            assert resp.status_code == 202, resp.text
            await wait_for(lambda: rid not in agent.runtime.rooms)
            conn = r.live.app.state.fanout.agent_connected(aid)
            # the agent's phx_leave reaches the platform just after it drops the room
            await wait_for(lambda: f"chat_room:{rid}" not in conn.topics)
            assert f"chat_room:{keep}" in conn.topics
            mid = await human.send(keep, aid, "still here")
            await wait_for(lambda: human.status_is(keep, mid, aid, "processed"))

    in_room(platform, "Echo", scenario)


def test_invalid_pushes_are_dropped(platform: RestartablePlatform) -> None:
    """A push that fails validation is dropped (counted); the room keeps working."""

    async def scenario(r: InRoom) -> None:
        adapter = Echo()
        async with r.agent(adapter) as agent:
            await wait_for(lambda: r.rid in agent.runtime.rooms)
            fanout = r.live.app.state.fanout
            dropped = WireStats.dropped
            bad = {"id": "x", "content": 5}  # no sender, content not a string
            await asyncio.to_thread(
                platform.call, fanout.push(f"chat_room:{r.rid}", "message_created", bad)
            )
            await asyncio.to_thread(
                platform.call, fanout.push(f"agent_rooms:{r.aid}", "room_added", {"id": 7})
            )
            await wait_for(lambda: WireStats.dropped == dropped + 2)
            mid = await r.send("fine")
            await r.reaches(mid)
            assert adapter.seen == [mid]

    in_room(platform, "Echo", scenario)


def test_room_pushes_without_a_handler_are_not_validated(platform: RestartablePlatform) -> None:
    """Only ``message_created`` is validated on a room's topic, as band-sdk 6.0.1 registers no
    other handler there: an invalid ``message_updated`` or ``event_created`` is neither
    counted nor logged, an invalid ``message_created`` after them is."""

    async def scenario(r: InRoom) -> None:
        adapter = Echo()
        async with r.agent(adapter) as agent:
            await wait_for(lambda: r.rid in agent.runtime.rooms)
            fanout = r.live.app.state.fanout
            accepted, dropped = WireStats.accepted, WireStats.dropped
            topic = f"chat_room:{r.rid}"
            for event, payload in [
                ("message_updated", {"id": "x", "content": 5}),
                ("event_created", [1, 2]),
                ("message_created", {"id": "y", "content": 5}),
            ]:
                await asyncio.to_thread(platform.call, fanout.push(topic, event, payload))
            await wait_for(lambda: WireStats.dropped == dropped + 1)  # the frames come in order
            assert WireStats.accepted == accepted
            mid = await r.send("fine")
            await r.reaches(mid)
            assert adapter.seen == [mid]
            assert WireStats.dropped == dropped + 1

    in_room(platform, "Echo", scenario)


class Concurrency(Echo):
    """Echo that measures how many turns overlap, per room and overall."""

    def __init__(self) -> None:
        super().__init__()
        self.running: dict[str, int] = {}
        self.max_room = 0
        self.max_total = 0

    async def on_message(self, msg, tools, *args, **kw):  # type: ignore[no-untyped-def]
        room = kw["room_id"]
        self.running[room] = self.running.get(room, 0) + 1
        self.max_room = max(self.max_room, self.running[room])
        self.max_total = max(self.max_total, sum(self.running.values()))
        await asyncio.sleep(0.3)
        self.running[room] -= 1
        await super().on_message(msg, tools, *args, **kw)


def test_turns_serial_in_a_room_parallel_across_rooms(platform: RestartablePlatform) -> None:
    live, aid, key, rooms = agent_in_rooms(platform, "Echo", 2)

    async def scenario() -> None:
        human = Human(live)
        adapter = Concurrency()
        async with fast_agent(live, adapter, aid, key) as agent:
            await wait_for(lambda: set(rooms) <= set(agent.runtime.rooms))
            sent = [(rid, await human.send(rid, aid, f"m{i}")) for i in range(2) for rid in rooms]
            for rid, mid in sent:
                await wait_for(lambda rid=rid, mid=mid: human.status_is(rid, mid, aid, "processed"))
        assert adapter.max_room == 1 and adapter.max_total == 2
        for rid in rooms:
            assert sorted(plain(r["content"]) for r in await human.replies(rid, aid)) == [
                "echo: m0",
                "echo: m1",
            ]
        await human.aclose()

    asyncio.run(scenario())
