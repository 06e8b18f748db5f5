"""Side by side with the official band-sdk 6.0.1 ACPClientAdapter (optional, as
test_acp_official.py): the same Band tools over MCP and the same live message in the prompt,
``@[[<id>]]`` mention tokens rewritten to ``@handle``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from acp_helpers import calls
from bandtest.platform import Live
from bandtest.refsdk import requires_refsdk
from official_side import Drive, official_side, our_side, wait_settled

from band.runtime.capabilities import Capability

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
    wait_settled(live, room, mid, aid, alive, "the turn")
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
    def drive(workspace: str) -> Drive[dict[str, Any]]:
        return lambda aid, room, alive: _turn(live, room, aid, alive, tmp_path / workspace)

    official = official_side(
        live, tmp_path, REF_AGENT, drive("ref-ws"), CAPS=",".join(c.value for c in caps)
    )
    mine = our_side(live, tmp_path, drive("our-ws"), timeout=120, capabilities=caps)
    assert mine == official
    # not vacuous: contacts are served, and both prompts name people by handle
    assert len(official["tools"]) == (16 if caps else 13)
    assert "band_list_contacts" in official["tools"]
    assert official["message"].endswith(f"@<agent> hi @{official['me']} here: [[{SCRIPT}]]")
