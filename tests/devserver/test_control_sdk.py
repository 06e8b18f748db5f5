"""agent.control end to end with the official band-sdk echo agent (optional).

Stop parks the room (a new mention gets no reply), play resumes and the parked message is
answered after the SDK's /next resync.
"""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path
from typing import Any

from bandtest.refsdk import REFSDK_PYTHON, requires_refsdk

from .conftest import Live, stop_process
from .test_official_sdk import ECHO


def _replies(live: Live, rid: str, aid: str) -> list[dict[str, Any]]:
    rows = live.human("GET", f"/api/v1/me/chats/{rid}/messages", params={"limit": 100})
    return [m for m in rows.json()["data"] if m["sender_id"] == aid and m["message_type"] == "text"]


def _wait(pred: Any, timeout: float, proc: subprocess.Popen) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and proc.poll() is None:
        if pred():
            return True
        time.sleep(0.2)
    return bool(pred())


@requires_refsdk
def test_sdk_obeys_stop_and_play(live: Live, tmp_path: Path) -> None:
    aid, _, key = live.register("Echo")
    script = tmp_path / "echo.py"
    script.write_text("import logging\nlogging.basicConfig(level=logging.DEBUG)\n" + ECHO)
    env = {**os.environ, "AID": aid, "AKEY": key, "BAND_REST_URL": live.rest,
           "BAND_WS_URL": live.ws}  # fmt: skip
    env.pop("PYTHONPATH", None)
    log_path = tmp_path / "agent.log"
    log = log_path.open("w")
    proc = subprocess.Popen([str(REFSDK_PYTHON), str(script)], env=env, stdout=log, stderr=log,
                            cwd=tmp_path)  # fmt: skip
    try:
        rid = live.human("POST", "/api/v1/me/chats", json={"chat": {}}).json()["data"]["id"]
        body = {"participant": {"participant_id": aid}}
        live.human("POST", f"/api/v1/me/chats/{rid}/participants", json=body)

        def say(text: str) -> str:
            msg = {"message": {"content": text, "mentions": [{"id": aid}]}}
            r = live.human("POST", f"/api/v1/me/chats/{rid}/messages", json=msg)
            assert r.is_success
            return str(r.json()["data"]["id"])

        def status(mid: str) -> str | None:
            rows = live.human("GET", f"/api/v1/me/chats/{rid}/messages", params={"limit": 100})
            for m in rows.json()["data"]:
                if m["id"] == mid:
                    return (m["metadata"].get("delivery_status") or {}).get(aid, {}).get("status")
            return None

        def answered(text: str) -> bool:
            return any(text in m["content"] for m in _replies(live, rid, aid))

        m1 = say("ping1")
        assert _wait(lambda: status(m1) == "processed", 30, proc), log_path.read_text()[-3000:]
        assert answered("ping1")

        ctl = f"/api/v1/me/chats/{rid}/control"
        assert live.human("POST", ctl, json={"mode": "stop", "agent_id": aid}).is_success
        time.sleep(0.5)
        m2 = say("ping2")
        assert not _wait(lambda: answered("ping2"), 3, proc), "replied while stopped"
        assert status(m2) not in ("processed", "failed")  # parked for replay
        assert proc.poll() is None, log_path.read_text()[-3000:]

        assert live.human("POST", ctl, json={"mode": "play", "agent_id": aid}).is_success
        log.flush()
        assert _wait(lambda: status(m2) == "processed", 30, proc), log_path.read_text()[-3000:]
        assert answered("ping2")
        assert sum("ping1" in m["content"] for m in _replies(live, rid, aid)) == 1
    finally:
        stop_process(proc)
        log.close()
