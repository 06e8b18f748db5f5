"""``max_live_processes``: many rooms share a bounded number of live ACP agent processes.

200 rooms on band dev, each with its own real agent process (tiny_agent.py, standard library
only, so hundreds of starts stay cheap on two cores), under a limit of 8: the least recently
used idle room's process is stopped when another room needs one, and that room's session is
loaded again on its next message.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from acp_helpers import PlatformSink, acp_rooms, room_events, room_rows, room_with, run
from bandtest.platform import Live, live_platform

from band.client import RestClient
from band.integrations.acp.config import ACPClientAdapterConfig
from band.integrations.acp.narration import SESSION_EVENT
from band.integrations.acp.rooms import TurnRequest

TINY = Path(__file__).with_name("tiny_agent.py")
ROOMS = 200
LIMIT = 8
#: rooms that get a second message (their processes were stopped long before)
AGAIN = 20


@pytest.fixture(scope="module")
def live() -> Iterator[Live]:
    yield from live_platform()


def tiny_children() -> int:
    """This process's live tiny-agent children, read from /proc (independent of the adapter)."""
    me, count = str(os.getpid()), 0
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
            # the fields after the command's closing parenthesis: state, ppid, ...
            state, ppid = stat.rsplit(")", 1)[1].split()[:2]
            if ppid != me or state == "Z":
                continue
            if b"tiny_agent.py" in Path(f"/proc/{pid}/cmdline").read_bytes():
                count += 1
        except OSError:
            continue
    return count


def calls(workspace: str) -> list[dict[str, Any]]:
    log = Path(workspace) / "tiny-calls.jsonl"
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="counts processes in /proc")
def test_200_rooms_never_run_more_than_8_processes(live: Live, tmp_path: Path) -> None:
    agent_id, _, key = live.register("Coder")
    room_ids = [room_with(live, agent_id) for _ in range(ROOMS)]
    config = ACPClientAdapterConfig(
        command=[sys.executable, "-I", "-S", str(TINY)], max_live_processes=LIMIT
    )

    rooms = acp_rooms(config, tmp_path)
    peaks = {"os": 0, "adapter": 0}
    sinks: dict[str, list[PlatformSink]] = {r: [] for r in room_ids}

    async def watch() -> None:
        while True:
            peaks["os"] = max(peaks["os"], tiny_children())
            peaks["adapter"] = max(peaks["adapter"], rooms.live_processes)
            await asyncio.sleep(0.005)

    async def turn(rest: RestClient, room_id: str, text: str) -> None:
        sink = PlatformSink(rest, room_id)
        sinks[room_id].append(sink)
        await rooms.run_turn(room_id, sink, TurnRequest(text))

    async def main() -> None:
        watcher = asyncio.create_task(watch())
        async with RestClient(key, live.rest) as rest:
            try:
                await asyncio.gather(
                    *(turn(rest, r, f"message {i}") for i, r in enumerate(room_ids))
                )
                # the first rooms were the least recently used: their processes are long gone
                assert all(rooms.rooms[r].process is None for r in room_ids[:AGAIN])
                await asyncio.gather(
                    *(turn(rest, r, f"again {i}") for i, r in enumerate(room_ids[:AGAIN]))
                )
            finally:
                watcher.cancel()
                await rooms.close_all()

    run(main(), timeout=600)

    assert 1 < peaks["os"] <= LIMIT and peaks["adapter"] <= LIMIT, peaks
    starts = 0
    for i, room_id in enumerate(room_ids):
        assert all(s.failures == [] for s in sinks[room_id])
        expected = [("thought", f"answered: message {i}"), ("task", SESSION_EVENT)]
        if i < AGAIN:
            expected += [("thought", f"answered: again {i}"), ("task", SESSION_EVENT)]
        assert room_events(live, room_id) == expected  # every message answered once
        sessions = [
            r["metadata"]["acp_client_session_id"]
            for r in room_rows(live, room_id)
            if r["content"] == SESSION_EVENT
        ]
        assert len(set(sessions)) == 1  # the room's session is kept across its processes
        log = calls(str(tmp_path / "ws" / room_id))
        methods = [c["method"] for c in log]
        starts += methods.count("initialize")
        assert methods.count("session/new") == 1
        if i < AGAIN:
            loads = [c for c in log if c["method"] == "session/load"]
            assert [c["session_id"] for c in loads] == [sessions[0]]
    assert starts >= ROOMS + AGAIN  # every room had its own process; the revisited, another
