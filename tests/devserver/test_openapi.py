"""GET /openapi.json lists exactly the REST routes the app serves."""

from __future__ import annotations

import re

import pytest
from starlette.routing import Mount, Route

from band.devserver.app import create_app
from band.devserver.contract.openapi import build

from .conftest import Live


def _served(routes: list, prefix: str = "") -> set[tuple[str, str]]:
    out: set[tuple[str, str]] = set()
    for r in routes:
        if isinstance(r, Mount):
            out |= _served(list(r.routes), prefix + r.path)
        elif isinstance(r, Route):
            out |= {(prefix + r.path, m.lower()) for m in r.methods or () if m != "HEAD"}
    return out


def _documented(doc: dict) -> set[tuple[str, str]]:
    return {(p, m) for p, ops in doc["paths"].items() for m in ops}


def test_openapi_matches_routes(live: Live) -> None:
    r = live.client.get(live.rest + "/openapi.json")
    assert r.status_code == 200 and r.headers["content-type"].startswith("application/json")
    doc = r.json()
    assert doc["openapi"].startswith("3.1") and doc["info"]["title"]
    served = _served(list(live.app.routes))
    assert served and _documented(doc) == served
    assert "/api/v1/socket/websocket" in doc["x-websockets"]
    for path, ops in doc["paths"].items():
        params = re.findall(r"{(\w+)}", path)
        for method, op in ops.items():
            assert op["summary"] and op["operationId"]
            assert [p["name"] for p in op["parameters"] if p["in"] == "path"] == params
            if path.startswith(("/api/v1/agent", "/api/v1/me")):
                assert op["security"], (method, path)
            # really served: the router neither misses the path (404 "Not Found") nor the method
            url = live.rest + re.sub(r"{\w+}", "x", path)
            resp = live.client.request(method.upper(), url)
            assert resp.status_code != 405, (method, path)
            if resp.status_code == 404:
                assert resp.json()["error"]["message"] != "Not Found", (method, path)
            if path.startswith(("/api/v1/agent", "/api/v1/me")):
                assert resp.status_code == 401, (method, path, resp.status_code)  # auth first
    ids = [op["operationId"] for ops in doc["paths"].values() for op in ops.values()]
    assert len(ids) == len(set(ids))


def test_openapi_core_entries() -> None:
    doc = build(list(create_app(":memory:").routes))
    paths = doc["paths"]
    assert {"get", "post"} <= set(paths["/api/v1/agent/chats/{chat_id}/messages"])
    assert paths["/api/v1/agent/me"]["get"]["security"] == [{"AgentKey": []}]
    assert paths["/api/v1/me/chats"]["post"]["security"] == [{"UserKey": []}]
    assert "requestBody" in paths["/api/v1/me/chats"]["post"]
    assert "/openapi.json" in paths


def test_openapi_sees_added_routes() -> None:
    app = create_app(":memory:")

    async def extra(request):  # type: ignore[no-untyped-def]
        """Extra route."""

    app.router.routes.append(Route("/api/v1/me/extra/{thing_id}", extra, methods=["PUT"]))
    op = build(list(app.routes))["paths"]["/api/v1/me/extra/{thing_id}"]["put"]
    assert op["summary"] == "Extra route." and op["parameters"][0]["name"] == "thing_id"


def test_every_operation_declares_its_answers() -> None:
    """Success and error answers for every operation, the successes' schemas generated from
    the wire Structs (``answers.ANSWERS``); the live answers are checked against them by
    ``test_band_rest_contract.py`` (every band_rest call goes through ``Spec.check``)."""
    doc = build(list(create_app(":memory:").routes))
    schemas = doc["components"]["schemas"]
    for path, ops in doc["paths"].items():
        for method, op in ops.items():
            codes = set(op["responses"])
            assert any(c.startswith("2") for c in codes), (method, path)
            if path.startswith(("/api/v1/agent", "/api/v1/me")):
                assert {"401", "403", "404", "422"} <= codes, (method, path)
    rooms = doc["paths"]["/api/v1/me/chats"]["get"]["responses"]["200"]
    data = rooms["content"]["application/json"]["schema"]["properties"]["data"]
    assert data == {"type": "array", "items": {"$ref": "#/components/schemas/MyChatRoom"}}
    assert {"last_message_at", "task_counts", "membership"} <= set(
        schemas["MyChatRoom"]["properties"]
    )
    job = schemas["BulkDeletionJob"]
    assert {"resource_type", "results", "force"} <= set(job["required"])


def test_a_route_without_a_declared_answer_is_refused() -> None:
    from band.devserver.contract import answers

    saved = answers.ANSWERS.pop("GET /api/v1/agent/me")
    try:
        with pytest.raises(RuntimeError, match="without a declared answer"):
            create_app(":memory:")
    finally:
        answers.ANSWERS["GET /api/v1/agent/me"] = saved
