"""OpenAPI 3.1 description of the local platform, generated from the app's route table.

``GET /openapi.json`` walks ``request.app.routes`` at request time, so every REST route
(including ones other modules add later) is listed. Summaries come from the first line of
each handler's docstring; auth is inferred from the path prefix (agent vs human API); request
bodies and query parameters are the JSON schemas of the models each route's ``Operation``
declares (``api.operations``: the same models that validate the requests); answers are the JSON
Schema msgspec generates from the wire Structs the same declaration names (``answers.ANSWERS``:
the types the handlers encode), and every error status an operation can answer refers to the
error envelope.
"""

from __future__ import annotations

import re
from typing import Any

import msgspec
from starlette.routing import BaseRoute, Mount, Route, WebSocketRoute

from .answers import ANSWERS, BARE, HTML
from .inputs import MAX_DEPTH, declared

TITLE = "Band local platform"
VERSION = "0.1.0"
_PARAM = re.compile(r"{([^}:]+)(?::[^}]*)?}")
_ERROR = {"$ref": "#/components/responses/Error"}
_REF = "#/components/schemas/{model}"


def _walk(routes: list[BaseRoute], prefix: str = "") -> list[tuple[str, str, Any]]:
    """Return (path, method, endpoint) for every HTTP route (HEAD omitted)."""
    out: list[tuple[str, str, Any]] = []
    for route in routes:
        if isinstance(route, Mount):
            out += _walk(list(route.routes), prefix + route.path)
        elif isinstance(route, Route):
            for method in sorted(route.methods or ()):
                if method != "HEAD":
                    out.append((prefix + route.path, method, route.endpoint))
    return out


def _security(path: str) -> list[dict[str, list[str]]]:
    if path.startswith("/api/v1/agent"):
        return [{"AgentKey": []}]
    if path.startswith("/api/v1/me"):
        return [{"UserKey": []}]
    return []


def _query_parameters(model: Any) -> list[dict[str, Any]]:
    schema = model.model_json_schema(ref_template=_REF)
    required = set(schema.get("required", ()))
    return [
        {"name": name, "in": "query", "required": name in required, "schema": prop}
        for name, prop in schema.get("properties", {}).items()
    ]


def _body(model: Any, schemas: dict[str, Any]) -> dict[str, Any]:
    """The request body of ``model``, its schema (and nested ones) added to ``schemas``."""
    schema = model.model_json_schema(ref_template=_REF)
    schemas.update(schema.pop("$defs", {}))
    schema["description"] = (
        f"{schema.get('description', '')} Nested at most {MAX_DEPTH} levels deep; numbers"
        " must be finite; unknown keys are ignored."
    ).strip()
    schemas[model.__name__] = schema
    return {
        "required": True,
        "content": {"application/json": {"schema": {"$ref": _REF.format(model=model.__name__)}}},
    }


def _success(op: str, status: int, data: Any) -> dict[str, Any]:
    """The success answers of ``op``: its ``data`` (a schema; None: not JSON) in the envelope."""
    if op in HTML:
        page = {"text/html": {"schema": {"type": "string"}}}
        return {str(status): {"description": "the web room view", "content": page}}
    if data is None:  # a file's bytes, whole or a range
        content = {"application/octet-stream": {"schema": {"type": "string"}}}
        return {
            str(status): {"description": "the file", "content": content},
            "206": {"description": "the requested byte range", "content": content},
            "416": {
                "description": "range not satisfiable (a JSON string)",
                "content": {"application/json": {"schema": {"type": "string"}}},
            },
        }
    schema = data if op in BARE else {
        "type": "object",
        "required": ["data"],
        "properties": {"data": data, "metadata": {"type": "object"}, "meta": {"type": "object"}},
    }  # fmt: skip
    out = {
        str(status): {"description": "success", "content": {"application/json": {"schema": schema}}}
    }
    if op.endswith("/messages/next"):
        out["204"] = {"description": "nothing pending"}
    return out


