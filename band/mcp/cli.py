"""The ``band-mcp`` command: parse flags, resolve the configuration, serve on one transport."""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from band._extras import MissingExtraError, require

from . import __version__
from .config import (
    DEFAULT_BASE_URL,
    Config,
    ConfigError,
    Settings,
    SettingsError,
    Transport,
    load_settings,
    read_dotenv,
    resolve_config,
    validate,
)
from .token import TOKEN_ENV, resolve_token

log = logging.getLogger("band.mcp")

LOG_FORMAT = "%(asctime)s [%(levelname)s] %(name)s: %(message)s"
EPILOG = f"""\
transports:
  stdio             the MCP client starts band-mcp and talks over stdin/stdout (default)
  sse               HTTP server: event stream at /sse, client messages at /messages/
  streamable-http   HTTP server: one MCP endpoint at /mcp

examples:
  band-mcp                                   agent tools over stdio
  band-mcp --scope agent,human               agent and human tools (both keys needed)
  band-mcp --tools contacts,memory           add the contact and memory tools
  band-mcp --room-id <room>                  pin every room-bound tool to one room
  band-mcp -t streamable-http -p 3000        serve http://127.0.0.1:3000/mcp (needs the
                                             printed bearer token, or BAND_MCP_TOKEN)

environment (a flag wins over its variable; an empty value counts as unset):
  BAND_USER_KEY, BAND_AGENT_KEY       keys of the human and agent scopes
  BAND_MCP_SCOPE, BAND_MCP_TOOLS      comma-separated scopes and tool groups
  BAND_MCP_ROOM_ID                    pinned room
  BAND_BASE_URL                       Band API (default {DEFAULT_BASE_URL})
  TRANSPORT, HOST, PORT               transport, bind address and port
  ENABLE_DNS_REBINDING_PROTECTION     Host check over HTTP (default true)
  ALLOWED_HOSTS, ALLOWED_ORIGINS      JSON arrays, e.g. '["127.0.0.1:*","localhost:*"]'
  BAND_MCP_TOKEN                      bearer token HTTP clients must send (default: a new one,
                                      printed once at start)
  BAND_LOG_LEVEL                      log level (default INFO); logs go to stderr
A .env file in the working directory may set BAND_BASE_URL, TRANSPORT, HOST, PORT and the
three DNS-rebinding settings; keys, scopes, tool groups and the pinned room never come from it.
"""


def parser() -> argparse.ArgumentParser:
    """The ``band-mcp`` argument parser."""
    p = argparse.ArgumentParser(
        prog="band-mcp",
        description="Band MCP server: Band's chat, contact, memory and task tools for MCP clients.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--user-key", metavar="KEY", help="user API key (band_u_...) for --scope human")
    p.add_argument(
        "--agent-key", metavar="KEY", help="agent API key (band_a_...) for --scope agent"
    )
    p.add_argument("--room-id", metavar="ID", help="pin room-bound tools to this room")
    p.add_argument(
        "--scope",
        action="append",
        metavar="SCOPE",
        help="scopes to serve: agent, human (repeatable or comma-separated; default: agent)",
    )
    p.add_argument(
        "--tools",
        action="append",
        metavar="GROUP",
        help="opt-in tool groups: contacts, memory, tasks (repeatable or comma-separated; "
        '--tools "" clears BAND_MCP_TOOLS)',
    )
    p.add_argument(
        "-t",
        "--transport",
        choices=[t.value for t in Transport],
        help="stdio (default), sse or streamable-http",
    )
    p.add_argument("--host", help="bind address for HTTP transports (default: 127.0.0.1)")
    p.add_argument("-p", "--port", type=int, help="port for HTTP transports (default: 8000)")
    p.add_argument("--version", action="version", version=f"band-mcp {__version__}")
    return p


