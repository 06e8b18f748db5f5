"""Each route of band dev is declared once (``api.operations``): method, path, authorization
rule, request models and answer in one ``Operation``, from which the route, ``authz.POLICY``
and ``/openapi.json`` are built. A declaration missing any of them is refused."""

from __future__ import annotations

from typing import Any

import pytest
from starlette.responses import Response
from starlette.routing import Route

from band.core import wire
from band.devserver.access.authz import POLICY
from band.devserver.api.operations import (
    NO_BODY,
    RAW,
    DeclarationError,
    Operation,
    declare,
    operation_of,
)
from band.devserver.app import check, create_app
from band.devserver.contract.answers import ANSWERS
from band.devserver.contract.bodies import MessageBody
from band.devserver.contract.openapi import build
from band.devserver.contract.queries import PageQuery


async def handler(ctx: Any) -> Response:
    """A handler no request reaches."""
    return Response()


def test_every_route_of_the_app_comes_from_a_declaration() -> None:
    app = create_app(":memory:")
    doc = build(list(app.routes))
    routes = [r for r in app.routes if isinstance(r, Route)]
    assert len(routes) > 80
    for route in routes:
        op = operation_of(route)
        assert op is not None, route.path
        assert route.methods and op.method in route.methods
        assert ANSWERS[op.name] == op.answer  # what OpenAPI describes
        assert POLICY.get(op.name) == op.rule  # what authz applies (None: keyless page)
        entry = doc["paths"][op.path][op.method.lower()]
        assert str(op.answer[0]) in entry["responses"]
        assert ("requestBody" in entry) == isinstance(op.body, type)
        if op.query is not None:
            assert {p["name"] for p in entry["parameters"]} >= set(op.query.model_fields)


GOOD = {"rule": "read", "answer": (200, wire.MessageRow)}
INCOMPLETE = [
    pytest.param(dict(GOOD, rule=None), "an authorization rule", id="no-rule"),
    pytest.param(dict(GOOD, rule="everyone"), "not 'everyone'", id="unknown-rule"),
    pytest.param(dict(GOOD, answer=(404, None)), "a success status", id="no-success-answer"),
]


@pytest.mark.parametrize(("fields", "problem"), INCOMPLETE)
def test_a_declaration_missing_a_part_is_refused(fields: dict[str, Any], problem: str) -> None:
    op = Operation("GET", "/api/v1/agent/test-only", handler, **fields)
    with pytest.raises(DeclarationError, match=problem):
        declare(op)
    assert op.name not in ANSWERS and op.name not in POLICY


def test_a_body_method_must_say_what_it_carries() -> None:
    path = "/api/v1/me/test-only/{x}"
    with pytest.raises(DeclarationError, match="a request body model"):
        declare(Operation("POST", path, handler, rule="self", answer=(200, None)))
    with pytest.raises(DeclarationError, match="no body: a GET carries none"):
        declare(Operation("GET", path, handler, rule="self", answer=(200, None), body=MessageBody))
    for body in (MessageBody, RAW, NO_BODY):
        assert not Operation(
            "PUT", path, handler, rule="self", answer=(200, None), body=body
        ).problems()
    assert not Operation(
        "GET", path, handler, rule="self", answer=(200, None), query=PageQuery
    ).problems()


def test_a_keyless_page_takes_no_rule_and_stays_off_the_api() -> None:
    page = Operation("GET", "/test-only", handler, rule="self", answer=(200, None))
    assert "no rule" in page.problems()[0]
    api = Operation("GET", "/api/v2/test-only", handler, rule=None, answer=(200, None))
    assert any("a path under /api/v1/agent" in p for p in api.problems())


def test_an_operation_is_declared_once() -> None:
    with pytest.raises(DeclarationError, match="declared twice"):
        declare(Operation("GET", "/api/v1/agent/me", handler, **GOOD))


def test_the_app_refuses_a_route_made_by_hand() -> None:
    with pytest.raises(RuntimeError, match="routes not declared as operations"):
        check([Route("/api/v1/agent/me", handler, methods=["GET"])])
