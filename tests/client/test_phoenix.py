"""PhoenixClient against the real local platform: joins, pushes, leaves, heartbeats, rejoins."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from bandtest.agents import FAST_POLICY, Human, wait_for
from bandtest.platform import Live, RestartablePlatform, restartable_platform, room_with

from band.client.phoenix import (
    JoinError,
    PhoenixClient,
    PhoenixError,
    SessionEndedError,
    socket_url,
)
from band_sdk_core import SessionPolicy, SessionState

#: The agents' fast policy, faster still: heartbeats and the watchdog in tenths of a second.
SETTINGS = {
    **FAST_POLICY,
    "max_delay_s": 0.2,
    "rapid_cooldown_max_s": 0.2,
    "rapid_threshold": 100,
    "heartbeat_interval_s": 0.2,
    "dead_threshold_s": 1.0,
}
POLICY = SessionPolicy(SETTINGS)


@pytest.fixture
def platform(tmp_path: Path) -> Iterator[RestartablePlatform]:
    yield from restartable_platform(tmp_path)


class Inbox:
    """Pushes received per topic, plus the reconnect hook's calls."""

    def __init__(self) -> None:
        self.pushes: list[tuple[str, str, dict[str, Any]]] = []
        self.reconnects: list[tuple[bool, list[str]]] = []

    def handler(self, topic: str) -> Callable[[str, dict[str, Any]], None]:
        def on_push(event: str, payload: dict[str, Any]) -> None:
            self.pushes.append((topic, event, payload))

        return on_push

    async def on_connected(self, reconnected: bool, failed: list[str]) -> None:
        self.reconnects.append((reconnected, failed))

    def events(self, topic: str, event: str) -> list[dict[str, Any]]:
        return [p for t, e, p in self.pushes if t == topic and e == event]

    async def first(self, topic: str, event: str) -> dict[str, Any]:
        """Wait for an ``event`` push on ``topic``; return the first one's payload."""
        await wait_for(lambda: self.events(topic, event))
        return self.events(topic, event)[0]

    async def reconnected(self, failed: list[str], timeout: float = 10.0) -> None:
        """Wait for the reconnect hook's second call; assert it followed a clean first connect
        and names ``failed`` as the topics it could not rejoin."""
        await wait_for(lambda: len(self.reconnects) == 2, timeout=timeout)
        assert self.reconnects == [(False, []), (True, failed)]


def registered(platform: RestartablePlatform) -> tuple[Live, str, str]:
    """The running platform with a newly registered agent: (live, agent id, agent key)."""
    live = platform.running
    aid, _, key = live.register("Socket")
    return live, aid, key


def client(live: Live, key: str, aid: str, inbox: Inbox, **kw: Any) -> PhoenixClient:
    return PhoenixClient(
        live.ws,
        api_key=key,
        params={"agent_id": aid},
        on_connected=inbox.on_connected,
        **{"policy": POLICY, **kw},
    )


@asynccontextmanager
async def joined(
    live: Live, key: str, aid: str, inbox: Inbox, *topics: str
) -> AsyncIterator[PhoenixClient]:
    """A connected client that joined ``topics`` (pushes into ``inbox``), closed at the end."""
    phx = client(live, key, aid, inbox)
    await phx.connect()
    for topic in topics:
        await phx.join(topic, inbox.handler(topic))
    yield phx
    await phx.close()


async def send(live: Live, rid: str, aid: str, text: str) -> str:
    human = Human(live)
    try:
        return await human.send(rid, aid, text)
    finally:
        await human.aclose()


def test_socket_url_merges_params() -> None:
    url = socket_url("ws://h/api/v1/socket/websocket?x=1", {"vsn": "2.0.0", "agent_id": "a"})
    assert url == "ws://h/api/v1/socket/websocket?x=1&vsn=2.0.0&agent_id=a"


