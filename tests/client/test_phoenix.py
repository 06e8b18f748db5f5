"""PhoenixClient against the real local platform: joins, pushes, leaves, heartbeats, rejoins."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from bandtest.agents import Human, wait_for
from bandtest.platform import Live, RestartablePlatform, restartable_platform, room_with

from band.client.phoenix import JoinError, PhoenixClient, SessionEndedError, socket_url
from band_sdk_core import SessionPolicy, SessionState

POLICY = SessionPolicy(
    {
        "base_delay_s": 0.05,
        "factor": 2.0,
        "max_delay_s": 0.2,
        "stable_reset_s": 60.0,
        "rapid_disconnect_uptime_s": 0.5,
        "rapid_window_s": 300.0,
        "rapid_first_min_delay_s": 0.05,
        "rapid_second_min_delay_s": 0.1,
        "rapid_cooldown_base_s": 0.2,
        "rapid_cooldown_step_s": 0.1,
        "rapid_cooldown_max_s": 0.2,
        "rapid_threshold": 100,
        "heartbeat_interval_s": 0.2,
        "dead_threshold_s": 1.0,
    }
)


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


def registered(platform: RestartablePlatform) -> tuple[Live, str, str]:
    """The running platform with a newly registered agent: (live, agent id, agent key)."""
    live = platform.live
    assert live is not None
    aid, _, key = live.register("Socket")
    return live, aid, key


def client(live: Live, key: str, aid: str, inbox: Inbox, **kw: Any) -> PhoenixClient:
    return PhoenixClient(
        live.ws,
        api_key=key,
        params={"agent_id": aid},
        policy=POLICY,
        on_connected=inbox.on_connected,
        **kw,
    )


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
        phx = client(live, key, aid, inbox)
        await phx.connect()
        assert phx.connected and phx.state == SessionState.Up
        await wait_for(lambda: live.app.state.hub.agent_connected(aid))  # registered after accept
        conn = live.app.state.hub.agent_connected(aid)
        assert conn.ws.query_params["vsn"] == "2.0.0"
        assert conn.ws.query_params["agent_id"] == aid
        assert "api_key" not in conn.ws.query_params
        assert conn.ws.headers["x-api-key"] == key
        topic = f"chat_room:{rid}"
        await phx.join(topic, inbox.handler(topic))
        assert phx.topics == [topic] and conn.topics[topic] is not None
        mid = await send(live, rid, aid, "hi")
        await wait_for(lambda: inbox.events(topic, "message_created"))
        assert inbox.events(topic, "message_created")[0]["id"] == mid
        assert await phx.leave(topic) is True
        assert phx.topics == [] and topic not in conn.topics
        await send(live, rid, aid, "after leave")
        await asyncio.sleep(0.3)
        assert len(inbox.events(topic, "message_created")) == 1
        await phx.close()
        assert not phx.connected

    asyncio.run(scenario())


def test_join_refused(platform: RestartablePlatform) -> None:
    """A topic the key may not see is refused with the server's reason and not kept."""
    live, aid, key = registered(platform)
    other, _, _ = live.register("Other")
    inbox = Inbox()

    async def scenario() -> None:
        phx = client(live, key, aid, inbox)
        await phx.connect()
        with pytest.raises(JoinError) as err:
            await phx.join(f"agent_control:{other}", inbox.handler("x"))
        assert err.value.reason == "unauthorized"
        assert phx.topics == []
        await phx.close()

    asyncio.run(scenario())


def test_heartbeats_are_acknowledged(platform: RestartablePlatform) -> None:
    live, aid, key = registered(platform)
    inbox = Inbox()

    async def scenario() -> None:
        phx = client(live, key, aid, inbox)
        await phx.connect()
        await wait_for(lambda: phx.heartbeats_acked >= 3)
        assert phx.connections == 1  # the watchdog never fired
        await phx.close()

    asyncio.run(scenario())


