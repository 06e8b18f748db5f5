"""A Starlette router that tries only the routes a request's path could match."""

from __future__ import annotations

from starlette.convertors import FloatConvertor, IntegerConvertor, StringConvertor, UUIDConvertor
from starlette.routing import BaseRoute, Match, Route, Router, WebSocketRoute
from starlette.types import Receive, Scope, Send

#: convertors whose pattern never matches a ``/``: a parameter stays within one path segment
_ONE_SEGMENT = (StringConvertor, IntegerConvertor, FloatConvertor, UUIDConvertor)
#: a path of ``(segments, last segment)``'s candidates when its last segment is a parameter
_ANY = None
Key = tuple[int, str | None]
#: the methods whose candidates are remembered (any other is filtered per request)
_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})


class IndexedRouter(Router):
    """``Router`` answering exactly as its linear scan, without trying every route.

    Starlette tries the routes in order until one matches in full; with ~90 routes the hot ones
    took about 13 pattern matches per request. A route whose parameters each stay within one
    segment can match only a path with as many ``/`` and, when its last segment is literal,
    that last segment: the routes are grouped by both, each group kept in declaration order
    with every route that might match more (a ``Mount``, a ``{x:path}``) in its place. The
    first full match among a path's group is the first in the whole list; without one (a 404,
    a 405, a redirect) the request takes ``Router``'s own scan, answers and all.
    """

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self._indexed = -1  # how many routes the index covers (routes can be appended)
        self._groups: dict[Key, list[BaseRoute]] = {}
        self._by_count: dict[int, list[BaseRoute]] = {}
        self._wild: list[BaseRoute] = []
        #: a group's routes that may serve a method (``Route``s declaring another only 405)
        self._served: dict[tuple[int, str, str], list[BaseRoute]] = {}

    def _index(self) -> None:
        keys = [_key(route) for route in self.routes]
        exact = {k for k in keys if k is not None and k[1] is not _ANY}
        counts = {k[0] for k in keys if k is not None}
        self._groups = {
            k: [r for r, rk in zip(self.routes, keys, strict=True) if rk in (k, (k[0], _ANY), None)]
            for k in exact
        }
        self._by_count = {
            n: [r for r, rk in zip(self.routes, keys, strict=True) if rk in ((n, _ANY), None)]
            for n in counts
        }
        self._wild = [r for r, rk in zip(self.routes, keys, strict=True) if rk is None]
        self._served = {}
        self._indexed = len(self.routes)

    def candidates(self, path: str, method: str | None = None) -> list[BaseRoute]:
        """The routes ``path`` could match, in declaration order; with ``method``, only those
        that may serve it (a ``Route`` declaring other methods would only be a 405)."""
        if self._indexed != len(self.routes):
            self._index()
        count = path.count("/")
        key = (count, path[path.rfind("/") + 1 :])
        found = self._groups.get(key)
        if found is None:
            found = self._by_count.get(count)
            key = (count, "/")  # no segment is "/": the key of a count's group
            if found is None:
                found, key = self._wild, (-1, "/")
        if method is None:
            return found
        served = self._served.get((*key, method))
        if served is None:
            served = [r for r in found if _may_serve(r, method)]
            if method in _METHODS:  # the memo stays as small as the index
                self._served[(*key, method)] = served
        return served

    def pick(self, scope: Scope) -> tuple[BaseRoute, Scope] | None:
        """The first route matching the request in full and what it adds to its scope; None
        when none does (a 404, a 405 or a redirect: ``Router``'s own scan answers those)."""
        method = scope.get("method") if scope["type"] == "http" else None
        for route in self.candidates(_route_path(scope), method):
            match, child_scope = route.matches(scope)
            if match is Match.FULL:
                return route, child_scope
        return None

    async def app(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Hand the request to its route's first full match, else to ``Router``'s scan."""
        if scope["type"] != "lifespan":
            picked = self.pick(scope)
            if picked is not None:
                route, child_scope = picked
                if "router" not in scope:
                    scope["router"] = self
                scope["route"] = route
                scope.update(child_scope)
                await route.handle(scope, receive, send)
                return
        await super().app(scope, receive, send)


def _route_path(scope: Scope) -> str:
    """The request's path below the app's ``root_path`` (what Starlette's routes match).

    Only the candidates are picked by it: a path it got wrong would find no full match and take
    ``Router``'s own scan, so it needs no private Starlette helper to stay exact.
    """
    path: str = scope["path"]
    root: str = scope.get("root_path", "")
    if root and path.startswith(root) and path[len(root) : len(root) + 1] in ("/", ""):
        return path[len(root) :]
    return path


def _may_serve(route: BaseRoute, method: str) -> bool:
    """Whether ``route`` can match a request of ``method`` in full (a ``Route`` with methods
    serves only those; every other route, as far as the index knows, any)."""
    return not (isinstance(route, Route) and route.methods and method not in route.methods)


def _key(route: BaseRoute) -> Key | None:
    """(``/`` count, last segment or ``_ANY``) of the paths ``route`` can match; None when it
    may match paths of other shapes (a mount, a parameter that can hold a ``/``)."""
    if not isinstance(route, Route | WebSocketRoute):
        return None
    if not all(isinstance(c, _ONE_SEGMENT) for c in route.param_convertors.values()):
        return None
    last = route.path.rsplit("/", 1)[-1]
    return route.path.count("/"), (_ANY if "{" in last else last)
