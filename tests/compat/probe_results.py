"""Record what each direct ``AgentTools`` method returns (type, module, field names).

Run with either SDK against a live ``band dev``; prints JSON. The official SDK's output is
checked in as ``official_results.json`` (facts: names only); the compat test compares ours.

    python probe_results.py REST_URL USER_KEY
"""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any

import httpx


def _register(rest: str, ukey: str, name: str) -> tuple[str, str, str]:
    body = {"agent": {"name": name, "description": f"{name} agent"}}
    r = httpx.post(f"{rest}/api/v1/me/agents/register", json=body, headers={"X-API-Key": ukey})
    r.raise_for_status()
    d = r.json()["data"]
    return d["agent"]["id"], d["agent"]["handle"], d["credentials"]["api_key"]


def _room(rest: str, ukey: str, *agent_ids: str) -> str:
    h = {"X-API-Key": ukey}
    rid = httpx.post(f"{rest}/api/v1/me/chats", json={"chat": {}}, headers=h).json()["data"]["id"]
    for aid in agent_ids:
        body = {"participant": {"participant_id": aid}}
        httpx.post(f"{rest}/api/v1/me/chats/{rid}/participants", json=body, headers=h)
    return str(rid)


def describe(value: Any, depth: int = 0) -> Any:
    """The shape of a result: class, module and fields (recursively, two levels)."""
    if isinstance(value, dict):
        return {"type": "dict", "keys": sorted(value)}
    if isinstance(value, list):
        return {"type": "list", "item": describe(value[0], depth) if value else None}
    if isinstance(value, (str, int, float, bool)) or value is None:
        return {"type": type(value).__name__}
    fields = getattr(type(value), "model_fields", None) or getattr(
        type(value), "__struct_fields__", None
    )
    out: dict[str, Any] = {"type": type(value).__name__, "fields": sorted(fields or [])}
    if depth < 2:
        out["nested"] = {
            f: describe(getattr(value, f), depth + 1)
            for f in sorted(fields or [])
            if getattr(value, f) is not None
            and not isinstance(getattr(value, f), (str, int, float, bool))
        }
    return out


async def probe(rest_url: str, ukey: str) -> dict[str, Any]:
    """Call every direct tool method once in a fresh room; describe each result."""
    from band.runtime.tools import AgentTools

    try:
        from band.client.rest import AsyncRestClient

        def client(key: str) -> Any:
            return AsyncRestClient(api_key=key, base_url=rest_url)
    except ImportError:
        from band.client.rest import RestClient

        def client(key: str) -> Any:
            return RestClient(api_key=key, base_url=rest_url)

    aid, ahandle, key = _register(rest_url, ukey, "Prober")
    pid, phandle, pkey = _register(rest_url, ukey, "Peer")
    rid = _room(rest_url, ukey, aid)
    tools = AgentTools(rid, client(key), agent_id=aid)
    out: dict[str, Any] = {}

    async def rec(name: str, coro: Any) -> Any:
        try:
            value = await coro
        except Exception as exc:  # record the failure kind; the probe goes on
            out[name] = {"error": type(exc).__name__}
            return None
        out[name] = describe(value)
        return value

    people = await rec("get_participants", tools.get_participants())
    human = next(p for p in people if (getattr(p, "type", None) or p["type"]) == "User")
    handle = getattr(human, "handle", None) or human["handle"]
    await rec("send_message", tools.send_message("hello", mentions=[handle]))
    await rec("send_event", tools.send_event("thinking", "thought"))
    await rec("lookup_peers", tools.lookup_peers())
    own = await rec("create_chatroom", tools.create_chatroom())
    mine = AgentTools(own, client(key), agent_id=aid)
    await rec("add_participant", mine.add_participant(phandle))
    await rec("remove_participant", mine.remove_participant(phandle))
    await rec("fetch_room_context", tools.fetch_room_context(room_id=rid))
    await rec("list_contacts", tools.list_contacts())
    await rec("add_contact", tools.add_contact(phandle))
    await rec("list_contact_requests", tools.list_contact_requests())
    peer = AgentTools(rid, client(pkey), agent_id=pid)
    await rec("respond_contact_request", peer.respond_contact_request("approve", handle=ahandle))
    await rec("list_contacts_after", tools.list_contacts())
    await rec("remove_contact", tools.remove_contact(handle=phandle))
    mem = await rec(
        "store_memory",
        tools.store_memory("likes tea", "long_term", "semantic", "user", "noted", "agent"),
    )
    mid = getattr(mem, "id", None) or (mem or {}).get("id")
    await rec("list_memories", tools.list_memories())
    await rec("get_memory", tools.get_memory(mid))
    await rec("supersede_memory", tools.supersede_memory(mid))
    mem2 = await tools.store_memory("x", "long_term", "semantic", "user", "n", "agent")
    await rec("archive_memory", tools.archive_memory(getattr(mem2, "id", None) or mem2["id"]))
    task = await rec("create_task", tools.create_task("write the report", detail="d"))
    tid = getattr(task, "id", None) or (task or {}).get("id")
    await rec("list_tasks", tools.list_tasks())
    await rec("get_task", tools.get_task(tid))
    await rec("update_task", tools.update_task(tid, status="in_progress"))
    await rec("get_task_history", tools.get_task_history(tid))
    await rec("set_board", tools.set_board(goal_title="Ship it"))
    await rec("get_board", tools.get_board())
    await rec("no_reply", tools.no_reply("nothing to say"))
    return out


if __name__ == "__main__":
    print(json.dumps(asyncio.run(probe(sys.argv[1], sys.argv[2])), indent=1, sort_keys=True))