def test_join_push_leave(platform: RestartablePlatform) -> None:
    """Joined topics get their pushes; after a leave they stop; the key travels as a header."""
    live, aid, key = registered(platform)
    rid = room_with(live, aid)
    inbox = Inbox()

    async def scenario() -> None:
        async with joined(live, key, aid, inbox) as phx:
            assert phx.connected and phx.state == SessionState.Up
            await wait_for(
                lambda: live.app.state.fanout.agent_connected(aid)
            )  # registered after accept
            conn = live.app.state.fanout.agent_connected(aid)
            assert conn.ws.query_params["vsn"] == "2.0.0"
            assert conn.ws.query_params["agent_id"] == aid
            assert "api_key" not in conn.ws.query_params
            assert conn.ws.headers["x-api-key"] == key
            topic = f"chat_room:{rid}"
            await phx.join(topic, inbox.handler(topic))
            assert phx.topics == [topic] and conn.topics[topic] is not None
            mid = await send(live, rid, aid, "hi")
            assert (await inbox.first(topic, "message_created"))["id"] == mid
            assert await phx.leave(topic) is True
            assert phx.topics == [] and topic not in conn.topics
            await send(live, rid, aid, "after leave")
            await asyncio.sleep(0.3)
            assert len(inbox.events(topic, "message_created")) == 1
        assert not phx.connected

    asyncio.run(scenario())


def test_join_with_events_takes_only_those(platform: RestartablePlatform) -> None:
    """A topic joined with ``events`` hands its handler only those events; the others (even
    one whose payload is no object) are dropped unparsed, while ``phx_error`` and the same
    events on other topics still flow, and a join without ``events`` takes everything again."""
    live, aid, key = registered(platform)
    rid = room_with(live, aid)
    inbox = Inbox()
    chat, people = f"chat_room:{rid}", f"room_participants:{rid}"
    fanout = live.app.state.fanout

    async def push(topic: str, event: str, payload: Any) -> None:
        await asyncio.to_thread(platform.call, fanout.push(topic, event, payload))

    async def scenario() -> None:
        async with joined(live, key, aid, inbox) as phx:
            await phx.join(chat, inbox.handler(chat), events=("message_created",))
            await phx.join(people, inbox.handler(people))
            await push(chat, "message_updated", {"id": "u1"})
            await push(chat, "event_created", [1, 2])
            await push(people, "message_updated", {"id": "u2"})
            mid = await send(live, rid, aid, "taken")
            await wait_for(lambda: inbox.events(chat, "message_created"))
            # frames arrive in order: the skipped ones came before the one taken
            assert [(t, e) for t, e, _ in inbox.pushes] == [
                (people, "message_updated"),
                (chat, "message_created"),
            ]
            assert inbox.events(chat, "message_created")[0]["id"] == mid
            # a phx_error still reaches the client on a filtered topic: it rejoins
            conn = fanout.agent_connected(aid)
            before = conn.topics[chat]
            await push(chat, "phx_error", {})
            await wait_for(lambda: conn.topics.get(chat) not in (None, before))
            await send(live, rid, aid, "after rejoin")
            await wait_for(lambda: len(inbox.events(chat, "message_created")) == 2)
            assert await phx.leave(chat) is True
            await phx.join(chat, inbox.handler(chat))  # joined again without a filter
            await push(chat, "message_updated", {"id": "u3"})
            assert (await inbox.first(chat, "message_updated"))["id"] == "u3"

    asyncio.run(scenario())


def test_join_refused(platform: RestartablePlatform) -> None:
    """A topic the key may not see is refused with the server's reason and not kept."""
    live, aid, key = registered(platform)
    other, _, _ = live.register("Other")
    inbox = Inbox()

    async def scenario() -> None:
        async with joined(live, key, aid, inbox) as phx:
            with pytest.raises(JoinError) as err:
                await phx.join(f"agent_control:{other}", inbox.handler("x"))
            assert err.value.reason == "unauthorized"
            assert phx.topics == []

    asyncio.run(scenario())


