"""Request input: strict JSON reading and the declared body/query models each route accepts.

A handler declares its input once with ``@accepts(body=Model, query=Model)``; ``endpoint``
validates both before the handler runs, and ``openapi`` describes the same models. Anything
the models refuse is a 422 ``validation_error`` naming the field (400 ``bad_request`` when
the body is not JSON at all), so no client input reaches a handler unchecked.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError

from .store import StoreError

#: Deepest nesting of arrays/objects a JSON body may have (the body itself is level 1).
MAX_DEPTH = 32
F = TypeVar("F", bound=Callable[..., Any])
#: custom error types: a message used as is (its context may name the field), and a
#: predicate put after the field name ("can't be blank")
VERBATIM, PREDICATE = "band_message", "band_predicate"


class BodyModel(BaseModel):
    """A JSON body: strict types (no "1" for 1, no 1 for "1"), unknown keys ignored."""

    model_config = ConfigDict(strict=True, extra="ignore", frozen=True)
    #: the key wrapping the object (``{"chat": {...}}``); left out of error field names
    wrapper: ClassVar[str | None] = None
    #: fields whose errors are 400 ``bad_request`` rather than 422 (as Band answers there)
    bad_request_fields: ClassVar[frozenset[str]] = frozenset()
    #: fields whose every error is reported with one fixed message
    field_messages: ClassVar[dict[str, str]] = {}


class QueryModel(BaseModel):
    """Query parameters: strings parsed to the declared types, unknown names ignored."""

    model_config = ConfigDict(extra="ignore", frozen=True)


@dataclass(frozen=True)
class Accepts:
    """The declared input of one route."""

    body: type[BodyModel] | None = None
    query: type[QueryModel] | None = None


def accepts(
    body: type[BodyModel] | None = None, query: type[QueryModel] | None = None
) -> Callable[[F], F]:
    """Declare a handler's body and query models (read by ``endpoint`` and ``openapi``)."""

    def mark(fn: F) -> F:
        fn.__band_accepts__ = Accepts(body, query)  # type: ignore[attr-defined]
        return fn

    return mark


def declared(fn: Any) -> Accepts:
    """Return the input declared on ``fn`` (nothing when undeclared)."""
    found = getattr(fn, "__band_accepts__", None)
    return found if isinstance(found, Accepts) else Accepts()


class _NonFinite(Exception):
    """A JSON number Python would read as NaN or +-Infinity."""


def _refuse_constant(name: str) -> Any:
    raise _NonFinite(name)


def _finite_float(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):  # 1e999 parses as inf
        raise _NonFinite(text)
    return value


def _invalid(field: str, message: str) -> StoreError:
    return StoreError(422, "validation_error", message, {field: [message]})


def _check_tree(value: Any) -> None:
    """Refuse nesting beyond ``MAX_DEPTH`` and strings UTF-8 cannot encode (lone surrogates)."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, str):
            if not item.isascii():
                try:
                    item.encode("utf-8")
                except UnicodeEncodeError:
                    raise _invalid("body", "strings must be valid Unicode") from None
            continue
        if isinstance(item, dict | list):
            if depth > MAX_DEPTH:
                raise _invalid("body", f"JSON nested deeper than {MAX_DEPTH} levels")
            children = [*item.keys(), *item.values()] if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children)


def read_json(raw: bytes) -> Any:
    """Parse a request body: empty means ``{}``; NaN, Infinity and deep nesting are refused."""
    if not raw.strip():
        return {}
    try:
        value = json.loads(raw, parse_constant=_refuse_constant, parse_float=_finite_float)
    except _NonFinite as exc:
        raise _invalid("body", f"numbers must be finite (got {exc})") from None
    except RecursionError:
        raise _invalid("body", f"JSON nested deeper than {MAX_DEPTH} levels") from None
    except ValueError:
        raise StoreError(400, "bad_request", "request body is not valid JSON") from None
    _check_tree(value)
    return value


def _path(loc: tuple[int | str, ...], wrapper: str | None) -> list[str]:
    parts = [str(p) for p in loc]
    if wrapper is not None and len(parts) > 1 and parts[0] == wrapper:
        parts = parts[1:]
    return parts or ["body"]


def _describe(err: Any, model: type[BaseModel]) -> tuple[str, str]:
    """Return (top-level field, message naming the full field path) for one pydantic error."""
    parts = _path(err["loc"], getattr(model, "wrapper", None))
    path = ".".join(parts)
    if err["type"] == VERBATIM:  # a cross-field rule names its own field
        path = str((err.get("ctx") or {}).get("field", path))
        return path.split(".")[0], err["msg"]
    fixed = getattr(model, "field_messages", {}).get(parts[0])
    if fixed is not None:
        return parts[0], fixed
    if err["type"] == PREDICATE:
        return parts[0], f"{path} {err['msg']}"
    return parts[0], f"{path}: {err['msg']}"


def _error(exc: ValidationError, model: type[BaseModel]) -> StoreError:
    """Turn pydantic's errors into Band's envelope: details by field, the first as message."""
    described = [_describe(e, model) for e in exc.errors(include_url=False, include_input=False)]
    details: dict[str, list[str]] = {}
    for name, message in described:
        if message not in details.setdefault(name, []):
            details[name].append(message)
    name, message = described[0]
    if name in getattr(model, "bad_request_fields", frozenset()):
        return StoreError(400, "bad_request", message, details)
    return StoreError(422, "validation_error", message, details)


def parse_body(model: type[BodyModel], raw: bytes) -> BodyModel:
    """Validate a raw JSON body against ``model``."""
    value = read_json(raw)
    if not isinstance(value, dict):
        raise _invalid("body", "body must be a JSON object")
    try:
        return model.model_validate(value)
    except ValidationError as exc:
        raise _error(exc, model) from None


def parse_query(model: type[QueryModel], params: Mapping[str, str]) -> QueryModel:
    """Validate query parameters against ``model`` (an empty ``?name=`` counts as absent)."""
    given = {k: v for k, v in params.items() if v != ""}
    try:
        return model.model_validate(given)
    except ValidationError as exc:
        raise _error(exc, model) from None
