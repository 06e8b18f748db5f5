"""The direct tool methods return band-sdk 6.0.1's result shapes, against the real band dev.

``official_results.json`` is ``probe_results.py`` run with the official SDK against band dev:
for each method the result's class and field names (two levels deep). Ours must give the
same class names and fields, with attribute access.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from bandtest.platform import Live

from band.core import wire

from .probe_results import probe

OFFICIAL: dict[str, Any] = json.loads(Path(__file__).with_name("official_results.json").read_text())


@pytest.fixture(scope="module")
def ours(request: pytest.FixtureRequest) -> dict[str, Any]:
    from bandtest.platform import live_platform

    gen = live_platform()
    plat = next(gen)
    request.addfinalizer(lambda: next(gen, None))
    return asyncio.run(probe(plat.rest, plat.user_key))


def _same_shape(theirs: dict[str, Any], mine: dict[str, Any], where: str) -> None:
    assert mine.get("type") == theirs.get("type"), where
    for key in ("fields", "keys"):
        if key in theirs:
            assert mine.get(key) == theirs[key], f"{where}: {key}"
    for name, sub in (theirs.get("nested") or {}).items():
        assert name in (mine.get("nested") or {}), f"{where}.{name} is None on ours"
        _same_shape(sub, mine["nested"][name], f"{where}.{name}")
    if theirs.get("item") and mine.get("item"):
        _same_shape(theirs["item"], mine["item"], f"{where}[]")


@pytest.mark.parametrize("method", sorted(OFFICIAL))
def test_result_shape(ours: dict[str, Any], method: str) -> None:
    _same_shape(OFFICIAL[method], ours[method], method)


def test_attribute_access_the_issue_lists(live: Live) -> None:
    """``send_message(...).id``, ``lookup_peers().metadata.total_count`` and friends."""
    from band.client.rest import RestClient
    from band.runtime.tools import AgentTools

    aid, _, key = live.register("Typed")
    live.register("Other")
    rid = live.human("POST", "/api/v1/me/chats", json={"chat": {}}).json()["data"]["id"]
    body = {"participant": {"participant_id": aid}}
    live.human("POST", f"/api/v1/me/chats/{rid}/participants", json=body)

    async def go() -> None:
        async with RestClient(api_key=key, base_url=live.rest) as rest:
            tools = AgentTools(rid, rest, agent_id=aid)
            people = await tools.get_participants()
            assert all(isinstance(p, wire.ChatParticipant) for p in people)
            me = next(p for p in people if p.type == "User")
            sent = await tools.send_message("hi", mentions=[me.handle or ""])
            assert isinstance(sent.id, str) and sent.success is True
            assert sent.recipients and sent.recipients[0].handle == me.handle
            peers = await tools.lookup_peers()
            assert peers.metadata is not None and peers.metadata.total_count == len(peers.data)
            memory = await tools.store_memory("tea", "long_term", "semantic", "user", "t", "agent")
            assert (await tools.get_memory(memory.id or "")).content == "tea"
            task = await tools.create_task("Write it")
            assert task.number == 1 and task.created_by and task.created_by.id == aid
            board = await tools.set_board(goal_title="Ship")
            assert (await tools.get_board()).goal_title == board.goal_title == "Ship"
            listed = await tools.list_tasks()
            assert [t.id for t in listed.data] == [task.id]
            assert listed.metadata is not None and listed.metadata.has_more is False
            event = await tools.send_event("thinking", "thought")
            assert event.message_type == "thought"
            # the dict view stays for code written against our earlier results
            assert sent["id"] == sent.id and sent.get("missing", 1) == 1
            assert sent.model_dump()["id"] == sent.id
            # execute_tool_call keeps the spec's dict shapes
            raw = await tools.execute_tool_call("band_get_board", {})
            assert isinstance(raw, dict) and raw["goal_title"] == "Ship"

    asyncio.run(go())


def test_decode_ignores_unknown_keys_and_missing_ones() -> None:
    task = wire.decode_as(wire.Task, {"id": "t", "number": 3, "brand_new": True})
    assert (task.id, task.number, task.subject) == ("t", 3, None)
    with pytest.raises(KeyError):
        task["brand_new"]