def test_joins_sent_together_each_get_their_reply(platform: RestartablePlatform) -> None:
    """Joins issued in one turn go out together; each waiter gets its own topic's reply."""
    live, aid, key = registered(platform)
    other, _, _ = live.register("Other")
    rooms = [room_with(live, aid) for _ in range(20)]
    inbox = Inbox()

    async def scenario() -> None:
        async with joined(live, key, aid, inbox) as phx:
            topics = [f"chat_room:{rid}" for rid in rooms]
            refused = f"agent_control:{other}"
            joins = [phx.join(t, inbox.handler(t)) for t in [*topics[:10], refused, *topics[10:]]]
            results = await asyncio.gather(*joins, return_exceptions=True)
            assert results.pop(10).reason == "unauthorized"  # type: ignore[union-attr]
            assert results == [None] * 20
            assert sorted(phx.topics) == sorted(topics)
            conn = live.app.state.fanout.agent_connected(aid)
            assert sorted(conn.topics) == sorted(topics)
            mid = await send(live, rooms[13], aid, "routed")
            assert (await inbox.first(topics[13], "message_created"))["id"] == mid

    asyncio.run(scenario())


def test_join_queued_as_the_socket_drops_fails_at_once(platform: RestartablePlatform) -> None:
    """A join whose frame was still queued when the socket dropped fails with the socket,
    not at its reply deadline."""
    live, aid, key = registered(platform)
    rid = room_with(live, aid)
    inbox = Inbox()

    async def scenario() -> None:
        phx = client(live, key, aid, inbox, join_timeout=30.0)
        await phx.connect()
        try:
            topic = f"chat_room:{rid}"
            join = asyncio.ensure_future(phx.join(topic, inbox.handler(topic)))
            await asyncio.sleep(0)  # the join's frame is queued, not yet written
            phx.abort()
            with pytest.raises(PhoenixError, match="socket closed before the reply"):
                await join
        finally:
            await phx.close()

    asyncio.run(scenario())


#: POLICY with a dead threshold a loaded machine's stall (2 cores shared by the suite) stays
#: under, still far shorter than the heartbeats the test below waits for.
PATIENT_POLICY = SessionPolicy({**SETTINGS, "dead_threshold_s": 3.0})


def test_heartbeats_are_acknowledged(platform: RestartablePlatform) -> None:
    """Acks keep the socket alive: heartbeats over twice the dead threshold, one connection."""
    live, aid, key = registered(platform)
    inbox = Inbox()
    beats = int(2 * PATIENT_POLICY.dead_threshold_s / PATIENT_POLICY.heartbeat_interval_s)

    async def scenario() -> None:
        phx = client(live, key, aid, inbox, policy=PATIENT_POLICY)
        await phx.connect()
        try:
            await wait_for(lambda: phx.heartbeats_acked >= beats, timeout=60)
            assert phx.connections == 1  # the watchdog never fired: each ack reset it
        finally:
            await phx.close()

    asyncio.run(scenario())


def test_rejoin_after_server_close(platform: RestartablePlatform) -> None:
    """Every topic is rejoined with fresh refs after the server closed the socket."""
    live, aid, key = registered(platform)
    rid = room_with(live, aid)
    inbox = Inbox()

    async def scenario() -> None:
        topics = [f"agent_rooms:{aid}", f"chat_room:{rid}"]
        async with joined(live, key, aid, inbox, *topics):
            before = dict(live.app.state.fanout.agent_connected(aid).topics)
            assert await asyncio.to_thread(platform.close_socket, aid, 1011)
            await inbox.reconnected([])
            conn = live.app.state.fanout.agent_connected(aid)
            assert sorted(conn.topics) == sorted(topics)
            assert all(conn.topics[t] != before[t] for t in topics)  # new join refs
            mid = await send(live, rid, aid, "after rejoin")
            assert (await inbox.first(topics[1], "message_created"))["id"] == mid

    asyncio.run(scenario())


def test_rejoin_survives_a_platform_restart(platform: RestartablePlatform) -> None:
    live, aid, key = registered(platform)
    inbox = Inbox()

    async def scenario() -> None:
        topic = f"agent_rooms:{aid}"
        async with joined(live, key, aid, inbox, topic):
            await asyncio.to_thread(platform.restart)
            await inbox.reconnected([])
            assert list(live.app.state.fanout.agent_connected(aid).topics) == [topic]
            rid = await asyncio.to_thread(room_with, live, aid)  # pushes room_added
            assert (await inbox.first(topic, "room_added"))["id"] == rid

    asyncio.run(scenario())


