"""Scripts written only against band-sdk 6.0.1's documented API run unchanged on ours.

Each script in ``scripts/`` runs as a subprocess against a real band dev: with our package,
and (when ``BAND_REFSDK_PYTHON`` is set) with the official SDK too, where both must print
the same thing. The scripts import nothing of ours beyond the official names.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from bandtest.platform import Live, room_with, say, stop_process
from bandtest.refsdk import REFSDK_PYTHON

SCRIPTS = Path(__file__).with_name("scripts")


def _interpreters() -> list[pytest.ParameterSet]:
    out = [pytest.param(sys.executable, id="ours")]
    marks = pytest.mark.skipif(not REFSDK_PYTHON.exists(), reason="BAND_REFSDK_PYTHON unset")
    out.append(pytest.param(str(REFSDK_PYTHON), id="official", marks=marks))
    return out


def _env(live: Live, aid: str, key: str) -> dict[str, str]:
    env = {**os.environ, "AID": aid, "AKEY": key}
    env.update(BAND_REST_URL=live.rest, BAND_WS_URL=live.ws)
    env.pop("PYTHONPATH", None)
    return env


def _run_worker(live: Live, python: str) -> dict[str, object]:
    aid, _, key = live.register("Worker")
    live.register("Bystander")
    rid = room_with(live, aid)
    say(live, rid, "please start", aid)
    out = subprocess.run(
        [python, str(SCRIPTS / "worker_agent.py")],
        env=_env(live, aid, key),
        capture_output=True,
        text=True,
        timeout=90,
    )
    assert out.returncode == 0, out.stderr[-4000:]
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


EXPECTED_WORKER = {
    "send_message.id": True,
    "send_message.recipients": 1,
    "lookup_peers.total_count": 1,
    "lookup_peers.names": ["Bystander"],
    "store_memory": [True, "likes tea", "agent"],
    "task": [1, "Write the report", "in_progress"],
    "get_board.goal_title": "Ship it",
    "participants": ["Agent", "User"],
    "context": [["data", "meta"], 1],
    "is_session_bootstrap": True,
    "is_running_after_run": False,
    "is_contacts_subscribed": False,
}


@pytest.mark.parametrize("python", _interpreters())
def test_worker_agent(live: Live, python: str) -> None:
    """Typed results, run(shutdown_timeout=, install_signal_handlers=False), stop(timeout=)."""
    assert _run_worker(live, python) == EXPECTED_WORKER


@pytest.mark.parametrize("python", _interpreters())
def test_graceful_shutdown_agent(live: Live, python: str, tmp_path: Path) -> None:
    """run_with_graceful_shutdown answers, then SIGTERM ends it cleanly via on_signal."""
    aid, _, key = live.register("Echo")
    rid = room_with(live, aid)
    log = tmp_path / "agent.out"
    with log.open("w") as sink:
        proc = subprocess.Popen(
            [python, str(SCRIPTS / "graceful_agent.py")],
            env=_env(live, aid, key),
            stdout=sink,
            stderr=subprocess.STDOUT,
        )
        try:
            deadline = time.monotonic() + 60
            while "ready" not in log.read_text() and proc.poll() is None:
                assert time.monotonic() < deadline, log.read_text()
                time.sleep(0.1)
            say(live, rid, "ping", aid)
            while proc.poll() is None and time.monotonic() < deadline:
                rows = live.human("GET", f"/api/v1/me/chats/{rid}/messages").json()["data"]
                if any(m["sender_id"] == aid and "echo:" in m["content"] for m in rows):
                    break
                time.sleep(0.1)
            else:
                pytest.fail(log.read_text())
            proc.send_signal(signal.SIGTERM)
            assert proc.wait(30) == 0, log.read_text()
        finally:
            if proc.poll() is None:
                stop_process(proc)
    assert "stopped ['SIGTERM'] False" in log.read_text(), log.read_text()
