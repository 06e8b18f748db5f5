"""A room's cached context stays bounded: ``max_context_messages`` plus the turn's own message."""

from __future__ import annotations

import asyncio

from bandtest.platform import RestartablePlatform

from band.client.rest import RestClient
from band.runtime.rooms.history import RoomHistory
from band.runtime.sessionconfig import SessionConfig

from .conftest import agent_in_room


def test_cached_context_keeps_only_what_a_turn_can_see(platform: RestartablePlatform) -> None:
    live, aid, key, rid = agent_in_room(platform, "Bounded")
    for i in range(8):
        body = {"message": {"content": f"m{i}", "mentions": [{"id": aid}]}}
        assert live.human("POST", f"/api/v1/me/chats/{rid}/messages", json=body).status_code == 201

    async def scenario() -> None:
        rest = RestClient(key, live.rest)
        try:
            history = RoomHistory(rest, rid, SessionConfig(max_context_messages=3))
            fetched = await history.for_turn("none", refresh=True)
            assert [r["content"].split()[-1] for r in fetched] == [
                "m5",
                "m6",
                "m7",
            ]  # mention + text
            for i in range(50):  # a busy room between two fetches
                history.remember({"id": f"local-{i}", "content": f"r{i}"})
            assert len(history._rows) == 4  # the last three, plus room for the turn's own
            rows = await history.for_turn("local-49", refresh=False)
            assert [r["content"] for r in rows] == ["r46", "r47", "r48"]
            history.remember({"id": "local-48", "content": "again"})  # held: not twice
            history.remember({"id": "local-0", "content": "back"})  # dropped long ago: again
            assert [r["content"] for r in history.cached()] == ["r47", "r48", "r49", "back"]
            rows = await history.for_turn("local-47", refresh=False)
            assert [r["content"] for r in rows] == ["r48", "r49", "back"]
        finally:
            await rest.aclose()

    asyncio.run(scenario())
