"""``band.testing.FakePhoenixServer`` against the SDK's own Phoenix client, over a real socket."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from bandtest.agents import FAST_POLICY

from band.client.phoenix import JoinError, PhoenixClient
from band.testing import JoinOutcome, fake_phoenix_server
from band.testing.phoenix_server import ChannelMessage, FakePhoenixServer
from band_sdk_core import SessionPolicy


def client(server: FakePhoenixServer) -> PhoenixClient:
    return PhoenixClient(server.url, api_key="k-secret", policy=SessionPolicy(FAST_POLICY))


async def until(check: Any, timeout: float = 5.0) -> None:
    async def poll() -> None:
        while not check():
            await asyncio.sleep(0.01)

    await asyncio.wait_for(poll(), timeout)


def test_join_push_heartbeat_and_leave() -> None:
    async def scenario() -> None:
        async with fake_phoenix_server() as server:
            got: list[tuple[str, dict[str, Any]]] = []
            c = client(server)
            await c.connect()
            await c.join("chat_room:r1", lambda event, payload: got.append((event, payload)))
            assert server.joined_topics == {"chat_room:r1"}
            await server.push("chat_room:r1", "message_created", {"id": "m1"})
            await until(lambda: got)
            assert got == [("message_created", {"id": "m1"})]
            await until(lambda: c.heartbeats_acked >= 1)
            assert any(m.topic == "phoenix" and m.event == "heartbeat" for m in server.received)
            assert await c.leave("chat_room:r1") is True
            assert server.joined_topics == set()
            [upgrade] = server.upgrades
            assert upgrade.query["vsn"] == "2.0.0" and upgrade.headers["x-api-key"] == "k-secret"
            assert server.connection_count == 1
            await c.close()

    asyncio.run(scenario())


def test_scripted_join_outcomes_hold_on_the_last_one() -> None:
    async def scenario() -> None:
        outcomes = {"chat_room:r2": [JoinOutcome.REJECTED, JoinOutcome.OK]}
        async with fake_phoenix_server(join_outcomes=outcomes) as server:
            c = client(server)
            await c.connect()
            with pytest.raises(JoinError):
                await c.join("chat_room:r2", lambda e, p: None)
            assert server.joined_topics == set()
            await c.join("chat_room:r2", lambda e, p: None)
            await c.join("chat_room:r3", lambda e, p: None)  # unlisted topics join
            assert server.joined_topics == {"chat_room:r2", "chat_room:r3"}
            await c.close()

    asyncio.run(scenario())


def test_an_aborted_connection_reconnects_and_rejoins() -> None:
    async def scenario() -> None:
        async with fake_phoenix_server() as server:
            c = client(server)
            await c.connect()
            await c.join("agent_rooms:a1", lambda e, p: None)
            await server.abort_connection()
            await until(lambda: server.connection_count == 2 and "agent_rooms:a1" in c.topics)
            joins = [m for m in server.received if m.event == "phx_join"]
            assert [m.topic for m in joins] == ["agent_rooms:a1", "agent_rooms:a1"]
            assert joins[0].join_ref != joins[1].join_ref
            await server.close_connection(code=1012, reason="restart")
            await until(lambda: server.connection_count == 3 and c.connected)
            await c.close()

    asyncio.run(scenario())


def test_refused_upgrades_answer_409_connection_conflict() -> None:
    async def scenario() -> None:
        async with fake_phoenix_server(refuse_upgrades=True) as server:
            c = client(server)
            with pytest.raises(Exception, match=r"connection_conflict|409"):
                await asyncio.wait_for(c.connect(), 10)
            assert server.upgrades and server.connection_count == 0
            await c.close()

    asyncio.run(scenario())


def test_frames_are_phoenix_v2_arrays() -> None:
    frame = ChannelMessage("1", "2", "phoenix", "heartbeat", {})
    assert frame.encode() == '["1", "2", "phoenix", "heartbeat", {}]'
    assert ChannelMessage.decode(frame.encode()) == frame
