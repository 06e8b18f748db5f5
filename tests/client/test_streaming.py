"""band-sdk's ``band.client.streaming`` on band dev: WebSocketClient's channels hand real pushes
to async callbacks as the typed payloads, supersede and conflict end or refuse a session."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
import websockets
from bandtest.agents import FAST_POLICY, wait_for
from bandtest.platform import Live, room_with, say

from band.client.phoenix import SessionEndedError
from band.client.streaming import (
    ControlMode,
    DeliveryStatus,
    MessageCreatedPayload,
    ParticipantAddedPayload,
    ParticipantRemovedPayload,
    RoomAddedPayload,
    RoomRemovedPayload,
    SupersedePayload,
    WebSocketClient,
    WebSocketUpgradeError,
    WireEvent,
    payload_of,
)
from band.core.types import ConflictPolicy
from band_sdk_core import SessionPolicy

POLICY = SessionPolicy(FAST_POLICY)


class Got:
    """Each callback's payloads, by name."""

    def __init__(self) -> None:
        self.calls: dict[str, list[Any]] = {}

    def __getattr__(self, name: str) -> Any:
        async def record(payload: Any) -> None:
            self.calls.setdefault(name, []).append(payload)

        return record

    def of(self, name: str) -> list[Any]:
        return self.calls.get(name, [])


def test_the_channels_hand_typed_payloads_to_the_callbacks(live: Live) -> None:
    aid, _, key = live.register("Streamer")
    other, _, _ = live.register("Other")
    got = Got()

    async def go() -> None:
        async with WebSocketClient(live.ws, key, agent_id=aid, session_policy=POLICY) as ws:
            await ws.join_agent_rooms_channel(aid, got.room_added, got.room_removed)
            await asyncio.to_thread(room_with, live, aid)
            await wait_for(lambda: got.of("room_added"))
            (added,) = got.of("room_added")
            assert isinstance(added, RoomAddedPayload) and added.inserted_at
            rid = added.id
            await ws.join_chat_room_channel(rid, got.message_created, got.message_updated)
            await ws.join_room_participants_channel(rid, got.joined, got.left)
            assert ws.joined_topics >= {f"chat_room:{rid}", f"room_participants:{rid}"}
            mid = await asyncio.to_thread(say, live, rid, "hello there", aid)
            await wait_for(lambda: got.of("message_created"))
            (message,) = got.of("message_created")
            assert isinstance(message, MessageCreatedPayload)
            assert (message.id, message.sender_type) == (mid, "User")
            assert message.content.endswith("hello there")
            assert message.metadata["mentions"][0]["id"] == aid
            marks = f"/api/v1/agent/chats/{rid}/messages/{mid}"
            for step in ("processing", "processed"):
                marked = await asyncio.to_thread(live.agent, key, "POST", f"{marks}/{step}")
                assert marked.is_success, marked.text
            await wait_for(lambda: len(got.of("message_updated")) == 2)
            updates = got.of("message_updated")
            assert all(isinstance(u, MessageCreatedPayload) and u.id == mid for u in updates)
            states = [u.metadata["delivery_status"][aid]["status"] for u in updates]
            assert [DeliveryStatus(s) for s in states] == [
                DeliveryStatus.PROCESSING,
                DeliveryStatus.PROCESSED,
            ]
            body = {"participant": {"participant_id": other}}
            path = f"/api/v1/me/chats/{rid}/participants"
            await asyncio.to_thread(live.human, "POST", path, json=body)
            await wait_for(lambda: [p for p in got.of("joined") if p.id == other])
            joined = next(p for p in got.of("joined") if p.id == other)
            assert isinstance(joined, ParticipantAddedPayload)
            assert (joined.name, joined.type) == ("Other", "Agent")
            await asyncio.to_thread(live.human, "DELETE", f"{path}/{other}")
            await wait_for(lambda: got.of("left"))
            assert isinstance(got.of("left")[0], ParticipantRemovedPayload)
            assert got.of("left")[0].id == other
            await ws.leave_chat_room_channel(rid)
            assert f"chat_room:{rid}" not in ws.joined_topics
            await asyncio.to_thread(live.human, "DELETE", f"{path}/{aid}")
            await wait_for(lambda: got.of("room_removed"))
            assert isinstance(got.of("room_removed")[0], RoomRemovedPayload)
            assert got.of("room_removed")[0].id == rid
            assert ws.validation_error_count == 0

    asyncio.run(go())


def test_a_supersede_ends_the_session_with_its_reason(live: Live) -> None:
    aid, _, key = live.register("Superseded")
    got = Got()
    disconnects: list[Exception | None] = []

    async def on_disconnect(exc: Exception | None) -> None:
        disconnects.append(exc)

    async def go() -> None:
        first = WebSocketClient(
            live.ws, key, agent_id=aid, session_policy=POLICY, on_disconnect=on_disconnect
        )
        async with first:
            await first.join_agent_control_channel(aid, got.supersede, got.control)
            running = asyncio.ensure_future(first.run_forever(install_signal_handlers=False))
            async with WebSocketClient(live.ws, key, agent_id=aid, session_policy=POLICY) as newer:
                await asyncio.wait_for(running, 30)  # ends: the newer connection took over
                assert newer.client is not None and newer.client.connected
        (push,) = got.of("supersede")
        assert isinstance(push, SupersedePayload) and push.retryable is False
        reason = first.last_disconnect_reason
        assert reason is not None and (reason.reason, reason.retryable) == (push.reason, False)
        assert first.transport_ended
        assert len(disconnects) == 1 and "superseded" in str(disconnects[0])

    asyncio.run(go())


def test_reject_refuses_a_second_connection_with_an_upgrade_error(live: Live) -> None:
    aid, _, key = live.register("Holder")

    async def go() -> None:
        async with WebSocketClient(live.ws, key, agent_id=aid, session_policy=POLICY):
            second = WebSocketClient(
                live.ws,
                key,
                agent_id=aid,
                session_policy=POLICY,
                conflict_policy=ConflictPolicy.REJECT,
            )
            with pytest.raises(WebSocketUpgradeError) as entered:
                await second.__aenter__()
            assert entered.value.status_code == 409 and entered.value.is_connection_conflict
            assert isinstance(entered.value.__cause__, SessionEndedError)
            # the refusal itself, as websockets reports it, parsed by WebSocketUpgradeError
            url = f"{live.ws}?vsn=2.0.0&agent_id={aid}&on_conflict=reject"
            with pytest.raises(websockets.InvalidStatus) as refused:
                await websockets.connect(url, additional_headers={"x-api-key": key})
            error = WebSocketUpgradeError.from_exception(refused.value)
            assert error is not None and error.status_code == 409
            assert error.is_connection_conflict and error.message

    asyncio.run(go())


def test_payload_of_validates_before_typing() -> None:
    control = payload_of(
        "agent.control",
        {
            "mode": "stop",
            "scope": "room",
            "agent_id": "a",
            "room_id": "r",
            "execution_id": "e",
            "correlation_id": "c",
        },
    )
    assert control.mode is ControlMode.STOP and control.room_id == "r"
    with pytest.raises(ValueError, match="correlation_id"):
        payload_of("agent.control", {"mode": "stop", "scope": "agent", "agent_id": "a"})
    assert WireEvent("agent.control") is WireEvent.AGENT_CONTROL
    assert DeliveryStatus("processed") is DeliveryStatus.PROCESSED
    assert WebSocketUpgradeError.from_exception(RuntimeError("no response")) is None
