"""Serving the tools: stdio, SSE (``/sse`` + ``/messages/``) and streamable HTTP (``/mcp``)."""

from __future__ import annotations

import contextlib
import logging
import os
import sys
from collections.abc import AsyncIterator
from typing import Any

import anyio
from mcp.server.lowlevel import Server
from mcp.server.sse import SseServerTransport
from mcp.server.stdio import stdio_server
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from starlette.applications import Starlette
from starlette.routing import Mount, Route
from starlette.types import ASGIApp, Receive, Scope, Send

from band.serving import BodyLimit, GracefulServer, Limits, guarded_config
from band.serving.hosts import is_loopback
from band.serving.sse import serve_sse

from .auth import authentication, require_token
from .config import Settings

log = logging.getLogger("band.mcp")

SSE_PATH = "/sse"
MESSAGES_PATH = "/messages/"
STREAMABLE_PATH = "/mcp"
#: request bodies (JSON-RPC messages), header time and size, connections (README "Limits")
LIMITS = Limits()


def security(settings: Settings) -> TransportSecuritySettings:
    """DNS-rebinding protection exactly as configured (no implicit loopback allowlist)."""
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=settings.enable_dns_rebinding_protection,
        allowed_hosts=list(settings.allowed_hosts),
        allowed_origins=list(settings.allowed_origins),
    )


# a client that goes away (closes its end of a pipe) ends the session: not a server error
CLIENT_GONE = (
    anyio.ClosedResourceError,
    anyio.BrokenResourceError,
    BrokenPipeError,
    ConnectionResetError,
)


async def run_stdio(server: Server[Any, Any]) -> None:
    """Serve one client on stdin/stdout until it closes stdin or stops reading stdout."""
    try:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())
    except* CLIENT_GONE:
        log.info("the MCP client closed the stdio pipes; stopping")
        _discard_stdout()


def _discard_stdout() -> None:
    """Point fd 1 at /dev/null so the interpreter's last flush has nowhere to break."""
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)


def _guarded(app: ASGIApp) -> ASGIApp:
    """An endpoint behind the bearer token, its request body bounded."""
    return require_token(BodyLimit(app, LIMITS.max_body))


def sse_app(server: Server[Any, Any], settings: Settings, token: str) -> Starlette:
    """The SSE app: the event stream at ``/sse``, client messages posted to ``/messages/``."""
    transport = SseServerTransport(MESSAGES_PATH, security_settings=security(settings))

    async def stream(scope: Scope, receive: Receive, send: Send) -> None:
        await serve_sse(transport, server, scope, receive, send)

    return Starlette(
        routes=[
            Route(SSE_PATH, endpoint=_guarded(stream), methods=["GET"]),
            Mount(MESSAGES_PATH, app=_guarded(transport.handle_post_message)),
        ],
        middleware=[authentication(token)],
    )


def streamable_http_app(server: Server[Any, Any], settings: Settings, token: str) -> Starlette:
    """The streamable HTTP app: one endpoint at ``/mcp`` (POST, GET stream, DELETE)."""
    manager = StreamableHTTPSessionManager(app=server, security_settings=security(settings))

    async def endpoint(scope: Scope, receive: Receive, send: Send) -> None:
        await manager.handle_request(scope, receive, send)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async with manager.run():
            yield

    return Starlette(
        routes=[
            Route(STREAMABLE_PATH, endpoint=_guarded(endpoint), methods=["GET", "POST", "DELETE"])
        ],
        middleware=[authentication(token)],
        lifespan=lifespan,
    )


def warn_if_blocked(settings: Settings, what: str) -> None:
    """Say so at startup when the Host check would refuse every request."""
    if settings.enable_dns_rebinding_protection and not settings.allowed_hosts:
        log.warning(
            "DNS rebinding protection enabled with empty ALLOWED_HOSTS. All %s requests will be "
            "blocked. Configure ALLOWED_HOSTS to allow connections.",
            what,
        )


def warn_if_exposed(settings: Settings) -> None:
    """Say so at startup when other machines or rebinding pages could reach the server."""
    if not is_loopback(settings.host):
        log.warning(
            "listening on %s, which is not a loopback address: other machines can reach "
            "band-mcp and call its tools with your keys if they have the bearer token; keep "
            "the default 127.0.0.1 unless you need this (an SSH tunnel is safer)",
            settings.host,
        )
    if not settings.enable_dns_rebinding_protection:
        log.warning(
            "DNS rebinding protection is off (ENABLE_DNS_REBINDING_PROTECTION=false): any Host "
            "header is accepted; list ALLOWED_HOSTS instead and keep the protection on"
        )


async def serve_http(app: Starlette, settings: Settings, **uvicorn_kw: Any) -> None:
    """Run ``app`` with uvicorn on the configured host and port, within :data:`LIMITS`."""
    config = guarded_config(
        app,
        LIMITS,
        host=settings.host,
        port=settings.port,
        log_level=logging.getLevelName(log.getEffectiveLevel()).lower(),
        lifespan="on",
        **uvicorn_kw,
    )
    await GracefulServer(config).serve()
