"""Drop-in: framework agents written only against band-sdk 6.0.1's documented adapter
constructors (``scripts/<framework>_agent.py``) run unchanged on ours.

Each script runs as a subprocess against a real band dev, its model played by the scripted
model server (the framework's provider SDK reaches it through its base-URL variable): the
agent answers a mention through ``band_send_message`` and posts its tool events, then stops
cleanly on SIGTERM.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from bandtest.platform import Live, room_with, stop_process

from band.testing import ScriptedModel, TextTurn, ToolTurn

SCRIPTS = Path(__file__).with_name("scripts")
FRAMEWORKS = ["langgraph", "pydantic_ai", "gemini"]


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_a_framework_agent_runs_unchanged(live: Live, framework: str, tmp_path: Path) -> None:
    aid, _, key = live.register(framework.title())
    rid = room_with(live, aid)
    with ScriptedModel() as model:
        model.script(
            ToolTurn("band_send_message", {"content": "drop-in works", "mentions": ["@local"]}),
            TextTurn(""),
        )
        env = {k: v for k, v in os.environ.items() if not k.startswith(("BAND_", "PYTHONPATH"))}
        env.update(model.env(), AID=aid, AKEY=key, BAND_REST_URL=live.rest, BAND_WS_URL=live.ws)
        log = tmp_path / "agent.out"
        with log.open("w") as sink:
            proc = subprocess.Popen(
                [sys.executable, "-I", str(SCRIPTS / f"{framework}_agent.py")],
                env=env,
                stdout=sink,
                stderr=subprocess.STDOUT,
            )
        try:
            body = {"message": {"content": "hello", "mentions": [{"id": aid}]}}
            r = live.human("POST", f"/api/v1/me/chats/{rid}/messages", json=body)
            assert r.status_code == 201, r.text
            rows = _wait_for_reply(live, rid, aid, proc, log)
            assert proc.poll() is None, log.read_text()
        finally:
            stop_process(proc)
        assert proc.returncode == 0, log.read_text()
    texts = [m["content"] for m in rows if m["message_type"] == "text" and m["sender_id"] == aid]
    assert len(texts) == 1 and texts[0].endswith("drop-in works")
    calls = [json.loads(m["content"]) for m in rows if m["message_type"] == "tool_call"]
    assert [c["name"] for c in calls] == ["band_send_message"]
    assert model.requests[0].tool_names[:1] == ["band_send_message"]


def _wait_for_reply(
    live: Live, rid: str, aid: str, proc: subprocess.Popen[bytes], log: Path
) -> list[dict[str, object]]:
    """The room's messages once the agent's reply and its tool result are there."""
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        assert proc.poll() is None, log.read_text()
        rows = live.human("GET", f"/api/v1/me/chats/{rid}/messages").json()["data"]
        kinds = {m["message_type"] for m in rows if m["sender_id"] == aid}
        if {"text", "tool_result"} <= kinds:
            return list(reversed(rows))
        time.sleep(0.1)
    raise AssertionError(f"no reply: {log.read_text()}")
