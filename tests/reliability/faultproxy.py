"""A loopback HTTP proxy in front of the real platform that injects faults into chosen requests.

Only REST goes through it (the agent's ``rest_url``); the socket talks to the platform directly.
A rule matches a request by method and a path regex and, for its next ``times`` matches,
answers a 5xx itself, delays the request before forwarding it, holds it past the client's
timeout, or forwards it and then holds the answer (the write is applied, its answer is lost to
a client that timed out). Every other request is forwarded untouched.
"""

from __future__ import annotations

import asyncio
import re
import socket
import threading
import time
from dataclasses import dataclass, field
from typing import Any

import httpx
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

HOP_HEADERS = {"host", "content-length", "connection", "transfer-encoding", "keep-alive"}


@dataclass
class Rule:
    """A fault for the next ``times`` requests matching ``method`` and ``pattern``."""

    method: str
    pattern: str
    status: int | None = None  # answer this status instead of forwarding
    delay: float = 0.0  # seconds before forwarding (or before answering ``status``)
    forward_after_status: bool = False  # the platform still gets the request (a lost response)
    hold: float = 0.0  # seconds the platform's answer is held after forwarding (a lost answer)
    times: int = 1
    hits: int = 0

    def matches(self, method: str, path: str) -> bool:
        return self.hits < self.times and method == self.method and re.search(self.pattern, path)


@dataclass
class FaultProxy:
    """The proxy; ``rules`` may be changed while it runs."""

    upstream: str
    rules: list[Rule] = field(default_factory=list)
    seen: list[tuple[str, str, int]] = field(default_factory=list)  # method, path, status
    url: str = ""

    def __post_init__(self) -> None:
        self._client = httpx.AsyncClient(base_url=self.upstream, timeout=30)
        app = Starlette(routes=[Route("/{p:path}", self._handle, methods=_METHODS)])
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{sock.getsockname()[1]}"
        self._sock = sock
        config = uvicorn.Config(app, log_level="warning", lifespan="off")
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": [sock]}, daemon=True
        )

    def start(self) -> FaultProxy:
        self._thread.start()
        deadline = time.monotonic() + 10
        while not self._server.started:
            assert time.monotonic() < deadline, "proxy did not start"
            time.sleep(0.01)
        return self

    def close(self) -> None:
        self._server.should_exit = True
        self._thread.join(10)
        self._sock.close()

    def add(self, rule: Rule) -> Rule:
        self.rules.append(rule)
        return rule

    def count(self, method: str, pattern: str, status: int | None = None) -> int:
        """How many requests matching ``method``/``pattern`` (answered ``status``) went by."""
        return sum(
            1
            for m, p, s in self.seen
            if m == method and re.search(pattern, p) and (status is None or s == status)
        )

    async def _handle(self, request: Request) -> Response:
        path = request.url.path
        rule = next((r for r in self.rules if r.matches(request.method, path)), None)
        body = await request.body()
        if rule is not None:
            rule.hits += 1
            if rule.delay:
                await asyncio.sleep(rule.delay)
            if rule.status is not None:
                if rule.forward_after_status:
                    await self._forward(request, body)
                self.seen.append((request.method, path, rule.status))
                err = {"code": "injected_fault", "message": "injected by the test proxy"}
                return JSONResponse({"error": {**err, "request_id": "proxy"}}, rule.status)
        resp = await self._forward(request, body)
        self.seen.append((request.method, path, resp.status_code))
        if rule is not None and rule.hold:
            await asyncio.sleep(rule.hold)  # applied upstream; the client gives up meanwhile
        headers = {k: v for k, v in resp.headers.items() if k.lower() not in HOP_HEADERS}
        headers.pop("content-encoding", None)
        return Response(resp.content, resp.status_code, headers=headers)

    async def _forward(self, request: Request, body: bytes) -> httpx.Response:
        headers = {k: v for k, v in request.headers.items() if k.lower() not in HOP_HEADERS}
        return await self._client.request(
            request.method,
            request.url.path,
            params=list(request.query_params.multi_items()),
            headers=headers,
            content=body,
        )


_METHODS: Any = ["GET", "POST", "PUT", "PATCH", "DELETE"]
