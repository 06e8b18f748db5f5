"""band dev's requests reach their handlers through one layer (``band.serving.direct``): over
real HTTP its answers are those of Starlette's own stack (status, headers, error envelope)
for every kind of request, an exception a handler lets out is answered 500 and logged as
before, and a trusted proxy's forwarded headers still say who the client is."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import websockets
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from band.devserver.app import LIMITS, create_app
from band.devserver.thread import ServerThread
from band.serving.direct import DirectStarlette
from band.serving.responses import JSONBytes

#: bound on how long the platform may take to start (not a timing assertion)
START_S = 30.0


async def _boom(request: Request) -> Response:
    raise RuntimeError("boom in a handler")


async def _taken(request: Request) -> Response:
    raise HTTPException(409, "already taken")


async def _client(request: Request) -> Response:
    host = request.client.host if request.client else None
    return JSONResponse({"client": host, "scheme": request.url.scheme})


async def _echo(request: Request) -> Response:
    body = await request.body()
    return JSONResponse({"size": len(body), "again": len(await request.body())})


def _app(stack: str) -> Starlette:
    """band dev's app with a few routes of its own; ``stack`` 'starlette' serves it through
    Starlette's own middleware stack instead of the one layer."""
    app = create_app(":memory:")
    assert isinstance(app, DirectStarlette)
    app.router.routes += [
        Route("/test/boom", _boom),
        Route("/test/taken", _taken),
        Route("/test/client", _client),
        Route("/test/echo", _echo, methods=["POST"]),
    ]
    if stack == "starlette":
        app.middleware_stack = Starlette.build_middleware_stack(app)
    return app


def _served(app: Starlette) -> Iterator[ServerThread]:
    server = ServerThread(app)
    server.start()
    server.wait_ready(START_S)
    try:
        yield server
    finally:
        server.stop()


def _unnumbered(body: bytes) -> bytes:
    """An error envelope without its ``request_id`` (new for every request)."""
    if not body.startswith(b'{"error":'):
        return body
    envelope = json.loads(body)
    envelope["error"].pop("request_id", None)
    return json.dumps(envelope).encode()


def _answers(server: ServerThread, key: str) -> list[tuple[Any, ...]]:
    """Each request's status, headers (but the date) and body, ids and times left out."""
    big = b"x" * (LIMITS.max_body + 1)
    auth = {"X-API-Key": key}
    requests: list[tuple[str, str, dict[str, Any]]] = [
        ("GET", "/api/v1/me/chats", {"headers": auth}),
        ("HEAD", "/api/v1/me/chats", {"headers": auth}),
        ("GET", "/api/v1/me/chats?page=x", {"headers": auth}),
        ("GET", "/api/v1/me/chats", {}),
        ("POST", "/api/v1/me/chats", {"headers": auth, "content": b"{not json"}),
        ("POST", "/api/v1/me/chats", {"headers": auth, "json": [1]}),
        ("POST", "/api/v1/me/chats", {"headers": auth, "content": big}),
        ("GET", "/api/v1/nope", {"headers": auth}),
        ("PATCH", "/api/v1/me/profile", {"headers": auth}),
        ("GET", "/api/v1/me/chats/", {"headers": auth}),
        ("GET", "/test/boom", {}),
        ("GET", "/test/taken", {}),
        ("POST", "/test/echo", {"content": b"0123456789"}),
        ("POST", "/test/echo", {}),
        ("GET", "/openapi.json", {}),
    ]
    out: list[tuple[Any, ...]] = []
    for method, path, kw in requests:
        # one connection each: a refused body closes its connection
        with httpx.Client(base_url=server.rest_url, timeout=30, follow_redirects=False) as http:
            r = http.request(method, path, **kw)
        # the date and the port differ from one server to the other
        headers = sorted(
            (k, v.replace(server.rest_url, "REST")) for k, v in r.headers.items() if k != "date"
        )
        out.append((method, path, r.status_code, headers, _unnumbered(r.content)))
    with httpx.Client(base_url=server.rest_url, timeout=30) as http:
        made = http.post("/api/v1/me/chats", headers=auth, json={"chat": {"title": "t"}})
        listed = http.get("/api/v1/me/chats", headers=auth)
    out.append((made.status_code, sorted(made.json()["data"]), made.headers["content-type"]))
    out.append((listed.status_code, len(listed.json()["data"]), listed.json()["metadata"]))
    return out