def setup_logging(env: dict[str, str]) -> None:
    """Log to stderr (stdout carries the protocol in stdio mode) at BAND_LOG_LEVEL."""
    name = (env.get("BAND_LOG_LEVEL") or "").strip().upper() or "INFO"
    level = logging.getLevelNamesMapping().get(name)
    root = logging.getLogger()
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter(LOG_FORMAT, "%Y-%m-%d %H:%M:%S"))
    root.handlers[:] = [handler]
    root.setLevel(level if level is not None else logging.INFO)
    # one line per REST call is noise unless debugging (the key is never in them either way)
    logging.getLogger("httpx").setLevel(max(root.level, logging.WARNING))
    if level is None:
        log.warning("unknown BAND_LOG_LEVEL %r; logging at INFO", name)


def main(argv: Sequence[str] | None = None) -> int:
    """Run band-mcp; returns the exit code (2: configuration error, 1: bad setting or no [mcp])."""
    args = parser().parse_args(argv)
    try:
        require("mcp", "band-mcp")
    except MissingExtraError as exc:  # the base install: one line, never a traceback
        print(exc, file=sys.stderr)
        return 1
    env = dict(os.environ)
    setup_logging(env)
    try:
        settings = load_settings(
            env,
            read_dotenv(Path.cwd() / ".env"),
            transport=args.transport,
            host=args.host,
            port=args.port,
        )
    except SettingsError as exc:
        print(f"SettingsError: {exc}", file=sys.stderr)
        return 1
    config = resolve_config(
        env,
        user_key=args.user_key,
        agent_key=args.agent_key,
        room_id=args.room_id,
        scope=args.scope,
        tools=args.tools,
    )
    for warning in config.warnings:
        log.warning("%s", warning)
    try:
        validate(config)
        _announce(config, settings)
        asyncio.run(serve(config, settings))
    except ConfigError as exc:
        log.error("Configuration error: %s", exc)
        return 2
    except KeyboardInterrupt:
        pass
    return 0


def _announce(config: Config, settings: Settings) -> None:
    log.info("Starting band-mcp-server v%s", __version__)
    log.info("Base URL: %s", settings.band_base_url)
    log.info("Resolved scope: %s", [s.value for s in config.scope])
    log.info("Resolved tools: %s", [g.value for g in config.tools] if config.tools else "<none>")
    if config.room_id:
        log.info("Pinned room id: %s", config.room_id)


async def serve(config: Config, settings: Settings) -> None:
    """Build the tool server and run it on the configured transport until it ends."""
    from . import transports
    from .app import build

    async with build(config, settings) as tools:
        server = tools.server
        if settings.transport is Transport.STDIO:
            log.info("Transport: STDIO (for IDE integration)")
            log.info("Server ready - listening for MCP protocol messages on STDIO")
            await transports.run_stdio(server)
            return
        base = f"http://{settings.host}:{settings.port}"
        token, generated = resolve_token(os.environ)
        if settings.transport is Transport.SSE:
            app = transports.sse_app(server, settings, token)
            log.info("Transport: SSE (HTTP server mode)")
            transports.warn_if_blocked(settings, "SSE")
            log.info("Server ready - listening on %s", base)
            log.info(
                "SSE endpoint: %s | Messages endpoint: %s",
                transports.SSE_PATH,
                transports.MESSAGES_PATH,
            )
        else:
            app = transports.streamable_http_app(server, settings, token)
            log.info("Transport: streamable HTTP (HTTP server mode)")
            transports.warn_if_blocked(settings, "HTTP")
            log.info("Server ready - listening on %s", base)
            log.info("MCP endpoint: %s", transports.STREAMABLE_PATH)
        transports.warn_if_exposed(settings)
        _announce_token(generated, token)
        await transports.serve_http(app, settings)


def _announce_token(generated: bool, token: str) -> None:
    """Say where the bearer token comes from; print a generated one, once (never logged)."""
    if not generated:
        log.info("Clients authenticate with the bearer token in %s", TOKEN_ENV)
        return
    print(
        f"band-mcp bearer token (clients send 'Authorization: Bearer <token>'; set {TOKEN_ENV} "
        f"to choose it): {token}",
        file=sys.stderr,
        flush=True,
    )
