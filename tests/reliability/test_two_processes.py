"""Two processes of the same agent: refused on one host, superseded across hosts, never twice."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from bandtest.agents import echo_agent_script
from bandtest.platform import RestartablePlatform, room_with, stop_process

from band import Agent
from band.client.phoenix import SessionEndedError
from band.runtime.agentconfig import AgentConfig, ConflictPolicy

from .conftest import Echo, Human, answered_once, wait_for

SCRIPT = echo_agent_script("INFO")


def _spawn(tmp: Path, name: str, host_tmp: Path, env: dict[str, str]) -> subprocess.Popen[bytes]:
    """Start the echo agent as a process whose temp dir (its 'host') is ``host_tmp``."""
    host_tmp.mkdir(exist_ok=True)
    log = (tmp / f"{name}.log").open("wb")
    return subprocess.Popen(
        [sys.executable, str(tmp / "echo.py")],
        env={**env, "TMPDIR": str(host_tmp)},
        stdout=log,
        stderr=subprocess.STDOUT,
        cwd=tmp,
    )


def test_second_process_refused_then_superseded(
    platform: RestartablePlatform, tmp_path: Path
) -> None:
    """Same host: the second process exits with AgentAlreadyRunningError; another host's
    process supersedes the first, which ends. Every message is answered exactly once."""
    live = platform.running
    aid, _, key = live.register("Echo")
    rid = room_with(live, aid)
    (tmp_path / "echo.py").write_text(SCRIPT)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("BAND_", "PYTHONPATH"))}
    env.update(AID=aid, AKEY=key, BAND_REST_URL=live.rest, BAND_WS_URL=live.ws)
    fanout = live.app.state.fanout
    procs: list[subprocess.Popen[bytes]] = []

    async def scenario() -> None:
        human = Human(live)
        first = _spawn(tmp_path, "first", tmp_path / "host-a", env)
        procs.append(first)
        m1 = await human.send(rid, aid, "one")
        await wait_for(lambda: human.settled(rid, aid, [m1]), timeout=30)

        twin = _spawn(tmp_path, "twin", tmp_path / "host-a", env)  # same host
        procs.append(twin)
        assert await asyncio.to_thread(twin.wait, 30) != 0
        assert "is already running on this host" in (tmp_path / "twin.log").read_text()
        m2 = await human.send(rid, aid, "two")
        await wait_for(lambda: human.settled(rid, aid, [m2]), timeout=15)

        other = _spawn(tmp_path, "other", tmp_path / "host-b", env)  # another host
        procs.append(other)
        assert await asyncio.to_thread(first.wait, 30) == 0  # superseded: run() returned
        first_log = (tmp_path / "first.log").read_text()
        assert "disconnected: superseded" in first_log, first_log[-2000:]
        m3 = await human.send(rid, aid, "three")
        await wait_for(lambda: human.settled(rid, aid, [m3]), timeout=30)
        assert other.poll() is None and fanout.agent_connected(aid) is not None
        await answered_once(human, rid, aid, ["one", "two", "three"])
        await human.aclose()

    try:
        asyncio.run(scenario())
    finally:
        for proc in procs:
            stop_process(proc)
    for name in ("first", "twin", "other"):
        assert key not in (tmp_path / f"{name}.log").read_text()


def test_reject_policy_gets_connection_conflict(platform: RestartablePlatform) -> None:
    """With conflict_policy=reject a second session is refused (409 connection_conflict) and the
    running one keeps answering."""
    live = platform.running
    aid, _, key = live.register("Echo")
    rid = room_with(live, aid)

    async def scenario() -> None:
        human, adapter = Human(live), Echo()
        running = Agent.create(
            adapter=adapter, agent_id=aid, api_key=key, rest_url=live.rest, ws_url=live.ws
        )
        async with running:
            rejecting = Agent.create(
                adapter=Echo(),
                agent_id=aid,
                api_key=key,
                rest_url=live.rest,
                ws_url=live.ws,
                config=AgentConfig(conflict_policy=ConflictPolicy.REJECT, single_instance=False),
            )
            started = time.monotonic()
            with pytest.raises(
                SessionEndedError, match="HTTP 409 \\(connection_conflict: an active"
            ):
                await rejecting.runtime.start()
            assert time.monotonic() - started < 10
            await rejecting.runtime.stop()
            mid = await human.send(rid, aid, "still here")
            await wait_for(lambda: human.settled(rid, aid, [mid]))
            await answered_once(human, rid, aid, ["still here"])
        await human.aclose()

    asyncio.run(scenario())


SLOW_SCRIPT = SCRIPT.replace(
    "        await tools.send_message(",
    "        await asyncio.sleep(2.0)  # a turn in flight when the successor starts\n"
    "        await tools.send_message(",
)


def test_successor_under_traffic_answers_each_mention_once(
    platform: RestartablePlatform, tmp_path: Path
) -> None:
    """A second process with the same key starts on another host while mentions keep coming in
    two rooms and the first is mid-turn: the first is superseded, the second takes over its
    open attempts, and between them every mention is answered exactly once."""
    live = platform.running
    aid, _, key = live.register("Echo")
    rids = [room_with(live, aid, title=f"room {i}") for i in range(2)]
    (tmp_path / "echo.py").write_text(SLOW_SCRIPT)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("BAND_", "PYTHONPATH"))}
    env.update(AID=aid, AKEY=key, BAND_REST_URL=live.rest, BAND_WS_URL=live.ws)
    procs: list[subprocess.Popen[bytes]] = []

    async def scenario() -> None:
        human = Human(live)
        texts: dict[str, list[str]] = {rid: [] for rid in rids}
        mids: dict[str, list[str]] = {rid: [] for rid in rids}

        async def mention(rid: str) -> None:
            text = f"mention {len(texts[rid])}"
            texts[rid].append(text)
            mids[rid].append(await human.send(rid, aid, text))

        first = _spawn(tmp_path, "first", tmp_path / "host-a", env)
        procs.append(first)
        for rid in rids:
            await mention(rid)
        await wait_for(lambda: human.settled(rids[0], aid, mids[rids[0]]), timeout=30)
        for rid in rids:  # turns in flight in both rooms when the successor connects
            await mention(rid)
        await wait_for(lambda: human.status_is(rids[1], mids[rids[1]][-1], aid, "processing"))
        procs.append(_spawn(tmp_path, "second", tmp_path / "host-b", env))
        for _ in range(3):
            for rid in rids:
                await mention(rid)
            await asyncio.sleep(0.3)
        assert await asyncio.to_thread(first.wait, 30) == 0  # superseded: run() returned
        for rid in rids:
            await mention(rid)
            await wait_for(lambda rid=rid: human.settled(rid, aid, mids[rid]), timeout=45)
        for rid in rids:
            await answered_once(human, rid, aid, texts[rid])
        await human.aclose()

    try:
        asyncio.run(scenario())
    except BaseException:
        for name in ("first", "second"):
            print(f"--- {name}\n" + (tmp_path / f"{name}.log").read_text()[-3000:])
        raise
    finally:
        for proc in procs:
            stop_process(proc)
