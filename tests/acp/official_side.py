"""The two sides of the side-by-side tests: the official band-sdk 6.0.1 ACPClientAdapter (in
its own venv, ``BAND_REFSDK_PYTHON``) and ours, each over the scripted ACP agent in a room of
its own on the same local platform.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import acp
from acp_helpers import AGENT, run
from bandtest.platform import Live, room_with, stop_process
from bandtest.refsdk import REFSDK_PYTHON

from band import Agent
from band.adapters import ACPClientAdapter, ACPClientAdapterConfig
from band.workspaces import create_room_workspace_resolver

T = TypeVar("T")
#: what a test does with a side: (agent id, room id, is the agent still running?) -> its result
Drive = Callable[[str, str, Callable[[], bool]], T]


def settled(live: Live, room: str, mid: str, aid: str) -> bool:
    """Whether ``aid`` has processed (or failed) message ``mid``."""
    r = live.human("GET", f"/api/v1/me/chats/{room}/messages", params={"page_size": 100})
    for m in r.json()["data"]:
        if m["id"] == mid:
            status = (m.get("metadata") or {}).get("delivery_status", {}).get(aid, {})
            return status.get("status") in ("processed", "failed")
    return False


def wait_settled(
    live: Live, room: str, mid: str, aid: str, alive: Callable[[], bool], what: str
) -> None:
    """Wait (at most 40 s, while the agent runs) until ``aid`` has settled message ``mid``."""
    deadline = time.monotonic() + 40
    while not settled(live, room, mid, aid):
        assert alive() and time.monotonic() < deadline, f"{what} did not settle"
        time.sleep(0.2)


def official_side(live: Live, tmp_path: Path, ref_agent: str, drive: Drive[T], **env: str) -> T:
    """``drive`` the official adapter, run as the script ``ref_agent`` (workspaces in ref-ws)."""
    lend = tmp_path / "acp_only"  # the official venv lacks the acp package: lend it ours
    lend.mkdir()
    (lend / "acp").symlink_to(Path(acp.__file__).parent)
    script = tmp_path / "ref_agent.py"
    script.write_text(ref_agent)
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
        **env,
    }
    proc = subprocess.Popen(
        [str(REFSDK_PYTHON), str(script), sys.executable, str(AGENT)],
        env=env,
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        return drive(ref_id, ref_room, lambda: proc.poll() is None)
    finally:
        stop_process(proc)


def our_side(
    live: Live, tmp_path: Path, drive: Drive[T], timeout: float, **adapter_options: Any
) -> T:
    """``drive`` our ACPClientAdapter, configured as the official one (workspaces in our-ws)."""
    our_id, _, our_key = live.register("Coder")
    our_room = room_with(live, our_id)
    adapter = ACPClientAdapter(
        ACPClientAdapterConfig(command=[sys.executable, str(AGENT)], turn_timeout_s=20.0),
        workspace_for_room=create_room_workspace_resolver(tmp_path / "our-ws"),
        **adapter_options,
    )

    async def ours() -> T:
        agent = Agent.create(
            adapter=adapter, agent_id=our_id, api_key=our_key, rest_url=live.rest, ws_url=live.ws
        )
        async with agent:
            return await asyncio.to_thread(drive, our_id, our_room, lambda: True)

    return run(ours(), timeout=timeout)
