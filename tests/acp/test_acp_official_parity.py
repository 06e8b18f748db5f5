"""Side by side with the official band-sdk 6.0.1 ACPClientAdapter (optional, as
test_acp_official.py): the same Band tools over MCP and the same live message in the prompt,
``@[[<id>]]`` mention tokens rewritten to ``@handle``.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import acp
import pytest
from acp_helpers import AGENT, calls, run
from bandtest.platform import Live, room_with
from bandtest.refsdk import REFSDK_PYTHON, requires_refsdk
from test_acp_official import _settled

from band import Agent
from band.adapters import ACPClientAdapter, ACPClientAdapterConfig
from band.runtime.capabilities import Capability
from band.workspaces import create_room_workspace_resolver

REF_AGENT = """
import asyncio, os, sys
from band import Agent, create_room_workspace_resolver
from band.adapters import ACPClientAdapter, ACPClientAdapterConfig
from band.core.types import Capability
caps = [Capability(c) for c in os.environ["CAPS"].split(",") if c]
adapter = ACPClientAdapter(
    ACPClientAdapterConfig(command=sys.argv[1:], turn_timeout_s=20.0),
    workspace_for_room=create_room_workspace_resolver(os.environ["WS"]),
    capabilities=caps,
)
asyncio.run(Agent.create(adapter=adapter, agent_id=os.environ["AID"],
                         api_key=os.environ["AKEY"]).run())
"""
SCRIPT = "tools; reply listed"


def _turn(live: Live, room: str, aid: str, alive: Any, workspace: Path) -> dict[str, Any]:
    """The person asks ``aid`` to list its tools; its thought and the prompt it got."""
    me = live.human("GET", "/api/v1/me/profile").json()["data"]
    # the platform puts an @[[<id>]] token in front for each mention; one more inline
    content = f"hi @[[{me['id']}]] here: [[{SCRIPT}]]"
    body = {"message": {"content": content, "mentions": [{"id": aid}]}}
    r = live.human("POST", f"/api/v1/me/chats/{room}/messages", json=body)
    assert r.status_code == 201, r.text
    mid = r.json()["data"]["id"]
    deadline = time.monotonic() + 40
    while not _settled(live, room, mid, aid):
        assert alive() and time.monotonic() < deadline, "the turn did not settle"
        time.sleep(0.2)
    rows = live.human("GET", f"/api/v1/me/chats/{room}/messages").json()["data"]
    [thought] = [m["content"] for m in rows if m["message_type"] == "thought"]
    [prompt] = [c["text"] for c in calls(workspace / room) if c["method"] == "prompt"]
    handles = {
        p["id"]: p["handle"]
        for p in live.human("GET", f"/api/v1/me/chats/{room}/participants").json()["data"]
    }
    # the live message is the prompt's last section; the two agents' handles differ
    live_message = prompt.rsplit("\n\n", 1)[-1].replace(f"@{handles[aid]}", "@<agent>")
    return {"tools": json.loads(thought), "message": live_message, "me": handles[me["id"]]}


@requires_refsdk
@pytest.mark.parametrize("caps", [[], [Capability.FILES]], ids=["default", "files"])
def test_same_tools_and_prompt_as_the_official_adapter(
    live: Live, tmp_path: Path, caps: list[Capability]
) -> None:
    lend = tmp_path / "acp_only"  # the official venv lacks the acp package: lend it ours
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
        "CAPS": ",".join(c.value for c in caps),
    }
    proc = subprocess.Popen(
        [str(REFSDK_PYTHON), str(script), sys.executable, str(AGENT)],
        env=env,
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        official = _turn(live, ref_room, ref_id, lambda: proc.poll() is None, tmp_path / "ref-ws")
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
        capabilities=caps,
    )

    async def ours() -> dict[str, Any]:
        agent = Agent.create(
            adapter=adapter, agent_id=our_id, api_key=our_key, rest_url=live.rest, ws_url=live.ws
        )
        async with agent:
            return await asyncio.to_thread(
                _turn, live, our_room, our_id, lambda: True, tmp_path / "our-ws"
            )

    mine = run(ours(), timeout=120)
    assert mine == official
    # not vacuous: contacts are served, and both prompts name people by handle
    assert len(official["tools"]) == (16 if caps else 13)
    assert "band_list_contacts" in official["tools"]
    assert official["message"].endswith(f"@<agent> hi @{official['me']} here: [[{SCRIPT}]]")
