"""A loopback HTTP proxy in front of the real platform that injects faults into chosen requests.

Only REST goes through it (the agent's ``rest_url``); the socket talks to the platform directly.
A rule matches a request by method and a path regex and, for its next ``times`` matches,
answers a 5xx itself, delays the request before forwarding it, holds it past the client's
timeout, or forwards it and then holds the answer (the write is applied, its answer is lost to
a client that timed out). Every other request is forwarded untouched.

``Chaos`` is the seeded, random mode: each request of the chosen classes (``CLASSES``: next,
processing, reply, processed, failed, events) is faulted with probability ``p`` by one of the
chosen ``FAULTS``; ``Kill`` calls back (to SIGKILL the agent) at the points where exactly-once
is decided: before the reply POST, after it, before or after the processed mark.
"""

from __future__ import annotations

import asyncio
import random
import re
import socket
import threading
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx
import uvicorn
from bandtest.platform import wait_started
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

HOP_HEADERS = {"host", "content-length", "connection", "transfer-encoding", "keep-alive"}

#: The request classes of the delivery lifecycle: method and path pattern.
CLASSES: dict[str, tuple[str, str]] = {
    "next": ("GET", r"/agent/chats/[^/]+/messages/next$"),
    "processing": ("POST", r"/messages/[^/]+/processing$"),
    "reply": ("POST", r"/agent/chats/[^/]+/messages$"),
    "processed": ("POST", r"/messages/[^/]+/processed$"),
    "failed": ("POST", r"/messages/[^/]+/failed$"),
    "events": ("POST", r"/agent/chats/[^/]+/events$"),
}
#: Faults: ``lost`` forwards and then drops the connection mid-answer (applied, answer lost);
#: ``reset`` drops it without forwarding; ``<status>`` answers that status without forwarding
#: (``<status>+ra``: with ``Retry-After: 1``); ``delay`` waits ``Chaos.delay`` s, then forwards.
FAULTS = ("lost", "reset", "502", "503", "504", "429", "429+ra", "503+ra", "delay")
#: Where an agent may be killed: before/after the reply POST, before/after the processed mark.
KILL_POINTS = ("before-reply", "after-reply", "before-processed", "after-processed")


def request_class(method: str, path: str) -> str | None:
    """The lifecycle class of a request (None for every other call)."""
    for name, (m, pattern) in CLASSES.items():
        if m == method and re.search(pattern, path):
            return name
    return None


@dataclass
class Chaos:
    """Seeded random faults: each request of ``classes`` gets one of ``faults`` with
    probability ``p``; ``injected`` counts them by (class, fault)."""

    seed: int
    classes: tuple[str, ...] = tuple(CLASSES)
    faults: tuple[str, ...] = FAULTS
    p: float = 0.2
    delay: tuple[float, float] = (1.0, 10.0)
    injected: Counter[tuple[str, str]] = field(default_factory=Counter)

    def __post_init__(self) -> None:
        self._rng = random.Random(self.seed)

    def pick(self, klass: str | None) -> tuple[str | None, float]:
        """The fault for one request of ``klass`` (None: none) and its delay."""
        if klass not in self.classes or self._rng.random() >= self.p:
            return None, 0.0
        fault = self._rng.choice(self.faults)
        self.injected[(klass, fault)] += 1
        return fault, self._rng.uniform(*self.delay) if fault == "delay" else 0.0


@dataclass
class Kill:
    """Call ``kill`` at ``point`` for the ``every``-th matching request, at most ``times``."""

    point: str
    kill: Callable[[], None]
    every: int = 2
    times: int = 4
    seen: int = 0
    kills: int = 0

    def due(self, klass: str | None, forwarded: bool) -> bool:
        """Whether this request (``forwarded`` yet or not) is where the agent dies."""
        when, _, what = self.point.partition("-")  # before|after, reply|processed
        if klass != what or (when == "after") != forwarded or self.kills >= self.times:
            return False
        self.seen += 1
        if self.seen % self.every:
            return False
        self.kills += 1
        return True


class _Dropped(Response):
    """Starts an answer, then drops the connection: the client gets no complete response."""

    def __init__(self) -> None:
        super().__init__(b"")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        head = [(b"content-type", b"application/json"), (b"content-length", b"64")]
        await send({"type": "http.response.start", "status": 200, "headers": head})
        raise ConnectionAbortedError("dropped by the fault proxy")


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
    chaos: Chaos | None = None
    kill: Kill | None = None

    def __post_init__(self) -> None:
        self._client = httpx.AsyncClient(base_url=self.upstream, timeout=30)
        app = Starlette(routes=[Route("/{p:path}", self._handle, methods=_METHODS)])
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{sock.getsockname()[1]}"
        self._sock = sock
        # "critical": a dropped connection (a fault it injects) is no error worth a traceback
        config = uvicorn.Config(app, log_level="critical", lifespan="off")
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": [sock]}, daemon=True
        )

    def start(self) -> FaultProxy:
        self._thread.start()
        wait_started(self._server, "proxy")
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
        klass = request_class(request.method, path)
        if rule is None and self.kill is not None:
            if self.kill.due(klass, forwarded=False):
                self.kill.kill()
                return _Dropped()
        if rule is None and self.chaos is not None:
            fault, delay = self.chaos.pick(klass)
            if fault is not None:
                return await self._inject(request, body, fault, delay)
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
        if rule is None and self.kill is not None and self.kill.due(klass, forwarded=True):
            self.kill.kill()
            return _Dropped()
        if rule is not None and rule.hold:
            await asyncio.sleep(rule.hold)  # applied upstream; the client gives up meanwhile
        headers = {k: v for k, v in resp.headers.items() if k.lower() not in HOP_HEADERS}
        headers.pop("content-encoding", None)
        return Response(resp.content, resp.status_code, headers=headers)

    async def _inject(self, request: Request, body: bytes, fault: str, delay: float) -> Response:
        """Apply one chaos ``fault`` to the request."""
        path = request.url.path
        if fault == "delay":
            await asyncio.sleep(delay)
            return await self._relay(request, body)
        if fault in ("lost", "reset"):
            if fault == "lost":
                await self._forward(request, body)
            self.seen.append((request.method, path, 0))
            return _Dropped()
        status = int(fault.partition("+")[0])
        self.seen.append((request.method, path, status))
        err = {"code": "injected_fault", "message": "injected by the test proxy"}
        headers = {"Retry-After": "1"} if fault.endswith("+ra") else None
        return JSONResponse({"error": {**err, "request_id": "proxy"}}, status, headers=headers)

    async def _relay(self, request: Request, body: bytes) -> Response:
        """Forward the request and hand its answer back."""
        resp = await self._forward(request, body)
        self.seen.append((request.method, request.url.path, resp.status_code))
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
