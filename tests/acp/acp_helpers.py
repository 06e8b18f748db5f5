"""Helpers for the ACP tests: the scripted agent's command, room sinks, read-backs."""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Coroutine, Sequence
from pathlib import Path
from typing import Any, TypeVar

from bandtest.platform import Live, room_with

from band.client import RestClient, path
from band.core.turn import AgentFailure, Turn, failure_event
from band.integrations.acp.config import ACPClientAdapterConfig
from band.integrations.acp.rooms import ACPRooms
from band.workspaces import RoomWorkspaces, create_room_workspace_resolver

__all__ = [
    "AGENT",
    "Live",
    "PlatformSink",
    "acp_rooms",
    "agent_command",
    "calls",
    "room_events",
    "room_with",
    "run",
]

AGENT = Path(__file__).with_name("scripted_agent.py")
T = TypeVar("T")


def agent_command(*flags: str) -> list[str]:
    """Launch the scripted ACP agent with this interpreter."""
    return [sys.executable, str(AGENT), *flags]


def acp_rooms(
    config: ACPClientAdapterConfig, tmp_path: Path, *, servers: Sequence[Any] = (), **options: Any
) -> ACPRooms:
    """ACPRooms over ``config``: room workspaces under ``tmp_path/ws``, ``servers`` as every
    session's MCP servers."""

    async def servers_for(room_id: str, transport: str) -> list[Any]:
        return list(servers)

    workspaces = RoomWorkspaces(create_room_workspace_resolver(tmp_path / "ws"))
    return ACPRooms(config, workspaces=workspaces, servers_for=servers_for, **options)


def run(coro: Coroutine[Any, Any, T], timeout: float = 60.0) -> T:
    """Run ``coro`` on a fresh loop, bounded so a hung test fails instead of stalling CI."""

    async def bounded() -> T:
        return await asyncio.wait_for(coro, timeout)

    return asyncio.run(bounded())


class PlatformSink:
    """A room's event sink over the real platform: what the adapter's tools do for events."""

    def __init__(self, rest: RestClient, room_id: str) -> None:
        self.rest = rest
        self.room_id = room_id
        self.turn = Turn()
        self.failures: list[AgentFailure] = []

    async def send_event(
        self, content: str, message_type: str, metadata: dict[str, Any] | None = None
    ) -> Any:
        body = {"event": {"content": content, "message_type": message_type, "metadata": metadata}}
        return await self.rest.request(
            "POST", path("/agent/chats/{}/events", self.room_id), json=body
        )

    async def send_failure(self, failure: AgentFailure) -> None:
        self.failures.append(failure)
        content, metadata = failure_event(failure)
        await self.send_event(content, "error", metadata)
        self.turn.note_reported()


def room_events(live: Live, room_id: str) -> list[tuple[str, str]]:
    """Every message and event in the room, oldest first, as (message_type, content)."""
    r = live.human("GET", f"/api/v1/me/chats/{room_id}/messages", params={"page_size": 100})
    assert r.status_code == 200, r.text
    rows = r.json()["data"]
    rows.sort(key=lambda m: (m["inserted_at"], m["id"]))
    return [(m["message_type"], m["content"]) for m in rows]


def room_rows(live: Live, room_id: str) -> list[dict[str, Any]]:
    """Every message and event in the room with metadata, oldest first."""
    r = live.human("GET", f"/api/v1/me/chats/{room_id}/messages", params={"page_size": 100})
    assert r.status_code == 200, r.text
    rows: list[dict[str, Any]] = r.json()["data"]
    rows.sort(key=lambda m: (m["inserted_at"], m["id"]))
    return rows


def calls(workspace: str | Path) -> list[dict[str, Any]]:
    """The ACP calls the scripted agent received in ``workspace``, in order."""
    log = Path(workspace) / "calls.jsonl"
    if not log.exists():
        return []
    return [json.loads(line) for line in log.read_text().splitlines()]
