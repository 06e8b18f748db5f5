"""The official band-sdk 6.0.1 pages room context and messages by ``page`` on band dev."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from bandtest.platform import Live
from bandtest.refsdk import REFSDK_PYTHON, requires_refsdk

SCRIPT = """
import asyncio, json, os
from band.client.rest import AsyncRestClient
from band.runtime.tools import AgentTools

async def main():
    rest = AsyncRestClient(api_key=os.environ["AKEY"], base_url=os.environ["REST"])
    tools = AgentTools(os.environ["OTHER"], rest, agent_id=os.environ["AID"])
    pages = []
    for page in (1, 2, 3):
        got = await tools.fetch_room_context(room_id=os.environ["ROOM"], page=page, page_size=2)
        pages.append({"texts": [m["content"].split()[-1] for m in got["data"]],
                      "meta": got["meta"]})
    msgs = await rest.agent_api_messages.list_agent_messages(
        chat_id=os.environ["ROOM"], status="all", page=2, page_size=2
    )
    pages.append({"texts": [m.content.split()[-1] for m in msgs.data],
                  "meta": msgs.metadata.model_dump()})
    print(json.dumps(pages))

asyncio.run(main())
"""


@requires_refsdk
def test_official_sdk_pages_context_and_messages(live: Live, tmp_path: Path) -> None:
    aid, _, key = live.register("Pager")
    rooms = []
    for _ in range(2):
        rid = live.human("POST", "/api/v1/me/chats", json={"chat": {}}).json()["data"]["id"]
        body = {"participant": {"participant_id": aid}}
        live.human("POST", f"/api/v1/me/chats/{rid}/participants", json=body)
        rooms.append(rid)
    for n in range(5):
        msg = {"message": {"content": f"m{n}", "mentions": [{"id": aid}]}}
        live.human("POST", f"/api/v1/me/chats/{rooms[0]}/messages", json=msg)
    script = tmp_path / "pager.py"
    script.write_text(SCRIPT)
    env = {**os.environ, "AID": aid, "AKEY": key, "REST": live.rest}
    env.update(ROOM=rooms[0], OTHER=rooms[1])
    env.pop("PYTHONPATH", None)
    out = subprocess.run(
        [str(REFSDK_PYTHON), str(script)], env=env, capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 0, out.stderr[-3000:]
    p1, p2, p3, messages = json.loads(out.stdout)
    assert [p1["texts"], p2["texts"], p3["texts"]] == [["m0", "m1"], ["m2", "m3"], ["m4"]]
    assert p2["meta"]["page"] == 2 and p2["meta"]["page_size"] == 2
    assert p2["meta"]["total_count"] == 5 and p2["meta"]["total_pages"] == 3
    assert [p1["meta"]["has_more"], p3["meta"]["has_more"]] == [True, False]
    assert messages["texts"] == ["m2", "m3"]
    assert (messages["meta"]["page"], messages["meta"]["total_count"]) == (2, 5)
