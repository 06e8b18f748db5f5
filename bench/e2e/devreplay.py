"""The 4 requests of an answered message sent straight into band dev's ASGI app, in process.

The person's message mentioning an agent, the agent's processing mark, its reply mentioning
the person, its processed mark: no server, no socket, no client library, so what is measured
is the app alone (routing, authorization, the contract, the handlers, the SQLite store, on a
WAL database in /dev/shm as the e2e bench's). Under whichever band this interpreter imports, so
another commit's venv (``commits.python_at``) replays its own app:

    python bench/e2e/devreplay.py 1000            # CPU ms per answered message
    python bench/e2e/devreplay.py 1 --sql         # the SQL statements of one answered message
    # user-space instructions per answered message (deterministic under load): the difference
    # of two runs, divided by 200
    valgrind --tool=callgrind --callgrind-out-file=/dev/null python bench/e2e/devreplay.py 20
    valgrind --tool=callgrind --callgrind-out-file=/dev/null python bench/e2e/devreplay.py 220
    # system calls per answered message: the same difference with strace -f -c
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
import time
from pathlib import Path
from typing import Any

from band.devserver.app import create_app

#: answered messages replayed before the measured ones (caches filled, tables not empty)
WARM = 20


class Replay:
    """A person, one of their agents and a room with both, on a fresh app."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.user_key: str = app.state.user_key
        self.agent_id = self.agent_key = self.person_id = self.room = ""

    async def call(self, method: str, path: str, key: str, body: Any = None) -> tuple[int, Any]:
        """One request as an HTTP/1.1 client's (status, decoded JSON body or None)."""
        raw = json.dumps(body).encode() if body is not None else b""
        headers = [(b"host", b"127.0.0.1"), (b"x-api-key", key.encode())]
        if body is not None:
            headers += [(b"content-type", b"application/json"),
                        (b"content-length", str(len(raw)).encode())]  # fmt: skip
        scope = {
            "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1",
            "method": method, "scheme": "http", "path": path, "raw_path": path.encode(),
            "query_string": b"", "root_path": "", "headers": headers, "state": {},
            "client": ("127.0.0.1", 50000), "server": ("127.0.0.1", 8000),
        }  # fmt: skip
        received = False

        async def receive() -> dict[str, Any]:
            nonlocal received
            if received:  # the client never disconnects while the app answers
                await asyncio.Event().wait()
            received = True
            return {"type": "http.request", "body": raw, "more_body": False}

        sent: list[dict[str, Any]] = []

        async def send(message: dict[str, Any]) -> None:
            sent.append(message)

        await self.app(scope, receive, send)
        answer = b"".join(m.get("body", b"") for m in sent[1:])
        return sent[0]["status"], json.loads(answer) if answer else None

    async def setup(self) -> None:
        """Register the agent and make the room."""
        body = {"agent": {"name": "echo", "description": "replayed"}}
        _, made = await self.call("POST", "/api/v1/me/agents/register", self.user_key, body)
        self.agent_id = made["data"]["agent"]["id"]
        self.agent_key = made["data"]["credentials"]["api_key"]
        _, me = await self.call("GET", "/api/v1/me/profile", self.user_key)
        self.person_id = me["data"]["id"]
        _, room = await self.call("POST", "/api/v1/me/chats", self.user_key, {"chat": {}})
        self.room = room["data"]["id"]
        body = {"participant": {"participant_id": self.agent_id}}
        path = f"/api/v1/me/chats/{self.room}/participants"
        status, _ = await self.call("POST", path, self.user_key, body)
        assert status == 201, status

    async def answered(self, n: int) -> None:
        """The 4 requests of answered message ``n``."""
        chat, agent = f"/api/v1/me/chats/{self.room}", f"/api/v1/agent/chats/{self.room}"
        asked = {"message": {"content": f"m{n} ping", "mentions": [{"id": self.agent_id}]}}
        status, sent = await self.call("POST", chat + "/messages", self.user_key, asked)
        assert status == 201, (status, sent)
        mark = f"{agent}/messages/{sent['data']['id']}"
        reply = {"message": {"content": f"echo: m{n}", "mentions": [{"id": self.person_id}]}}
        for path, body, want in (
            (mark + "/processing", None, 200),
            (agent + "/messages", reply, 201),
            (mark + "/processed", None, 200),
        ):
            status, answer = await self.call("POST", path, self.agent_key, body)
            assert status == want, (path, status, answer)


async def main(messages: int, sql: bool) -> None:
    """Replay ``messages`` answered messages after ``WARM``; print what was measured."""
    with tempfile.TemporaryDirectory(dir="/dev/shm") as home:
        replay = Replay(create_app(Path(home) / "dev.sqlite3"))
        await replay.setup()
        for n in range(WARM):
            await replay.answered(n)
        statements: list[str] = []
        db = replay.app.state.directory.store.db
        if sql:
            db.set_trace_callback(statements.append)
        started = time.process_time()
        for n in range(WARM, WARM + messages):
            await replay.answered(n)
        spent = time.process_time() - started
        db.set_trace_callback(None)
        for statement in statements:
            print(" ", statement[:120])
        if sql:
            print(f"SQL statements per answered message: {len(statements) / messages:.1f}")
        print(f"CPU per answered message: {spent * 1000 / messages:.3f} ms ({messages} messages)")


if __name__ == "__main__":
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("messages", type=int, nargs="?", default=1000, help="answered messages")
    p.add_argument("--sql", action="store_true", help="print each SQL statement and count them")
    args = p.parse_args()
    asyncio.run(main(args.messages, args.sql))
