"""Request input: strict JSON reading and the declared body/query models each route accepts.

A route declares its input once, in its ``Operation`` (``api.operations``); ``endpoint``
validates both before the handler runs, and ``openapi`` describes the same models. Anything
the models refuse is a 422 ``validation_error`` naming the field (400 ``bad_request`` when
the body is not JSON at all), so no client input reaches a handler unchecked.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any, ClassVar

import msgspec
from pydantic import BaseModel, ConfigDict, ValidationError
from starlette.datastructures import QueryParams

from ..store.db import StoreError

#: Deepest nesting of arrays/objects a JSON body may have (the body itself is level 1).
MAX_DEPTH = 32
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


class WrappedBody(BodyModel):
    """A body whose object sits under one key (``{"chat": {...}}``): the model's one field,
    whose name is the ``wrapper``."""

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        if len(cls.model_fields) != 1:
            raise TypeError(f"{cls.__name__} wraps one object: it declares one field")
        cls.wrapper = next(iter(cls.model_fields))


class QueryModel(BaseModel):
    """Query parameters: strings parsed to the declared types; a name the route does not
    declare is a 422 naming it ("Unexpected field: x"), as on Band, so no parameter a client
    sends is silently ignored."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class NoQuery(QueryModel):
    """The query of a route that takes no parameters."""


@dataclass(frozen=True)
class Accepts:
    """The declared input of one route."""

    body: type[BodyModel] | None = None
    query: type[QueryModel] | None = None


def declared(fn: Any) -> Accepts:
    """Return the input ``endpoint`` validates for the view ``fn`` (nothing when undeclared)."""
    found = getattr(fn, "__band_accepts__", None)
    return found if isinstance(found, Accepts) else Accepts()


class _Refused:
    """Stands for a JSON number the platform cannot hold (refused later, naming its field)."""

    def __init__(self, problem: str) -> None:
        self.problem = problem


def _constant(name: str) -> _Refused:
    return _Refused(f"numbers must be finite (got {name})")


def _finite_float(text: str) -> float | _Refused:
    value = float(text)
    if value in (math.inf, -math.inf):  # 1e999 reads as inf
        return _Refused(f"numbers must be finite (got {text[:20]})")
    return value


def _int(text: str) -> int | _Refused:
    try:
        return int(text)
    except ValueError:  # more digits than Python converts (sys.get_int_max_str_digits)
        return _Refused(f"integer too large ({len(text)} digits)")


def _invalid(field: str, message: str) -> StoreError:
    return StoreError(422, "validation_error", message, {field: [message]})


def _check_tree(value: Any, wrapper: str | None) -> None:
    """Refuse non-finite or unconvertible numbers, nesting beyond ``MAX_DEPTH`` and strings
    UTF-8 cannot encode (lone surrogates), naming the field where each is found."""
    stack: list[tuple[Any, tuple[str, ...]]] = [(value, ())]
    while stack:
        item, path = stack.pop()
        problem = None
        if isinstance(item, _Refused):
            problem = item.problem
        elif isinstance(item, str) and not item.isascii():
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                problem = "strings must be valid Unicode (no lone surrogates)"
        elif isinstance(item, dict | list):
            if len(path) >= MAX_DEPTH:  # the body is level 1
                problem = f"JSON nested deeper than {MAX_DEPTH} levels"
            elif isinstance(item, dict):
                stack.extend((k, (*path, k)) for k in item)  # keys: surrogates
                stack.extend((v, (*path, k)) for k, v in item.items())
            else:
                stack.extend((v, (*path, str(i))) for i, v in enumerate(item))
        if problem is not None:
            parts = _path(path, wrapper)
            raise StoreError(422, "validation_error", f"{'.'.join(parts)}: {problem}",
                             {parts[0]: [problem]})  # fmt: skip


def read_json(raw: bytes, wrapper: str | None = None) -> Any:
    """Parse a request body: empty means ``{}``; NaN, Infinity, lone surrogates and deep
    nesting are refused (422 naming the field; ``wrapper`` is left out of field names)."""
    if not raw.strip():
        return {}
    fast = _plain_json(raw)
    if fast is not _NOT_PLAIN:
        return fast
    try:
        value = json.loads(raw, parse_constant=_constant, parse_float=_finite_float, parse_int=_int)
    except RecursionError:
        raise _invalid("body", f"JSON nested deeper than {MAX_DEPTH} levels") from None
    except ValueError:
        raise StoreError(400, "bad_request", "request body is not valid JSON") from None
    _check_tree(value, wrapper)
    return value


#: ``_plain_json``'s answer for a body the careful reading must see
_NOT_PLAIN = object()


def _plain_json(raw: bytes) -> Any:
    """``raw`` decoded when nothing in it needs ``read_json``'s careful reading, else
    ``_NOT_PLAIN``.

    msgspec's decoder refuses everything the careful reading could answer otherwise (NaN,
    Infinity and numbers out of a float's range, integers of more digits than Python converts,
    escaped lone surrogates, bytes that are not UTF-8, a byte order mark: all ``DecodeError``)
    and reads the rest to the same values. Nesting is the one check left: a body with at most
    ``MAX_DEPTH`` opening brackets (counted in strings too) cannot nest deeper, so most bodies
    skip the walk of their tree.
    """
    if raw.count(b"[") + raw.count(b"{") > MAX_DEPTH:
        return _NOT_PLAIN
    try:
        return msgspec.json.decode(raw)
    except (msgspec.DecodeError, RecursionError):
        return _NOT_PLAIN


def _path(loc: tuple[int | str, ...] | tuple[str, ...], wrapper: str | None) -> list[str]:
    # a key from the body is shown escaped (it may hold a lone surrogate) and cut short
    parts = [str(p).encode("utf-8", "backslashreplace").decode()[:64] for p in loc]
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
    if err["type"] == "extra_forbidden":
        return parts[0], f"Unexpected field: {parts[0]}"
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
    value = read_json(raw, model.wrapper)
    if not isinstance(value, dict):
        raise _invalid("body", "body must be a JSON object")
    try:
        return model.model_validate(value)
    except ValidationError as exc:
        raise _error(exc, model) from None


#: each query model validated from no parameters at all (models are frozen: one can be shared)
_EMPTY_QUERIES: dict[type[QueryModel], QueryModel] = {}


def empty_query(model: type[QueryModel]) -> QueryModel:
    """``model`` validated from no parameters (a request without a query string): the same
    every time, so validated once (a refusal is never kept: it is raised again)."""
    empty = _EMPTY_QUERIES.get(model)
    if empty is None:
        empty = _EMPTY_QUERIES[model] = _validate_query(model, {})
    return empty


def parse_query(model: type[QueryModel], params: QueryParams) -> QueryModel:
    """Validate query parameters against ``model`` (an empty ``?name=`` counts as absent; a
    repeated name means its values comma-joined, as ``include=a&include=b`` is ``a,b``)."""
    given = {k: ",".join(v for v in params.getlist(k) if v != "") for k in params}
    return _validate_query(model, {k: v for k, v in given.items() if v != ""})


def _validate_query(model: type[QueryModel], given: dict[str, str]) -> QueryModel:
    try:
        return model.model_validate(given)
    except ValidationError as exc:
        raise _error(exc, model) from None
