"""Each route of band dev declared once: an ``Operation`` names its method, path, handler,
authorization rule, request models and answer, and ``declare`` builds everything else from it.

From one declaration come the Starlette route (the handler wrapped by ``http.endpoint``, which
validates the declared body and query), the authorization check (its rule in ``authz.POLICY``,
applied before the handler runs) and its ``/openapi.json`` entry (the declared models, and its
answer in ``answers.ANSWERS``). ``declare`` refuses a declaration missing any of them, so no
route can be served without a rule, a request model or an answer.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Literal

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from ..access import authz
from ..contract import answers
from ..contract.inputs import Accepts, BodyModel, QueryModel
from .http import endpoint

#: how an operation answers: the ``data`` envelope, its object bare, or the web view's page
Form = Literal["envelope", "bare", "html"]
#: what a route carries in its body when it declares no JSON model: raw bytes (a file upload)
RAW = "raw"
#: a body-carrying method with no body at all (a mark, a deletion by path)
NO_BODY = "none"
_PREFIXES = {"/api/v1/agent": "agent", "/api/v1/me": "user"}
_BODY_METHODS = frozenset({"POST", "PUT", "PATCH"})


class DeclarationError(ValueError):
    """A route declaration that lacks something the app, authz or OpenAPI needs."""


@dataclass(frozen=True, slots=True)
class Operation:
    """One REST operation: everything the app, the authorization check and OpenAPI need."""

    method: str
    path: str
    #: takes a ``Ctx`` for a keyed operation (``/api/v1/...``), the ``Request`` otherwise
    handler: Callable[[Any], Awaitable[Response]]
    #: the rule of ``authz.RULES`` that guards it; None only for the keyless pages
    rule: str | None
    #: (success status, type of what it answers: a wire Struct, ``list[...]``, ``JsonObject``;
    #: None when the answer is not JSON, a file's bytes or the page)
    answer: tuple[int, Any]
    #: the JSON body model; ``RAW`` (bytes) or ``NO_BODY`` must be said for POST, PUT and PATCH
    body: type[BodyModel] | str | None = None
    #: the query model (None: the operation takes no query parameter)
    query: type[QueryModel] | None = None
    form: Form = "envelope"

    @property
    def key(self) -> str | None:
        """Whose API key the operation takes (``agent`` or ``user``), from its path."""
        for prefix, kind in _PREFIXES.items():
            if self.path.startswith(prefix + "/"):
                return kind
        return None

    @property
    def name(self) -> str:
        """``"METHOD /path"``: its key in ``authz.POLICY`` and ``answers.ANSWERS``."""
        return f"{self.method} {self.path}"

    def problems(self) -> list[str]:
        """What the declaration lacks (empty when it is complete)."""
        out = []
        if self.key is not None and self.rule not in authz.RULES:
            out.append(f"an authorization rule (one of {sorted(authz.RULES)}), not {self.rule!r}")
        if self.key is None and self.rule is not None:
            out.append("no rule: a keyless page is not behind the authorization model")
        if self.key is None and self.path.startswith("/api/"):
            out.append("a path under /api/v1/agent or /api/v1/me")
        status, _ = self.answer
        if not 200 <= status < 300:
            out.append(f"a success status, not {status}")
        if self.method in _BODY_METHODS and self.body is None:
            out.append("a request body model (or RAW, or NO_BODY)")
        if self.method not in _BODY_METHODS and self.body is not None:
            out.append(f"no body: a {self.method} carries none")
        return out

    def accepts(self) -> Accepts:
        """The JSON models ``endpoint`` validates and OpenAPI describes."""
        body = self.body if isinstance(self.body, type) else None
        return Accepts(body, self.query)


def declare(*ops: Operation) -> list[Route]:
    """The routes of ``ops``, each one's rule and answer entered for authz and OpenAPI."""
    return [_route(op) for op in ops]


def _route(op: Operation) -> Route:
    missing = op.problems()
    if missing:
        raise DeclarationError(f"{op.name} needs {'; '.join(missing)}")
    if op.name in answers.ANSWERS:
        raise DeclarationError(f"{op.name} is declared twice")
    answers.ANSWERS[op.name] = op.answer
    if op.form == "bare":
        answers.BARE.add(op.name)
    elif op.form == "html":
        answers.HTML.add(op.name)
    if op.key is None:
        view: Callable[[Request], Awaitable[Response]] = op.handler
    else:
        authz.POLICY[op.name] = op.rule  # type: ignore[assignment]  # problems() checked it
        view = endpoint(op.key, op.accepts(), op.rule)(op.handler)
    route = Route(op.path, view, methods=[op.method])
    route.operation = op  # type: ignore[attr-defined]  # what built it, for the app's check
    return route


def operation_of(route: object) -> Operation | None:
    """The declaration a route was built from (None for one built another way)."""
    found = getattr(route, "operation", None)
    return found if isinstance(found, Operation) else None
