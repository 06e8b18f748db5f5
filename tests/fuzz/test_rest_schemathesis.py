"""schemathesis against the local platform's own OpenAPI document, over real HTTP.

Every operation of ``/openapi.json`` gets generated path parameters, query strings and JSON
bodies, sent twice: as generated, and with its path ids replaced by real ones (a room the
agent is in, a message in it, the agent), so the handlers' body validation is reached too.
Each answer must be no 5xx and, when it is an error, Band's error envelope with a code, a
message and a request id. Examples per operation stay few so CI stays fast.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from bandtest.platform import Live, live_platform, room_with
from hypothesis import HealthCheck, settings

from band.devserver.app import create_app
from band.devserver.openapi import build

schema = schemathesis.openapi.from_dict(build(list(create_app(":memory:").routes)))


@pytest.fixture(scope="module")
def target() -> Iterator[dict[str, Any]]:
    """A live platform with one agent, one room with it and a message in that room."""
    for live in live_platform():
        aid, _, key = live.register("Fuzzed")
        rid = room_with(live, aid)
        body = {"message": {"content": "hello", "mentions": [{"id": aid}]}}
        mid = live.human("POST", f"/api/v1/me/chats/{rid}/messages", json=body).json()["data"]
        ids = {"chat_id": rid, "message_id": mid["id"], "agent_id": aid, "pid": aid}
        yield {"live": live, "agent_key": key, "ids": ids}


def _headers(path: str, target: dict[str, Any]) -> dict[str, str]:
    live: Live = target["live"]
    key = target["agent_key"] if path.startswith("/api/v1/agent") else live.user_key
    return {"X-API-Key": key}


def _clear(response: Any) -> None:
    """No 5xx; an error is Band's envelope."""
    status = response.status_code
    assert status < 500, f"{status}: {response.text[:500]}"
    if status >= 400 and status != 405:
        err = response.json().get("error")
        assert isinstance(err, dict), response.text[:500]
        assert isinstance(err.get("code"), str) and err["code"], response.text[:500]
        assert isinstance(err.get("message"), str) and err["message"], response.text[:500]
        assert err.get("request_id"), response.text[:500]


@schema.parametrize()
@settings(
    max_examples=3,
    deadline=None,
    suppress_health_check=list(HealthCheck),
    database=None,
)
def test_no_server_errors(case: schemathesis.Case, target: dict[str, Any]) -> None:
    live: Live = target["live"]
    path = case.operation.path
    headers = _headers(path, target)
    _clear(case.call(base_url=live.rest, headers=headers))
    if case.path_parameters and not (case.method == "DELETE" and path.endswith("{agent_id}")):
        real = {k: target["ids"].get(k, v) for k, v in case.path_parameters.items()}
        case.path_parameters = real
        _clear(case.call(base_url=live.rest, headers=headers))
