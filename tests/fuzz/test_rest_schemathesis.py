"""schemathesis against the local platform's own OpenAPI document, over real HTTP.

Every operation of ``/openapi.json`` (whose bodies and query parameters are the schemas of
the models that validate them) gets generated path parameters, query strings and JSON
bodies, both fitting the schema and deliberately not (schemathesis' positive and negative
modes), sent twice: as generated, and with its path ids replaced by real ones (a room the
agent is in, a message in it, the agent), so the handlers themselves are reached too.
Each answer must be no 5xx and, when it is an error, Band's error envelope with a code, a
message and a request id; the server must log no error (no traceback). Examples per
operation stay few so CI stays fast.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from bandtest.platform import Live
from hypothesis import HealthCheck, settings
from schemathesis import GenerationMode

from band.devserver.app import create_app
from band.devserver.contract.openapi import build

from .hostile import COUNTS, Target, hostile_target

schema = schemathesis.openapi.from_dict(build(list(create_app(":memory:").routes)))
schema.config.generation.update(modes=[GenerationMode.POSITIVE, GenerationMode.NEGATIVE])


@pytest.fixture(scope="module")
def target() -> Iterator[dict[str, Any]]:
    """A live platform with an agent, a room with it, a message, a task, a memory..."""
    for hostile in hostile_target():
        ids = {**hostile.ids, "pid": hostile.ids["agent_id"]}
        yield {"live": hostile.live, "agent_key": hostile.agent_key, "ids": ids, "t": hostile}


def _headers(path: str, target: dict[str, Any]) -> dict[str, str]:
    live: Live = target["live"]
    key = target["agent_key"] if path.startswith("/api/v1/agent") else live.user_key
    return {"X-API-Key": key}


def _clear(response: Any) -> None:
    """No 5xx; an error is Band's envelope."""
    COUNTS["schemathesis"] += 1
    status = response.status_code
    assert status < 500, f"{status}: {response.text[:500]}"
    if status == 416:  # the contract's 416 body is a JSON string (RangeNotSatisfiableError)
        assert isinstance(response.json(), str) and response.json(), response.text[:500]
    elif status >= 400 and status != 405:
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
    hostile: Target = target["t"]
    logged = hostile.log.text()
    hostile.log.records.clear()
    assert not logged, f"server logged errors:\n{logged}"
