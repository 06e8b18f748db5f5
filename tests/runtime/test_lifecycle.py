"""Agent.from_config + run(): in process, as a script stopped by SIGTERM, and superseded."""

from __future__ import annotations

import asyncio
import logging
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from bandtest.platform import RestartablePlatform, stop_process

import band
from band import Agent
from band.client.phoenix import PhoenixClient
from band.core import AgentAlreadyRunningError
from band.runtime.instance import SingleInstanceLock

from .conftest import Echo, Human, agent_in_room, fast_agent, plain, wait_for

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "echo_agent.py"


def test_from_config_and_run(
    platform: RestartablePlatform,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The seed's form: credentials from ./agent_config.yaml, URLs from the environment."""
    live, aid, key, rid = agent_in_room(platform, "Echo")
    (tmp_path / "agent_config.yaml").write_text(f"my_agent:\n  agent_id: {aid}\n  api_key: {key}\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("BAND_REST_URL", live.rest)
    monkeypatch.setenv("BAND_WS_URL", live.ws)
    caplog.set_level(logging.INFO, logger="band.agent")

    async def scenario() -> None:
        human = Human(live)
        agent = Agent.from_config("my_agent", adapter=Echo())
        running = asyncio.ensure_future(agent.run())
        await wait_for(lambda: agent.is_running)
        mid = await human.send(rid, aid, "ping")
        await wait_for(lambda: human.status_is(rid, mid, aid, "processed"))
        agent.request_stop()
        await asyncio.wait_for(running, 10)
        assert not agent.is_running
        assert [plain(r["content"]) for r in await human.replies(rid, aid)] == ["echo: ping"]
        await human.aclose()

    asyncio.run(scenario())
    started = [r.getMessage() for r in caplog.records if r.getMessage().startswith("Agent started")]
    assert started == [f"Agent started: Echo (band-open-sdk {band.__version__})"]
    assert any(r.getMessage() == "Agent stopped: Echo (graceful=True)" for r in caplog.records)
    assert key not in caplog.text


def test_example_script_stops_cleanly_on_sigterm(
    platform: RestartablePlatform, tmp_path: Path
) -> None:
    """examples/echo_agent.py answers, then exits 0 on SIGTERM after closing its socket."""
    live, aid, key, rid = agent_in_room(platform, "Echo")
    (tmp_path / "agent_config.yaml").write_text(f"my_agent:\n  agent_id: {aid}\n  api_key: {key}\n")
    env = {**os.environ, "BAND_REST_URL": live.rest, "BAND_WS_URL": live.ws}
    # the subprocess imports the same band as this test (installed or source tree)
    env["PYTHONPATH"] = str(Path(band.__file__).resolve().parents[1])
    log_path = tmp_path / "agent.log"
    with log_path.open("w") as log:
        proc = subprocess.Popen(
            [sys.executable, str(EXAMPLE)], cwd=tmp_path, env=env, stdout=log, stderr=log
        )
        try:
            mid = live.human(
                "POST",
                f"/api/v1/me/chats/{rid}/messages",
                json={"message": {"content": "hi", "mentions": [{"id": aid}]}},
            ).json()["data"]["id"]
            deadline = time.monotonic() + 20
            while time.monotonic() < deadline and proc.poll() is None:
                rows = live.human("GET", f"/api/v1/me/chats/{rid}/messages").json()["data"]
                statuses = {m["id"]: m["metadata"].get("delivery_status", {}) for m in rows}
                if statuses.get(mid, {}).get(aid, {}).get("status") == "processed":
                    break
                time.sleep(0.1)
            assert proc.poll() is None, log_path.read_text()[-2000:]
            proc.send_signal(signal.SIGTERM)
            assert proc.wait(10) == 0, log_path.read_text()[-2000:]
        finally:
            if proc.poll() is None:
                stop_process(proc)
    text = log_path.read_text()
    assert "Agent started: Echo" in text and "Agent stopped: Echo" in text
    assert key not in text
    assert live.app.state.fanout.agent_connected(aid) is None


def test_supersede_ends_run(platform: RestartablePlatform) -> None:
    """A newer connection of the same agent supersedes the running one: run() returns."""
    live = platform.running
    aid, _, key = live.register("Echo")

    async def scenario() -> None:
        agent = fast_agent(live, Echo(), aid, key)
        running = asyncio.ensure_future(agent.run())
        await wait_for(lambda: agent.is_running)
        await wait_for(lambda: live.app.state.fanout.agent_connected(aid) is not None)
        newer = PhoenixClient(live.ws, api_key=key, params={"agent_id": aid})
        await newer.connect()
        await asyncio.wait_for(running, 10)
        assert agent.runtime.end_reason == "superseded"
        assert newer.connected  # the old session did not fight back
        await asyncio.sleep(0.3)
        assert newer.connections == 1
        await newer.close()

    asyncio.run(scenario())


def test_one_running_agent_per_id(platform: RestartablePlatform, tmp_path: Path) -> None:
    """A second start of the same agent is refused: in this process and on this host."""
    live = platform.running
    aid, _, key = live.register("Echo")

    async def scenario() -> None:
        async with fast_agent(live, Echo(), aid, key):
            twin = fast_agent(live, Echo(), aid, key)
            with pytest.raises(AgentAlreadyRunningError, match="already running in this process"):
                await twin.start()
            assert not twin.is_running
        other_process = SingleInstanceLock(aid)  # what another process on this host would hold
        other_process.acquire()
        try:
            agent = fast_agent(live, Echo(), aid, key)
            with pytest.raises(AgentAlreadyRunningError, match="already running on this host"):
                await agent.start()
            assert live.app.state.fanout.agent_connected(aid) is None
        finally:
            other_process.release()
        async with fast_agent(live, Echo(), aid, key) as agent:  # free again
            assert agent.is_running
        lock = SingleInstanceLock("../../etc/x", tmp_path)
        assert lock.path.parent == tmp_path and lock.path.name.startswith("band-agent-")

    asyncio.run(scenario())


class Slow(Echo):
    """Echo that waits for ``gate`` in every turn."""

    def __init__(self) -> None:
        super().__init__()
        self.gate = asyncio.Event()
        self.entered = asyncio.Event()

    async def on_message(self, msg, tools, *args, **kw):  # type: ignore[no-untyped-def]
        self.entered.set()
        await self.gate.wait()
        await super().on_message(msg, tools, *args, **kw)


def test_stop_waits_for_a_turn_or_cancels_it(platform: RestartablePlatform) -> None:
    """stop(timeout) lets a turn finish; stop() cancels it and the next start answers it."""
    live, aid, key, rid = agent_in_room(platform, "Echo")

    async def scenario() -> None:
        human = Human(live)
        adapter = Slow()
        agent = fast_agent(live, adapter, aid, key)
        await agent.start()
        first = await human.send(rid, aid, "finish me")
        await asyncio.wait_for(adapter.entered.wait(), 10)
        asyncio.get_running_loop().call_later(0.2, adapter.gate.set)
        assert await agent.stop(timeout=5) is True
        assert await human.status(rid, first, aid) == "processed"

        adapter = Slow()
        agent = fast_agent(live, adapter, aid, key)
        await agent.start()
        second = await human.send(rid, aid, "cut me off")
        await asyncio.wait_for(adapter.entered.wait(), 10)
        assert await agent.stop() is False
        assert await human.status(rid, second, aid) == "processing"

        adapter = Slow()
        adapter.gate.set()
        async with fast_agent(live, adapter, aid, key):
            await wait_for(lambda: human.status_is(rid, second, aid, "processed"))
        texts = [plain(r["content"]) for r in await human.replies(rid, aid)]
        assert texts == ["echo: finish me", "echo: cut me off"]
        await human.aclose()

    asyncio.run(scenario())


@pytest.mark.skipif(sys.platform == "win32", reason="advisory flock is POSIX-only")
def test_the_lock_file_goes_with_its_holder_and_a_stale_open_is_not_a_lock(tmp_path: Path) -> None:
    """Release removes the file; a descriptor opened before that no longer guards the path."""
    import fcntl

    first = SingleInstanceLock("agent-a", tmp_path)
    first.acquire()
    assert first.held and first.path.exists()
    stale = os.open(first.path, os.O_RDWR)  # a rival that opened the file, not yet flocked
    try:
        first.release()
        assert not first.path.exists() and not first.held
        # the rival's flock now succeeds, but on an inode no longer at the path
        fcntl.flock(stale, fcntl.LOCK_EX | fcntl.LOCK_NB)
        second = SingleInstanceLock("agent-a", tmp_path)
        assert not second._is_current(stale)
        second.acquire()  # so the path is free to lock afresh, and is locked
        with pytest.raises(AgentAlreadyRunningError, match="already running on this host"):
            SingleInstanceLock("agent-a", tmp_path).acquire()
        second.release()
    finally:
        os.close(stale)
    assert list(tmp_path.iterdir()) == []


SLOW_SCRIPT = """
import asyncio, logging, sys
from band import Agent
from band.core import SimpleAdapter

class Slow(SimpleAdapter):
    async def on_message(self, msg, tools, history, *args, **kw):
        print("TURN STARTED", flush=True)
        await asyncio.sleep(3600)

logging.basicConfig(level=logging.INFO, stream=sys.stdout, format="%(levelname)s %(message)s")
agent = Agent.from_config("slow", adapter=Slow(), config_path="agent_config.yaml")
asyncio.run(agent.run(shutdown_timeout=3600))
"""


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_second_signal_stops_now_without_a_traceback(
    platform: RestartablePlatform, tmp_path: Path, sig: int
) -> None:
    """The first signal waits for the running turn (shutdown_timeout, here an hour) and says
    how to stop now; the second cancels it and the script exits 0, quietly. Before: the
    handlers were gone once the first came, so a second Ctrl-C raised KeyboardInterrupt with a
    traceback (a second SIGTERM killed the process). The cut turn's message is answered at
    the next start."""
    live, aid, key, rid = agent_in_room(platform, "Slow")
    (tmp_path / "agent_config.yaml").write_text(f"slow:\n  agent_id: {aid}\n  api_key: {key}\n")
    env = {**os.environ, "BAND_REST_URL": live.rest, "BAND_WS_URL": live.ws}
    env["PYTHONPATH"] = str(Path(band.__file__).resolve().parents[1])
    proc = subprocess.Popen(
        [sys.executable, "-c", SLOW_SCRIPT], cwd=tmp_path, env=env, text=True,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
    )  # fmt: skip
    lines: queue.Queue[str | None] = queue.Queue()  # None: the output ended

    def read() -> None:
        for line in proc.stdout or ():
            lines.put(line)
        lines.put(None)

    threading.Thread(target=read, daemon=True).start()
    seen: list[str] = []

    def expect(text: str | None) -> str:
        """Read up to the output line with ``text`` (None: to the end); fail, not hang, when
        it does not come."""
        while True:
            try:
                line = lines.get(timeout=60)
            except queue.Empty:
                raise AssertionError(f"no {text!r} in:\n{''.join(seen)}") from None
            if line is None:
                assert text is None, f"ended before {text!r}:\n{''.join(seen)}"
                return ""
            seen.append(line)
            if text is not None and text in line:
                return line

    try:
        expect("Agent started")
        body = {"message": {"content": "take your time", "mentions": [{"id": aid}]}}
        r = live.human("POST", f"/api/v1/me/chats/{rid}/messages", json=body)
        mid = r.json()["data"]["id"]
        expect("TURN STARTED")
        proc.send_signal(sig)
        waiting = expect("waiting up to 3600 s for 1 running turn to finish")
        assert "(Ctrl-C again to stop now)" in waiting
        proc.send_signal(sig)
        expect("Agent stopped: Slow (graceful=False)")  # not an hour later
        expect(None)
        proc.wait(60)
    finally:
        if proc.poll() is None:
            stop_process(proc)
    out = "".join(seen)
    assert proc.returncode == 0, out
    assert "Traceback" not in out and "KeyboardInterrupt" not in out
    assert "stopping now: running turns cancelled" in out
    assert "Agent stopped: Slow (graceful=False)" in out and key not in out

    async def answered_at_the_next_start() -> list[str]:
        human = Human(live)
        assert await human.status(rid, mid, aid) == "processing"
        async with fast_agent(live, Echo(), aid, key):
            await wait_for(lambda: human.status_is(rid, mid, aid, "processed"))
        texts = [plain(m["content"]) for m in await human.replies(rid, aid)]
        await human.aclose()
        return texts

    assert asyncio.run(answered_at_the_next_start()) == ["echo: take your time"]