def _responses(op: str, has_body: bool, answers: dict[str, Any]) -> dict[str, Any]:
    """The success answer of ``op`` (from ``answers.ANSWERS``) and its error answers."""
    out: dict[str, Any] = {}
    if op in ANSWERS:
        status, _ = ANSWERS[op]
        out = _success(op, status, answers.get(op))
    path = op.split(" ", 1)[1]
    statuses = []
    if path.startswith(("/api/v1/agent", "/api/v1/me")):
        statuses = ["401", "403", "404", "422"]  # key, other key, unseen, parameters
    elif path == "/dev/session":
        statuses = ["403"]
    if has_body:
        statuses.append("400")
    if op == "POST /api/v1/agent/delegation/token":
        statuses.append("429")
    for code in sorted(statuses):
        out[code] = _ERROR
    return out


def _operation(
    path: str, method: str, fn: Any, schemas: dict[str, Any], answers: dict[str, Any]
) -> dict[str, Any]:
    doc = (getattr(fn, "__doc__", None) or "").strip()
    summary = doc.splitlines()[0] if doc else f"{method} {path}"
    slug = re.sub(r"[^A-Za-z0-9]+", "_", _PARAM.sub(r"by_\1", path)).strip("_")
    tag = (
        "agent"
        if path.startswith("/api/v1/agent")
        else "human"
        if path.startswith("/api/v1/me")
        else "meta"
    )
    spec = declared(fn)
    op: dict[str, Any] = {
        "operationId": f"{method.lower()}_{slug or 'root'}",
        "summary": summary,
        "tags": [tag],
        "parameters": [
            {"name": p, "in": "path", "required": True, "schema": {"type": "string"}}
            for p in _PARAM.findall(path)
        ],
        "responses": _responses(f"{method} {path}", spec.body is not None, answers),
    }
    if spec.query is not None:
        op["parameters"] += _query_parameters(spec.query)
    if spec.body is not None:
        op["requestBody"] = _body(spec.body, schemas)
    sec = _security(path)
    if sec:
        op["security"] = sec
    return op


def build(routes: list[BaseRoute]) -> dict[str, Any]:
    """Build the OpenAPI document for ``routes``."""
    paths: dict[str, dict[str, Any]] = {}
    schemas: dict[str, Any] = {}
    # the answers' schemas, generated from the Structs the routes encode
    typed = [(op, kind) for op, (_, kind) in ANSWERS.items() if kind is not None]
    refs, components = msgspec.json.schema_components(
        [k for _, k in typed], ref_template="#/components/schemas/{name}"
    )
    answers = {op: ref for (op, _), ref in zip(typed, refs, strict=True)}
    for path, method, fn in _walk(routes):
        paths.setdefault(_PARAM.sub(r"{\1}", path), {})[method.lower()] = _operation(
            path, method, fn, schemas, answers
        )
    clash = set(schemas) & set(components)
    assert not clash, f"request and answer schemas share names: {sorted(clash)}"
    schemas.update(components)
    sockets = [r.path for r in routes if isinstance(r, WebSocketRoute)]
    return {
        "openapi": "3.1.0",
        "info": {"title": TITLE, "version": VERSION},
        "paths": dict(sorted(paths.items())),
        "components": {
            "securitySchemes": {
                "AgentKey": {"type": "apiKey", "in": "header", "name": "X-API-Key"},
                "UserKey": {"type": "apiKey", "in": "header", "name": "X-API-Key"},
            },
            "responses": {
                "Error": {
                    "description": "error envelope",
                    "content": {
                        "application/json": {"schema": {"$ref": "#/components/schemas/Error"}}
                    },
                }
            },
            "schemas": {
                **dict(sorted(schemas.items())),
                "Error": {
                    "type": "object",
                    "required": ["error"],
                    "properties": {
                        "error": {
                            "type": "object",
                            "required": ["code", "message", "request_id"],
                            "properties": {
                                "code": {"type": "string"},
                                "message": {"type": "string"},
                                "request_id": {"type": "string"},
                                "details": {"type": "object"},
                            },
                        }
                    },
                },
            },
        },
        "x-websockets": sockets,
    }
