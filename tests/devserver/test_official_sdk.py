"""End-to-end: the official band-sdk 6.0.1 echo agent against the dev server (optional)."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pytest

from .conftest import Live

REFSDK_PYTHON = Path(os.environ.get("BAND_REFSDK_PYTHON", "/work/refsdk/bin/python"))

ECHO = """
import asyncio, os
from band import Agent
from band.core.simple_adapter import SimpleAdapter

class Echo(SimpleAdapter[list]):
    async def on_message(self, msg, tools, history, participants_msg, contacts_msg, *,
                         is_session_bootstrap, room_id):
        await tools.send_message("echo: " + msg.content, mentions=[msg.sender_id])

asyncio.run(Agent.create(adapter=Echo(), agent_id=os.environ["AID"],
                         api_key=os.environ["AKEY"]).run())
"""


@pytest.mark.skipif(not REFSDK_PYTHON.exists(), reason="official band-sdk venv not installed")
def test_official_echo_agent(live: Live, tmp_path: Path) -> None:
    aid, _, key = live.register("Echo")
    script = tmp_path / "echo.py"
    script.write_text(ECHO)
    env = {
        **os.environ,
        "AID": aid,
        "AKEY": key,
        "BAND_REST_URL": live.rest,
        "BAND_WS_URL": live.ws,
    }
    env.pop("PYTHONPATH", None)
    log = (tmp_path / "agent.log").open("w")
    proc = subprocess.Popen([str(REFSDK_PYTHON), str(script)], env=env, stdout=log, stderr=log)
    try:
        rid = live.human("POST", "/api/v1/me/chats", json={"chat": {}}).json()["data"]["id"]
        body = {"participant": {"participant_id": aid}}
        live.human("POST", f"/api/v1/me/chats/{rid}/participants", json=body)
        msg = {"message": {"content": "ping", "mentions": [{"id": aid}]}}
        mid = live.human("POST", f"/api/v1/me/chats/{rid}/messages", json=msg).json()["data"]["id"]
        deadline = time.monotonic() + 30
        replies: list[dict] = []
        while time.monotonic() < deadline and proc.poll() is None:
            rows = live.human("GET", f"/api/v1/me/chats/{rid}/messages").json()["data"]
            replies = [m for m in rows if m["sender_id"] == aid and m["message_type"] == "text"]
            if replies and rows[0]["metadata"]["delivery_status"][aid]["status"] == "processed":
                break
            time.sleep(0.2)
        log.flush()
        assert replies, (tmp_path / "agent.log").read_text()[-3000:]
        assert "echo:" in replies[0]["content"] and "ping" in replies[0]["content"]
        assert rows[0]["id"] == mid
        assert rows[0]["metadata"]["delivery_status"][aid]["status"] == "processed"
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()
