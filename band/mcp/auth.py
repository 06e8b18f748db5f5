"""The bearer token band-mcp requires over HTTP (SSE and streamable HTTP).

Set ``BAND_MCP_TOKEN`` to choose it; otherwise a fresh one is generated at start and printed
once on stderr. It never comes from the command line, where every local account's process
list would show it. Clients send ``Authorization: Bearer <token>``; the check is the MCP SDK's
own (``BearerAuthBackend`` with ``RequireAuthMiddleware``, which answers 401 with a
``WWW-Authenticate`` header).
"""

from __future__ import annotations

import hmac

from mcp.server.auth.middleware.bearer_auth import BearerAuthBackend, RequireAuthMiddleware
from mcp.server.auth.provider import AccessToken
from starlette.middleware import Middleware
from starlette.middleware.authentication import AuthenticationMiddleware
from starlette.types import ASGIApp

from .token import TOKEN_ENV, resolve_token

__all__ = ["TOKEN_ENV", "StaticToken", "authentication", "require_token", "resolve_token"]


class StaticToken:
    """An MCP ``TokenVerifier`` accepting the one token (compared in constant time)."""

    def __init__(self, token: str) -> None:
        self._token = token.encode()

    async def verify_token(self, token: str) -> AccessToken | None:
        """The access of a request carrying the token; None for any other."""
        if not hmac.compare_digest(token.encode(), self._token):
            return None
        return AccessToken(token=token, client_id="band-mcp", scopes=[])


def authentication(token: str) -> Middleware:
    """Starlette middleware that reads a bearer token into the request's user."""
    return Middleware(AuthenticationMiddleware, backend=BearerAuthBackend(StaticToken(token)))


def require_token(app: ASGIApp) -> ASGIApp:
    """``app``, answering 401 to a request without the token (under :func:`authentication`)."""
    return RequireAuthMiddleware(app, required_scopes=[])
