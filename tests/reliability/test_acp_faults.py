"""An ACP agent that crashes or hangs mid-turn, behind a real Agent on the real platform.

Each failure shows in the room as the documented error event (seed 002, "Limits and Errors"),
exactly once; the message is marked failed (spec: the timed-out turn is marked failed; the
adapter reported the failure itself, so it is not run again), and the next message gets a fresh
process and one answer.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from bandtest.platform import RestartablePlatform, room_with

from band.adapters import ACPClientAdapter, ACPClientAdapterConfig
from band.workspaces import create_room_workspace_resolver

from .conftest import Human, agent_on, wait_for

SCRIPTED = Path(__file__).resolve().parents[1] / "acp" / "scripted_agent.py"
CRASHED = "Internal error while processing message; see agent logs."


def _events(rows: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """The agent's text replies and error events (narration and session events left out)."""
    return [(kind, text) for kind, text in rows if kind in ("text", "error")]


async def _agent_rows(human: Human, rid: str, aid: str) -> list[tuple[str, str]]:
    from .conftest import plain

    rows = sorted(await human.messages(rid), key=lambda m: (m["inserted_at"], m["id"]))
    return [(m["message_type"], plain(m["content"])) for m in rows if m["sender_id"] == aid]


def _run(
    platform: RestartablePlatform, tmp_path: Path, first: str, error: str, **cfg: float
) -> None:
    live = platform.running
    aid, _, key = live.register("Coder")
    rid = room_with(live, aid)
    config = ACPClientAdapterConfig(command=[sys.executable, str(SCRIPTED)], **cfg)
    adapter = ACPClientAdapter(
        config, workspace_for_room=create_room_workspace_resolver(tmp_path / "ws")
    )

    async def scenario() -> None:
        human = Human(live)
        async with agent_on(live, adapter, aid, key):
            bad = await human.send(rid, aid, f"[[ {first} ]]")
            # settled once the error is reported (the adapter reports it and fails the turn):
            # never left pending, never run again
            await wait_for(lambda: human.settled(rid, aid, [bad], "failed"), timeout=30)
            good = await human.send(rid, aid, "[[ reply recovered ]]")
            await wait_for(lambda: human.settled(rid, aid, [good]), timeout=30)
            await asyncio.sleep(0.6)  # a duplicate reply or a rerun would land here
            assert _events(await _agent_rows(human, rid, aid)) == [
                ("error", error),
                ("text", "recovered"),
            ]
            assert await human.statuses(rid, aid, [bad, good]) == ["failed", "processed"]
        await human.aclose()

    asyncio.run(asyncio.wait_for(scenario(), 90))


def test_acp_agent_crash_mid_turn(platform: RestartablePlatform, tmp_path: Path) -> None:
    """The ACP process exits mid-turn: the documented error, then a new process answers."""
    _run(platform, tmp_path, "think working; crash", CRASHED, turn_timeout_s=20)


def test_acp_agent_hang(platform: RestartablePlatform, tmp_path: Path) -> None:
    """The ACP agent never ends its turn: the timeout error, the process stopped, then an answer."""
    _run(
        platform,
        tmp_path,
        "sleep 60",
        "ACP agent response timed out after 10.0s",
        # the limit also bounds the next turn's fresh process (start, load_session): 10 s leaves
        # room for it on a loaded 2-core machine, where 3 s failed
        turn_timeout_s=10.0,
    )
