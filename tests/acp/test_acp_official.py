"""Side by side: the official band-sdk 6.0.1 ACPClientAdapter and ours, on the same scripted
ACP agent and the same local platform, post the same sequence of room events per turn.

Optional: needs the official band-sdk venv (``BAND_REFSDK_PYTHON``, as .ci/run exports it);
its missing ``acp`` package is borrowed from this environment.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bandtest.platform import Live
from bandtest.refsdk import requires_refsdk
from official_side import official_side, our_side, wait_settled

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


def _drive(live: Live, room: str, aid: str, alive: Any) -> list[list[str]]:
    """Send each script in turn; return the agent's event kinds per turn."""
    per_turn: list[list[str]] = []
    for script in SCRIPTS:
        before = len(_kinds(live, room, aid))
        body = {"message": {"content": f"[[{script}]]", "mentions": [{"id": aid}]}}
        r = live.human("POST", f"/api/v1/me/chats/{room}/messages", json=body)
        mid = r.json()["data"]["id"]
        wait_settled(live, room, mid, aid, alive, f"turn {script!r}")
        time.sleep(0.3)  # events posted after the settlement would land here
        per_turn.append(_kinds(live, room, aid)[before:])
    return per_turn


@requires_refsdk
def test_same_room_events_as_the_official_adapter(live: Live, tmp_path: Path) -> None:
    def drive(aid: str, room: str, alive: Callable[[], bool]) -> list[list[str]]:
        return _drive(live, room, aid, alive)

    official = official_side(live, tmp_path, REF_AGENT, drive)
    mine = our_side(live, tmp_path, drive, timeout=240)
    assert mine == official
    # and the turns really differ from each other (the comparison is not vacuous)
    assert official[0] == ["thought", "tool_call", "text", "tool_result", "task"]
    assert official[1][:2] == ["thought", "task"] and official[1][2].startswith("error: The agent")
