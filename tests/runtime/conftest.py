"""Runtime tests: real agents against a real local platform over real sockets."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from bandtest.agents import FAST_POLICY, Human, fast_agent, plain, wait_for
from bandtest.platform import Live, RestartablePlatform, restartable_platform, room_with

from band.core import SimpleAdapter

__all__ = [
    "Echo",
    "FAST_POLICY",
    "agent_in_room",
    "Human",
    "fast_agent",
    "plain",
    "room_with",
    "wait_for",
]


class Echo(SimpleAdapter[Any]):
    """Answers every message with ``echo: <content>``, mentioning its sender."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[str] = []

    async def on_message(
        self, msg, tools, history, participants_msg, contacts_msg, *, is_session_bootstrap, room_id
    ):  # type: ignore[no-untyped-def]
        self.seen.append(msg.id)
        await tools.send_message(f"echo: {msg.content}", mentions=[msg.sender_id])


@pytest.fixture
def platform(tmp_path: Path) -> Iterator[RestartablePlatform]:
    """A restartable local platform on a SQLite file."""
    yield from restartable_platform(tmp_path)


def agent_in_room(platform: RestartablePlatform, name: str) -> tuple[Live, str, str, str]:
    """Register agent ``name`` on the running platform and put it in a new room.

    Returns (live, agent id, api key, room id).
    """
    live = platform.live
    assert live is not None
    aid, _, key = live.register(name)
    return live, aid, key, room_with(live, aid)
