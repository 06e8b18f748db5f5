"""Support for the hostile-input tests of ``band dev``: a platform with real ids in it, the
error records its log gets, a request counter, and the error-envelope check."""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx
from bandtest.platform import Live, live_platform, room_with

#: requests sent by the hostile-input tests, by kind (printed in the terminal summary)
COUNTS: Counter[str] = Counter()
#: where band dev and uvicorn report an unhandled exception
SERVER_LOGGERS = ("band", "uvicorn.error", "uvicorn.asgi")


class ErrorRecords(logging.Handler):
    """Collects every ERROR (or worse) record, e.g. a handler's traceback."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        """Keep the record."""
        self.records.append(record)

    def text(self) -> str:
        """The records as the log would show them, tracebacks included."""
        fmt = logging.Formatter("%(name)s %(levelname)s %(message)s")
        return "\n".join(fmt.format(r) for r in self.records)


@dataclass
class Target:
    """A live platform with one of each thing a path can name, and its error log."""

    live: Live
    agent_key: str
    ids: dict[str, str]
    log: ErrorRecords
    statuses: Counter[int] = field(default_factory=Counter)

    def send(self, method: str, path: str, kind: str, **kw: Any) -> httpx.Response:
        """Send one request with the key its path needs; count it."""
        key = self.agent_key if path.startswith("/api/v1/agent") else self.live.user_key
        headers = {"X-API-Key": key, **kw.pop("headers", {})}
        r = self.live.client.request(method, self.live.rest + path, headers=headers, **kw)
        COUNTS[kind] += 1
        self.statuses[r.status_code] += 1
        return r


def hostile_target() -> Iterator[Target]:
    """Start a platform with an agent, a second agent, a room, a message, a task, a memory,
    a contact request and a bulk job in it; capture the server loggers' error records."""
    handler = ErrorRecords()
    loggers = [logging.getLogger(n) for n in SERVER_LOGGERS]
    for lg in loggers:
        lg.addHandler(handler)
    try:
        for live in live_platform():
            aid, ahandle, key = live.register("Fuzzed")
            bid, bhandle, _ = live.register("Other")
            rid = room_with(live, aid)
            body = {"message": {"content": "hello", "mentions": [{"id": aid}]}}
            r = live.human("POST", f"/api/v1/me/chats/{rid}/messages", json=body)
            mid = r.json()["data"]["id"]
            tasks = f"/api/v1/agent/chats/{rid}/tasks"
            task = live.agent(key, "POST", tasks, json={"subject": "t"})
            memory = {"content": "m", "system": "long_term", "type": "semantic",
                      "segment": "user", "thought": ""}  # fmt: skip
            mem = live.agent(key, "POST", "/api/v1/agent/memories", json={"memory": memory})
            req = live.human("POST", "/api/v1/me/contacts/requests",
                             json={"contact_request": {"recipient_handle": bhandle}})  # fmt: skip
            job = live.human("POST", "/api/v1/me/chats/bulk-delete", json={"ids": ["none"]})
            ids = {
                "chat_id": rid,
                "message_id": mid,
                "agent_id": aid,
                "pid": bid,
                "task_id": task.json()["data"]["id"],
                "memory_id": mem.json()["data"]["id"],
                "request_id": req.json()["data"]["id"],
                "job_id": job.json()["data"]["id"],
                "file_id": "none",
                "other_agent": bid,
                "agent_handle": ahandle,
            }
            yield Target(live, key, ids, handler)
    finally:
        for lg in loggers:
            lg.removeHandler(handler)


def assert_envelope(r: httpx.Response, *, error: bool = False) -> None:
    """No 5xx; an error answer (required when ``error``) is Band's envelope."""
    where = f"{r.request.method} {r.request.url.path}"
    assert r.status_code < 500, f"{where}: {r.status_code} {r.text[:300]}"
    if error:
        assert 400 <= r.status_code < 500, f"{where}: {r.status_code} {r.text[:300]}"
    if r.status_code >= 400 and r.status_code != 405:
        err = r.json().get("error")
        assert isinstance(err, dict), r.text[:300]
        assert isinstance(err.get("code"), str) and err["code"], r.text[:300]
        assert isinstance(err.get("message"), str) and err["message"], r.text[:300]
        assert err.get("request_id"), r.text[:300]