def test_rejoin_after_server_close(platform: RestartablePlatform) -> None:
    """Every topic is rejoined with fresh refs after the server closed the socket."""
    live, aid, key = registered(platform)
    rid = room_with(live, aid)
    inbox = Inbox()

    async def scenario() -> None:
        phx = client(live, key, aid, inbox)
        await phx.connect()
        topics = [f"agent_rooms:{aid}", f"chat_room:{rid}"]
        for topic in topics:
            await phx.join(topic, inbox.handler(topic))
        before = dict(live.app.state.hub.agent_connected(aid).topics)
        assert await asyncio.to_thread(platform.close_socket, aid, 1011)
        await wait_for(lambda: len(inbox.reconnects) == 2)
        assert inbox.reconnects == [(False, []), (True, [])]
        conn = live.app.state.hub.agent_connected(aid)
        assert sorted(conn.topics) == sorted(topics)
        assert all(conn.topics[t] != before[t] for t in topics)  # new join refs
        mid = await send(live, rid, aid, "after rejoin")
        await wait_for(lambda: inbox.events(topics[1], "message_created"))
        assert inbox.events(topics[1], "message_created")[0]["id"] == mid
        await phx.close()

    asyncio.run(scenario())


def test_rejoin_survives_a_platform_restart(platform: RestartablePlatform) -> None:
    live, aid, key = registered(platform)
    inbox = Inbox()

    async def scenario() -> None:
        phx = client(live, key, aid, inbox)
        await phx.connect()
        topic = f"agent_rooms:{aid}"
        await phx.join(topic, inbox.handler(topic))
        await asyncio.to_thread(platform.restart)
        await wait_for(lambda: len(inbox.reconnects) == 2)
        assert inbox.reconnects == [(False, []), (True, [])]
        assert list(live.app.state.hub.agent_connected(aid).topics) == [topic]
        rid = await asyncio.to_thread(room_with, live, aid)  # pushes room_added
        await wait_for(lambda: inbox.events(topic, "room_added"))
        assert inbox.events(topic, "room_added")[0]["id"] == rid
        await phx.close()

    asyncio.run(scenario())


def test_failed_rejoin_is_reported(platform: RestartablePlatform) -> None:
    """A topic that cannot be rejoined (agent removed from the room) is named in the hook."""
    live, aid, key = registered(platform)
    rid = room_with(live, aid)
    inbox = Inbox()

    async def scenario() -> None:
        phx = client(live, key, aid, inbox)
        await phx.connect()
        topic = f"chat_room:{rid}"
        await phx.join(topic, inbox.handler(topic))
        r = await asyncio.to_thread(
            live.human, "DELETE", f"/api/v1/me/chats/{rid}/participants/{aid}"
        )
        assert r.status_code == 200, r.text
        assert await asyncio.to_thread(platform.close_socket, aid, 1011)
        await wait_for(lambda: len(inbox.reconnects) == 2)
        assert inbox.reconnects == [(False, []), (True, [topic])]
        assert phx.topics == []
        await phx.close()

    asyncio.run(scenario())


def test_conflict_reject_is_terminal(platform: RestartablePlatform) -> None:
    """on_conflict=reject while another connection is live: HTTP 409 ends the session."""
    live, aid, key = registered(platform)

    async def scenario() -> None:
        first = client(live, key, aid, Inbox())
        await first.connect()
        await wait_for(lambda: live.app.state.hub.agent_connected(aid))
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
    live = platform.live
    assert live is not None

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
        phx = client(live, key, aid, inbox)
        await phx.connect()
        topic = f"agent_rooms:{aid}"
        await phx.join(topic, inbox.handler(topic))
        await wait_for(lambda: phx.heartbeats_acked >= 1)
        assert platform.loop is not None
        # the platform stalls (its event loop blocked): the socket stays open, acks stop
        platform.loop.call_soon_threadsafe(time.sleep, POLICY.dead_threshold_s + 0.8)
        await wait_for(lambda: len(inbox.reconnects) == 2, timeout=15)
        assert inbox.reconnects == [(False, []), (True, [])]
        assert phx.connections == 2 and phx.topics == [topic]
        await phx.close()

    asyncio.run(scenario())
