"""Side by side: the official band-sdk 6.0.1 ACPClientAdapter and ours, on the same scripted
ACP agent and the same local platform, post the same sequence of room events per turn.

Optional: needs the official band-sdk venv (``BAND_REFSDK_PYTHON``, as .ci/run exports it);
its missing ``acp`` package is borrowed from this environment.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import acp
from acp_helpers import AGENT, run
from bandtest.platform import Live, room_with
from bandtest.refsdk import REFSDK_PYTHON, requires_refsdk

from band import Agent
from band.adapters import ACPClientAdapter, ACPClientAdapterConfig
from band.workspaces import create_room_workspace_resolver

# .ci/run installs the official packages there and exports the interpreter's path
REF_PYTHON = REFSDK_PYTHON

REF_AGENT = """
import asyncio, os, sys
from band import Agent, create_room_workspace_resolver
from band.adapters import ACPClientAdapter, ACPClientAdapterConfig
adapter = ACPClientAdapter(
    ACPClientAdapterConfig(command=sys.argv[1:], turn_timeout_s=20.0),
    workspace_for_room=create_room_workspace_resolver(os.environ["WS"]),
)
asyncio.run(Agent.create(adapter=adapter, agent_id=os.environ["AID"],
                         api_key=os.environ["AKEY"]).run())
"""

SCRIPTS = [
    "think On it; say drafting; reply Hi!",
    "say only text",
    "decline not for me",
    "tool band_get_participants {}; say listed",
    "permission-deny",
    "permission",
    "error -32603 Model exploded",
    "crash",
    "reply back after the crash",
]


def _kinds(live: Live, room: str, aid: str) -> list[str]:
    """The agent's event kinds, with the text of its error events."""
    r = live.human("GET", f"/api/v1/me/chats/{room}/messages", params={"page_size": 100})
    rows = sorted(r.json()["data"], key=lambda m: (m["inserted_at"], m["id"]))
    return [
        f"error: {m['content']}" if m["message_type"] == "error" else m["message_type"]
        for m in rows
        if m["sender_id"] == aid
    ]


def _settled(live: Live, room: str, mid: str, aid: str) -> bool:
    r = live.human("GET", f"/api/v1/me/chats/{room}/messages", params={"page_size": 100})
    for m in r.json()["data"]:
        if m["id"] == mid:
            status = (m.get("metadata") or {}).get("delivery_status", {}).get(aid, {})
            return status.get("status") in ("processed", "failed")
    return False


def _drive(live: Live, room: str, aid: str, alive: Any) -> list[list[str]]:
    """Send each script in turn; return the agent's event kinds per turn."""
    per_turn: list[list[str]] = []
    for script in SCRIPTS:
        before = len(_kinds(live, room, aid))
        body = {"message": {"content": f"[[{script}]]", "mentions": [{"id": aid}]}}
        r = live.human("POST", f"/api/v1/me/chats/{room}/messages", json=body)
        mid = r.json()["data"]["id"]
        deadline = time.monotonic() + 40
        while not _settled(live, room, mid, aid):
            assert alive() and time.monotonic() < deadline, f"turn {script!r} did not settle"
            time.sleep(0.2)
        time.sleep(0.3)  # events posted after the settlement would land here
        per_turn.append(_kinds(live, room, aid)[before:])
    return per_turn


@requires_refsdk
def test_same_room_events_as_the_official_adapter(live: Live, tmp_path: Path) -> None:
    # the official venv lacks the acp package: lend it ours through a directory holding only it
    lend = tmp_path / "acp_only"
    lend.mkdir()
    (lend / "acp").symlink_to(Path(acp.__file__).parent)
    script = tmp_path / "ref_agent.py"
    script.write_text(REF_AGENT)

    ref_id, _, ref_key = live.register("Coder")
    ref_room = room_with(live, ref_id)
    env = {
        **os.environ,
        "PYTHONPATH": str(lend),
        "AID": ref_id,
        "AKEY": ref_key,
        "BAND_REST_URL": live.rest,
        "BAND_WS_URL": live.ws,
        "WS": str(tmp_path / "ref-ws"),
    }
    proc = subprocess.Popen(
        [str(REF_PYTHON), str(script), sys.executable, str(AGENT)],
        env=env,
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        official = _drive(live, ref_room, ref_id, lambda: proc.poll() is None)
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()

    our_id, _, our_key = live.register("Coder")
    our_room = room_with(live, our_id)
    adapter = ACPClientAdapter(
        ACPClientAdapterConfig(command=[sys.executable, str(AGENT)], turn_timeout_s=20.0),
        workspace_for_room=create_room_workspace_resolver(tmp_path / "our-ws"),
    )

    async def ours() -> list[list[str]]:
        agent = Agent.create(
            adapter=adapter, agent_id=our_id, api_key=our_key, rest_url=live.rest, ws_url=live.ws
        )
        async with agent:
            return await asyncio.to_thread(_drive, live, our_room, our_id, lambda: True)

    mine = run(ours(), timeout=240)
    assert mine == official
    # and the turns really differ from each other (the comparison is not vacuous)
    assert official[0] == ["thought", "tool_call", "text", "tool_result", "task"]
    assert official[1][:2] == ["thought", "task"] and official[1][2].startswith("error: The agent")
