"""The official band-sdk 6.0.1 room-file tools against the dev server (optional).

send_room_file uploads and posts a message with ``attachment_ids``; list_room_files and
read_room_file find it again through ``/context`` attachments and the download route. Our
tools, run on the same room afterwards, must answer exactly what the official ones answered.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
from pathlib import Path
from typing import Any

from bandtest.refsdk import REFSDK_PYTHON, requires_refsdk

from band.client.rest import RestClient
from band.runtime.tools import AgentTools, BandToolError

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
    blank = await tools.send_room_file("x", "b.txt", "   ", [os.environ["UID"]])
    listed = await tools.list_room_files()
    reads = {a["id"]: await tools.read_room_file(a["id"]) for a in listed["data"]}
    errors = []
    for call in (
        lambda: tools.read_room_file("0b5e1f5c-0000-4000-8000-000000000000"),
        lambda: tools.send_room_file("x", "r\\u00e9sum\\u00e9.txt", "c", [os.environ["UID"]]),
        lambda: tools.send_room_file("\\u00e9" * 500_001, "big.txt", "c", [os.environ["UID"]]),
    ):
        try:
            await call()
            errors.append(None)
        except Exception as exc:
            errors.append([type(exc).__name__, str(exc)])
    print(json.dumps({"sent": sent, "blank": blank, "listed": listed, "reads": reads,
                      "errors": errors}, default=str))

asyncio.run(main())
"""


def _upload(live: Live, key: str, rid: str, blob: bytes, name: str, ctype: str) -> str:
    headers = {"X-API-Key": key, "x-file-name": name, "content-type": ctype}
    r = live.client.put(
        f"{live.rest}/api/v1/agent/chats/{rid}/files", content=blob, headers=headers
    )
    assert r.status_code == 200, r.text
    return str(r.json()["data"]["id"])


async def _ours(live: Live, aid: str, key: str, rid: str, ids: list[str]) -> dict[str, Any]:
    async with RestClient(key, live.rest) as rest:
        tools = AgentTools(rid, rest, agent_id=aid)
        listed = await tools.list_room_files()
        reads = {i: await tools.read_room_file(i) for i in ids}
        errors: list[Any] = []
        for coro in (
            tools.read_room_file("0b5e1f5c-0000-4000-8000-000000000000"),
            tools.send_room_file("x", "résumé.txt", "c", [live_person(live)]),
            tools.send_room_file("é" * 500_001, "big.txt", "c", [live_person(live)]),
        ):
            try:
                await coro
                errors.append(None)
            except BandToolError as exc:
                errors.append(["BandToolError", str(exc)])
        return json.loads(
            json.dumps({"listed": listed, "reads": reads, "errors": errors}, default=str)
        )


def live_person(live: Live) -> str:
    return str(live.human("GET", "/api/v1/me/profile").json()["data"]["id"])


@requires_refsdk
def test_official_room_file_tools(live: Live, tmp_path: Path) -> None:
    aid, _, key = live.register("Filer")
    rid = room_with(live, aid)
    me = live.human("GET", "/api/v1/me/profile").json()["data"]
    # files the official tools did not send themselves: an image, a large text, a binary
    png = _upload(live, key, rid, b"\x89PNG\r\n\x1a\n" + bytes(range(30)), "dot.png", "image/png")
    big = _upload(live, key, rid, b"y" * 20_000, "big.txt", "text/plain")
    other = _upload(live, key, rid, b"\x00\x01", "a.bin", "application/zip")
    body = {"message": {"content": "files", "mentions": [{"id": me["id"]}],
                        "attachment_ids": [png, big, other]}}  # fmt: skip
    assert live.agent(key, "POST", f"/api/v1/agent/chats/{rid}/messages", json=body).is_success
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
    listed_ids = [a["id"] for a in out["listed"]["data"]]
    assert listed_ids == [png, big, other, fid, out["blank"]["attachment"]["id"]]
    assert out["reads"][fid]["name"] == "table.csv" and out["reads"][fid]["text"] == "a,b\n1,2\n"
    rows = live.human("GET", f"/api/v1/me/chats/{rid}/messages").json()["data"]
    [msg] = [m for m in rows if m["id"] == out["sent"]["message_id"]]
    assert [a["id"] for a in msg["attachments"]] == [fid] and "the table" in msg["content"]
    [blank] = [m for m in rows if m["id"] == out["blank"]["message_id"]]
    assert blank["content"].endswith("Shared a file: b.txt")
    assert out["errors"][0] == [
        "BandToolError",
        "File not found, or file transfer is unavailable in this room.",
    ]
    assert out["errors"][1][1].startswith("Filename 'résumé.txt' must use plain printable ASCII")

    # ours, on the same room: the same listing, the same reads, the same refusals
    ours = asyncio.run(_ours(live, aid, key, rid, listed_ids))
    assert ours["listed"] == out["listed"]
    assert ours["reads"] == out["reads"]
    assert ours["errors"] == out["errors"]
