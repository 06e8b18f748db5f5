"""The official band-sdk 6.0.1 room-file tools against the dev server (optional).

send_room_file uploads and posts a message with ``attachment_ids``; list_room_files and
read_room_file find it again through ``/context`` attachments and the download route.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from bandtest.refsdk import REFSDK_PYTHON, requires_refsdk

from .conftest import Live, room_with

FILES = """
import asyncio, json, os
from band_rest import AsyncRestClient
from band.runtime.tools.agent import AgentTools

async def main():
    rest = AsyncRestClient(api_key=os.environ["AKEY"], base_url=os.environ["BAND_REST_URL"])
    people = [{"id": os.environ["UID"], "name": "Local Person", "handle": os.environ["UHANDLE"],
               "type": "User"}]
    tools = AgentTools(os.environ["RID"], rest, people, agent_id=os.environ["AID"])
    sent = await tools.send_room_file("a,b\\n1,2\\n", "table.csv", "the table", [os.environ["UID"]])
    listed = await tools.list_room_files()
    read = await tools.read_room_file(listed["data"][0]["id"])
    print(json.dumps({"sent": sent, "listed": listed, "read": read}, default=str))

asyncio.run(main())
"""


@requires_refsdk
def test_official_room_file_tools(live: Live, tmp_path: Path) -> None:
    aid, _, key = live.register("Filer")
    rid = room_with(live, aid)
    me = live.human("GET", "/api/v1/me/profile").json()["data"]
    script = tmp_path / "files.py"
    script.write_text(FILES)
    env = {**os.environ, "AID": aid, "AKEY": key, "RID": rid, "UID": me["id"],
           "UHANDLE": me["handle"], "BAND_REST_URL": live.rest}  # fmt: skip
    env.pop("PYTHONPATH", None)
    done = subprocess.run(
        [str(REFSDK_PYTHON), str(script)], env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    fid = out["sent"]["attachment"]["id"]
    assert [a["id"] for a in out["listed"]["data"]] == [fid]
    assert out["read"]["name"] == "table.csv" and out["read"]["text"] == "a,b\n1,2\n"
    rows = live.human("GET", f"/api/v1/me/chats/{rid}/messages").json()["data"]
    [msg] = [m for m in rows if m["id"] == out["sent"]["message_id"]]
    assert [a["id"] for a in msg["attachments"]] == [fid] and "the table" in msg["content"]