def test_failed_rejoin_is_reported(platform: RestartablePlatform) -> None:
    """A topic that cannot be rejoined (agent removed from the room) is named in the hook."""
    live, aid, key = registered(platform)
    rid = room_with(live, aid)
    inbox = Inbox()

    async def scenario() -> None:
        topic = f"chat_room:{rid}"
        async with joined(live, key, aid, inbox, topic) as phx:
            r = await asyncio.to_thread(
                live.human, "DELETE", f"/api/v1/me/chats/{rid}/participants/{aid}"
            )
            assert r.status_code == 200, r.text
            assert await asyncio.to_thread(platform.close_socket, aid, 1011)
            await inbox.reconnected([topic])
            assert phx.topics == []

    asyncio.run(scenario())


def test_conflict_reject_is_terminal(platform: RestartablePlatform) -> None:
    """on_conflict=reject while another connection is live: HTTP 409 ends the session."""
    live, aid, key = registered(platform)

    async def scenario() -> None:
        first = client(live, key, aid, Inbox())
        await first.connect()
        await wait_for(lambda: live.app.state.fanout.agent_connected(aid))
        second = client(live, key, aid, Inbox(), initial_params={"on_conflict": "reject"})
        with pytest.raises(SessionEndedError):
            await second.connect()
        assert second.state == SessionState.Dead
        assert first.connected
        await second.close()
        await first.close()

    asyncio.run(scenario())


def test_bad_key_keeps_retrying_until_closed(platform: RestartablePlatform) -> None:
    """401 on the upgrade is not terminal (the key may be rotated): the client backs off."""
    live = platform.running

    async def scenario() -> None:
        phx = client(live, "band_a_wrong", "nobody", Inbox())
        task = asyncio.ensure_future(phx.connect())
        await asyncio.sleep(0.5)
        assert not task.done() and not phx.connected
        assert phx.state == SessionState.Connecting
        await phx.close()
        task.cancel()

    asyncio.run(scenario())


def test_watchdog_drops_a_silent_socket(platform: RestartablePlatform) -> None:
    """Heartbeats unanswered for the dead threshold: the socket is dropped and rejoined."""
    live, aid, key = registered(platform)
    inbox = Inbox()

    async def scenario() -> None:
        topic = f"agent_rooms:{aid}"
        async with joined(live, key, aid, inbox, topic) as phx:
            await wait_for(lambda: phx.heartbeats_acked >= 1)
            assert platform.loop is not None
            # the platform stalls (its event loop blocked): the socket stays open, acks stop
            platform.loop.call_soon_threadsafe(time.sleep, POLICY.dead_threshold_s + 0.8)
            await inbox.reconnected([], timeout=15)
            assert phx.connections == 2 and phx.topics == [topic]

    asyncio.run(scenario())


def test_unanswered_joins_time_out_on_shared_timers(platform: RestartablePlatform) -> None:
    """Joins sent together while the platform stalls: each fails with "no reply", their
    deadlines share a few timers (not one per join), and the socket serves joins afterwards."""
    live, aid, key = registered(platform)
    rooms = [room_with(live, aid) for _ in range(3)]
    inbox = Inbox()

    async def scenario() -> None:
        phx = client(live, key, aid, inbox, join_timeout=0.3)
        await phx.connect()
        try:
            topics = [
                f"{kind}:{rid}" for rid in rooms for kind in ("chat_room", "room_participants")
            ]
            assert platform.loop is not None
            # the platform stalls for less than the watchdog's dead threshold: no reconnect
            platform.loop.call_soon_threadsafe(time.sleep, 0.7)
            await asyncio.sleep(0.05)
            joins = [asyncio.ensure_future(phx.join(t, inbox.handler(t))) for t in topics]
            await asyncio.sleep(0)
            assert 1 <= len(phx._deadlines) <= 2  # six requests, one or two shared timers
            results = await asyncio.gather(*joins, return_exceptions=True)
            assert all("no reply to phx_join" in str(r) for r in results), results
            assert phx.topics == [] and phx.connections == 1
            await phx.join(topics[0], inbox.handler(topics[0]))
            assert phx.topics == [topics[0]]
        finally:
            await phx.close()

    asyncio.run(scenario())