def test_the_one_layer_answers_as_starlettes_stack(caplog: pytest.LogCaptureFixture) -> None:
    answers = {}
    for stack in ("direct", "starlette"):
        app = _app(stack)
        with caplog.at_level(logging.ERROR, logger="uvicorn.error"):
            caplog.clear()
            for server in _served(app):
                answers[stack] = _answers(server, app.state.user_key)
            # the handler's exception is answered 500 and still reaches the server's log
            logged = [r for r in caplog.records if r.exc_info and "boom" in str(r.exc_info[1])]
            assert len(logged) == 1, (stack, caplog.records)
        assert (type(app.middleware_stack).__name__ == "_Direct") is (stack == "direct")
    assert answers["direct"] == answers["starlette"]
    by_path: dict[tuple[str, str], tuple[Any, ...]] = {}
    for a in answers["direct"][:-2]:
        by_path.setdefault((a[0], a[1]), a)  # the first request of each method and path
    assert by_path[("GET", "/test/boom")][2] == 500
    assert json.loads(by_path[("GET", "/test/boom")][4])["error"]["code"] == "internal_error"
    assert json.loads(by_path[("GET", "/test/taken")][4]) == {
        "error": {"code": "error", "message": "already taken"}
    }
    statuses = [a[2] for a in answers["direct"][:-2]]
    assert statuses[:10] == [200, 200, 422, 401, 400, 422, 413, 404, 405, 307]
    assert ("connection", "close") in answers["direct"][6][3]  # the refused body is not read
    assert json.loads(by_path[("POST", "/test/echo")][4]) == {"size": 10, "again": 10}
    assert by_path[("PATCH", "/api/v1/me/profile")][2] == 405


def test_a_trusted_proxys_forwarded_headers_name_the_client() -> None:
    """uvicorn's proxy-headers rewrite, now called by the drain only for a request carrying
    one: a loopback peer is trusted by default, as before."""
    for server in _served(_app("direct")):
        with httpx.Client(base_url=server.rest_url, timeout=30) as http:
            plain = http.get("/test/client").json()
            forwarded = http.get(
                "/test/client",
                headers={"X-Forwarded-For": "203.0.113.7, 127.0.0.1", "X-Forwarded-Proto": "https"},
            ).json()
            proto_only = http.get("/test/client", headers={"X-Forwarded-Proto": "https"}).json()
    assert plain == {"client": "127.0.0.1", "scheme": "http"}
    assert forwarded == {"client": "203.0.113.7", "scheme": "https"}
    assert proto_only == {"client": "127.0.0.1", "scheme": "https"}


def test_a_socket_is_served_through_the_one_layer_as_before() -> None:
    """A WebSocket reaches its endpoint through the layer too: a heartbeat is answered and a
    wrong key refused, as through Starlette's stack."""
    seen = {}
    for stack in ("direct", "starlette"):
        app = _app(stack)
        for server in _served(app):
            url = server.ws_url + "?vsn=2.0.0"

            async def talk(url: str = url, key: str = app.state.user_key) -> tuple[Any, ...]:
                async with websockets.connect(url, additional_headers={"x-api-key": key}) as ws:
                    await ws.send(json.dumps([None, "1", "phoenix", "heartbeat", {}]))
                    reply = json.loads(await asyncio.wait_for(ws.recv(), START_S))
                with pytest.raises(websockets.exceptions.InvalidStatus) as info:
                    async with websockets.connect(
                        url, additional_headers={"x-api-key": "band_u_x"}
                    ):
                        pass
                refused = info.value.response
                return reply, refused.status_code, _unnumbered(bytes(refused.body))

            seen[stack] = asyncio.run(talk())
    assert seen["direct"] == seen["starlette"]
    reply, status, body = seen["direct"]
    assert reply == [None, "1", "phoenix", "phx_reply", {"status": "ok", "response": {}}]
    assert status == 401 and json.loads(body)["error"]["code"] == "unauthorized"


@pytest.mark.parametrize("status", [100, 200, 201, 204, 304, 404, 422, 500])
@pytest.mark.parametrize("body", [b"", b"{}", b'{"data":[1,2,3]}' * 100])
def test_a_json_answer_has_starlettes_headers(status: int, body: bytes) -> None:
    """``JSONBytes`` (every ``data`` envelope) is ``Response(..., media_type=json)``: the same
    headers, in the same order, for every status."""
    plain = Response(body, status_code=status, media_type="application/json")
    fast = JSONBytes(body, status)
    assert fast.raw_headers == plain.raw_headers
    assert (fast.body, fast.status_code, fast.background) == (plain.body, status, None)
    assert fast.headers == plain.headers


class _Tagged:
    """A middleware the one layer cannot fold in: it adds a header to every response."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        async def tagged(message: Any) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), (b"x-tagged", b"1")]
            await send(message)

        await self.app(scope, receive, tagged if scope["type"] == "http" else send)


@pytest.mark.parametrize("change", ["debug", "middleware"])
def test_an_app_the_layer_cannot_serve_takes_starlettes_stack(change: str) -> None:
    """In debug mode, or with a middleware of its own, the app is served by Starlette's stack
    (the layer would skip what it does), over HTTP as before."""
    app = _app("direct")
    if change == "debug":
        app.debug = True
    else:
        app.add_middleware(_Tagged)
    for server in _served(app):
        with httpx.Client(base_url=server.rest_url, timeout=30) as http:
            listed = http.get("/api/v1/me/chats", headers={"X-API-Key": app.state.user_key})
            missing = http.get("/api/v1/nope")
    assert type(app.middleware_stack).__name__ != "_Direct"
    assert listed.status_code == 200 and missing.status_code == 404
    assert (listed.headers.get("x-tagged") == "1") is (change == "middleware")
