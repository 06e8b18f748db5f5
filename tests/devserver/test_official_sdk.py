"""End-to-end: the official band-sdk 6.0.1 echo agent against the dev server (optional)."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

from bandtest.refsdk import REFSDK_PYTHON, requires_refsdk

from .conftest import Live, stop_process

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


def _wait_for_reply(live: Live, rid: str, aid: str, mid: str, proc: subprocess.Popen) -> list:
    """Poll the room until ``mid`` is processed by ``aid``; return the agent's text replies."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and proc.poll() is None:
        rows = live.human("GET", f"/api/v1/me/chats/{rid}/messages").json()["data"]
        status = {m["id"]: m["metadata"].get("delivery_status", {}) for m in rows}
        replies = [m for m in rows if m["sender_id"] == aid and m["message_type"] == "text"]
        if status.get(mid, {}).get(aid, {}).get("status") == "processed" and replies:
            return replies
        time.sleep(0.2)
    return []


@requires_refsdk
def test_official_echo_agent(live: Live, tmp_path: Path) -> None:
    """A message sent before the agent starts and one sent while it runs are each answered once."""
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
    rid = live.human("POST", "/api/v1/me/chats", json={"chat": {}}).json()["data"]["id"]
    body = {"participant": {"participant_id": aid}}
    live.human("POST", f"/api/v1/me/chats/{rid}/participants", json=body)

    def send(text: str) -> str:
        msg = {"message": {"content": text, "mentions": [{"id": aid}]}}
        return live.human("POST", f"/api/v1/me/chats/{rid}/messages", json=msg).json()["data"]["id"]

    offline = send("sent-while-offline")
    log = (tmp_path / "agent.log").open("w")
    proc = subprocess.Popen([str(REFSDK_PYTHON), str(script)], env=env, stdout=log, stderr=log)
    try:
        replies = _wait_for_reply(live, rid, aid, offline, proc)
        log.flush()
        assert replies, (tmp_path / "agent.log").read_text()[-3000:]
        online = send("sent-while-running")
        replies = _wait_for_reply(live, rid, aid, online, proc)
        log.flush()
        assert len(replies) == 2, (tmp_path / "agent.log").read_text()[-3000:]
        texts = sorted(r["content"] for r in replies)
        assert any("echo:" in t and "sent-while-offline" in t for t in texts)
        assert any("echo:" in t and "sent-while-running" in t for t in texts)
        time.sleep(1.0)  # a duplicate answer would land here
        rows = live.human("GET", f"/api/v1/me/chats/{rid}/messages").json()["data"]
        assert len([m for m in rows if m["sender_id"] == aid and m["message_type"] == "text"]) == 2
    finally:
        stop_process(proc)
        log.close()
