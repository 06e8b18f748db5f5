"""band dev's router tries only the routes a path could match (``band.serving.routing``), and
picks the route Starlette's linear scan picks, for every route and for paths none serves (their
404 and 405 answers over HTTP: ``test_rest.test_unknown_route_and_bad_bodies``)."""

from __future__ import annotations

import re
from typing import Any

from starlette.responses import Response
from starlette.routing import BaseRoute, Match, Route

from band.devserver.app import create_app
from band.serving.routing import IndexedRouter

METHODS = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE")


def _scope(kind: str, method: str, path: str) -> dict[str, Any]:
    return {"type": kind, "method": method, "path": path, "root_path": "", "headers": []}


def _first(routes: list[BaseRoute], scope: dict[str, Any]) -> tuple[str, BaseRoute | None]:
    """What Starlette's ``Router`` scan settles on: the first full match, else the first
    partial one (a 405), else none (a 404 or a redirect)."""
    partial = None
    for route in routes:
        match, _ = route.matches(scope)
        if match is Match.FULL:
            return "full", route
        if match is Match.PARTIAL and partial is None:
            partial = route
    return ("partial", partial) if partial is not None else ("none", None)


def _paths(router: IndexedRouter) -> list[str]:
    """Each route's path with its parameters filled, and near misses of each."""
    out = ["/", "/nope", "/static/app.js", "/static", "/api/v1/socket/websocket", "//"]
    for route in router.routes:
        path = getattr(route, "path", None)
        if not path:
            continue
        filled = re.sub(r"{[^}]+}", "x1", path)
        out += [filled, filled + "/", filled + "/extra", filled.rsplit("/", 1)[0] + "/other"]
    return out


def test_the_indexed_router_picks_what_the_linear_scan_picks() -> None:
    router = create_app(":memory:").router
    assert isinstance(router, IndexedRouter)
    checked = 0
    for path in _paths(router):
        for kind, methods in (("http", METHODS), ("websocket", ("GET",))):
            for method in methods:
                scope = _scope(kind, method, path)
                found, route = _first(router.routes, scope)
                # the candidates hold every route the path can match, in declaration order
                assert _first(router.candidates(path), scope) == (found, route), (method, path)
                checked += found == "full"
    assert checked > 100  # every declared route was reached


def test_a_route_added_later_is_indexed() -> None:
    app = create_app(":memory:")

    async def extra(request: Any) -> Response:
        return Response()

    app.router.routes.append(Route("/api/v1/me/extra/{thing_id}", extra, methods=["PUT"]))
    router = app.router
    assert isinstance(router, IndexedRouter)
    scope = _scope("http", "PUT", "/api/v1/me/extra/x1")
    found, route = _first(router.candidates("/api/v1/me/extra/x1"), scope)
    assert found == "full" and route is router.routes[-1]


def test_under_a_root_path_the_same_route_answers() -> None:
    """Served below a prefix (``root_path``, as behind a proxy), a request reaches the route
    the path below the prefix names: the same answer as without the prefix, over ASGI."""
    from starlette.testclient import TestClient

    app = create_app(":memory:")
    key = app.state.user_key
    with TestClient(app) as plain, TestClient(app, root_path="/band") as prefixed:
        direct = plain.get("/api/v1/me/chats", headers={"X-API-Key": key})
        below = prefixed.get("/band/api/v1/me/chats", headers={"X-API-Key": key})
        assert direct.status_code == below.status_code == 200
        assert below.json() == direct.json()
        assert prefixed.get("/band/api/v1/nope", headers={"X-API-Key": key}).status_code == 404


def test_the_route_path_is_the_path_below_the_root_path() -> None:
    """What the candidates are picked by: the path below ``root_path``, as Starlette's routes
    match it (a prefix that is not a whole segment is not cut)."""
    from band.serving.routing import _route_path

    cases = {
        ("/band/api/v1/me/chats", "/band"): "/api/v1/me/chats",
        ("/band", "/band"): "",
        ("/bandx/api", "/band"): "/bandx/api",
        ("/api/v1/me/chats", ""): "/api/v1/me/chats",
        ("/other/api", "/band"): "/other/api",
    }
    for (path, root), below in cases.items():
        assert _route_path({"type": "http", "path": path, "root_path": root}) == below
