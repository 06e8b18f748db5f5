"""Hostile Phoenix frames: ``band dev`` drops them, keeps the socket and logs no error."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator

import pytest
import websockets

from .hostile import COUNTS, Target, hostile_target

FRAMES = [
    "not json",
    "[" * 100_000 + "]" * 100_000,
    json.dumps([None, "1", {"topic": 1}, "phx_join", {}]),
    json.dumps([None, "1", ["chat_room:x"], "phx_join", {}]),
    json.dumps([None, "1", "phoenix", ["heartbeat"], {}]),
    '[null, "1", NaN, "phx_join", {}]',
    '[null, NaN, "phoenix", "heartbeat", {}]',
    json.dumps([None, "1", "chat_room:" + "9" * 30, "phx_join", {}]),
    json.dumps({"topic": "phoenix"}),
    json.dumps([1, 2, 3]),
    json.dumps([None, "1", "x" * 100_000, "phx_join", {}]),
]


@pytest.fixture(scope="module")
def target() -> Iterator[Target]:
    yield from hostile_target()


def test_hostile_frames_are_dropped(target: Target) -> None:
    url = f"{target.live.ws}?vsn=2.0.0"
    headers = {"x-api-key": target.agent_key}

    async def run() -> list[object]:
        async with websockets.connect(url, additional_headers=headers, max_size=None) as ws:
            for frame in FRAMES:
                await ws.send(frame)
                COUNTS["socket frames"] += 1
            await ws.send(json.dumps([None, "99", "phoenix", "heartbeat", {}]))
            while True:  # the socket still answers, in order, after every hostile frame
                reply = json.loads(await asyncio.wait_for(ws.recv(), 5))
                if reply[1] == "99":
                    return list(reply)

    reply = asyncio.run(run())
    assert reply[3] == "phx_reply" and reply[4]["status"] == "ok"
    logged = target.log.text()
    assert not logged, logged
