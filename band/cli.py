"""The ``band`` command line: ``band dev`` runs the local platform; more subcommands plug in.

Subcommand groups live in ``band.commands`` (one module each) and register through
``SUBCOMMANDS``; a failure a person can fix prints as ``error: ...`` (the traceback only with
``--debug`` or ``BAND_LOG_LEVEL=DEBUG``).
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import socket
import sys
from collections.abc import Callable, Sequence
from typing import Any

import httpx

from band._version import __version__
from band.commands.common import DEFAULT_DB, DEFAULT_URL, DEV_HOST, DEV_PORT, stored_user_key
from band.commands.rooms import add_rooms
from band.core.exceptions import StartupError
from band.demo.cli import add_demo
from band.doctor import add_doctor
from band.private_files import write_private
from band.runtime.startup import debug_enabled

__all__ = ["DEFAULT_DB", "DEFAULT_URL", "DEV_HOST", "DEV_PORT", "build_parser", "main"]

Command = Callable[[argparse.Namespace], int]


def _dev_run(args: argparse.Namespace) -> int:
    """Run the local platform in the foreground."""
    import uvicorn

    from band.devserver.app import LIMITS, create_app
    from band.serving import guarded_config

    taken = _port_taken(args.host, args.port)
    if taken:
        print(
            f"error: cannot listen on {args.host}:{args.port}: {taken}.\n"
            f"Another band dev may be running there; pass --port {args.port + 1} (or any free "
            "port) and point BAND_REST_URL/BAND_WS_URL at it.",
            file=sys.stderr,
        )
        return 1
    # a flag shows in every local account's process list: BAND_USER_KEY is the private way
    app = create_app(args.db, user_key=args.user_key or os.environ.get("BAND_USER_KEY") or None)
    app.state.log_joins = args.access_log  # socket topic joins are logged with the requests
    rest = f"http://{args.host}:{args.port}"
    print(f"BAND_USER_KEY={app.state.user_key}")
    print(f"BAND_REST_URL={rest}")
    print(f"BAND_WS_URL=ws://{args.host}:{args.port}/api/v1/socket/websocket")
    print(f"Web room view: {rest}/", flush=True)
    config = guarded_config(
        app,
        LIMITS,
        host=args.host,
        port=args.port,
        log_level="info",
        access_log=args.access_log,
        ws="websockets-sansio",
        # pushes are small JSON frames: deflating them costs more CPU than the bytes it saves
        ws_per_message_deflate=False,
    )
    uvicorn.Server(config).run()
    return 0


def _port_taken(host: str, port: int) -> str:
    """Why ``host:port`` cannot be listened on ("" when it can), checked as uvicorn binds."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as exc:
            return exc.strerror or str(exc)
    return ""


def _agent_create(args: argparse.Namespace) -> int:
    """Register an agent through the human API; say what was registered and written."""
    key = args.user_key or os.environ.get("BAND_USER_KEY") or stored_user_key(args.db)
    if not key:
        print(
            "error: no user key: pass --user-key or set BAND_USER_KEY (band dev prints it), or "
            f"run where band dev's database is ({args.db}; --db)",
            file=sys.stderr,
        )
        return 2
    description = args.description or f"{args.name}, a local agent"
    body = {"agent": {"name": args.name, "description": description}}
    try:
        resp = httpx.post(
            f"{args.url.rstrip('/')}/api/v1/me/agents/register",
            json=body,
            headers={"X-API-Key": key},
            timeout=10,
        )
    except httpx.HTTPError as exc:
        print(
            f"error: cannot reach {args.url}: {exc}.\nIs `band dev` running? Start it, or pass "
            "--url with where it listens.",
            file=sys.stderr,
        )
        return 1
    if resp.status_code == 401:
        print(
            f"error: {args.url} refused the user key (401): pass the BAND_USER_KEY that band dev "
            "printed (--user-key), or --db with the database that band dev serves",
            file=sys.stderr,
        )
        return 1
    if resp.status_code >= 400:
        print(f"error: {resp.status_code} {resp.text}", file=sys.stderr)
        return 1
    data = resp.json()["data"]
    agent = data["agent"]
    out = {"id": agent["id"], "handle": agent["handle"], "api_key": data["credentials"]["api_key"]}
    entry = args.key or args.name
    if args.config:
        _write_config(args.config, entry, agent["id"], out["api_key"])
    if args.json:
        print(json.dumps(out))
        return 0
    print(f'registered agent "{args.name}" (@{agent["handle"]}, id {agent["id"]})')
    if args.config:
        print(f'wrote its agent_id and api_key to {args.config} under "{entry}"')
        print(f'run it with Agent.from_config("{entry}", adapter=...) and BAND_REST_URL={args.url}')
    else:
        print(f"{entry}:\n  agent_id: {agent['id']}\n  api_key: {out['api_key']}")
        print("(the lines above go in agent_config.yaml; --config FILE writes them for you)")
    return 0


def _user_create(args: argparse.Namespace) -> int:
    """Create another local person in the dev DB and print its id, handle and key as JSON.

    Band Cloud has no API to create people (they sign up), so this writes the platform's
    SQLite file directly; a running ``band dev`` on the same file sees the person at once.
    """
    from band.devserver.store.db import Store, new_key, slug

    name = args.name.strip()
    if not name:
        print("error: NAME can't be blank", file=sys.stderr)
        return 2
    if args.db == ":memory:":
        print("error: --db must be the platform's SQLite file, not :memory:", file=sys.stderr)
        return 2
    key = new_key("band_u_")
    store = Store(args.db)
    try:
        user = store.create_user(name, slug(args.handle or name), key)
    finally:
        store.close()
    print(json.dumps({"id": user["id"], "handle": user["handle"], "api_key": key}))
    return 0


def _write_config(path: str, key: str, agent_id: str, api_key: str) -> None:
    """Merge ``key: {agent_id, api_key}`` into the keyed ``agent_config.yaml`` (spec 1.1)."""
    import yaml

    doc: dict[str, Any] = {}
    if os.path.exists(path):
        with open(path, encoding="utf-8") as fh:
            loaded = yaml.safe_load(fh)
        if loaded is not None and not isinstance(loaded, dict):
            raise SystemExit(f"error: {path} is not a YAML mapping")
        doc = loaded or {}
    old = doc.get(key)
    entry: dict[str, Any] = old if isinstance(old, dict) else {}
    doc[key] = {**entry, "agent_id": agent_id, "api_key": api_key}
    # it holds API keys: owner-only when created, an existing file's mode never loosened
    write_private(path, yaml.safe_dump(doc, sort_keys=False))


def _add_dev(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    dev = sub.add_parser(
        "dev",
        help="run the local Band platform",
        description=(
            "Serve Band's REST API, its WebSocket and the web room view on SQLite: a local "
            "platform for building and testing agents offline. Prints BAND_USER_KEY, "
            "BAND_REST_URL and BAND_WS_URL, then serves until Ctrl-C."
        ),
    )
    dev.add_argument(
        "--host", default=DEV_HOST, help="address to listen on (default: %(default)s, loopback)"
    )
    dev.add_argument("--port", type=int, default=DEV_PORT, help="port (default: %(default)s)")
    dev.add_argument(
        "--db", default=DEFAULT_DB, help="SQLite file or :memory: (default: %(default)s)"
    )
    dev.add_argument(
        "--user-key",
        default=None,
        help=(
            "key of the local person (default: BAND_USER_KEY, else the one stored in --db, "
            "else a new one)"
        ),
    )
    dev.add_argument(
        "--access-log",
        action="store_true",
        help="log every HTTP request and socket join, keys redacted (default: off)",
    )
    dev.set_defaults(func=_dev_run)
    dev_sub = dev.add_subparsers(dest="dev_command", metavar="COMMAND")
    agent = dev_sub.add_parser("agent", help="manage local agents", description="Manage agents.")
    agent_sub = agent.add_subparsers(dest="agent_command", required=True, metavar="COMMAND")
    create = agent_sub.add_parser(
        "create",
        help="register an agent and (with --config) write its credentials",
        description=(
            "Register an agent of the local person through the human API. With --config, its "
            "agent_id and api_key are merged into that YAML file under --key."
        ),
    )
    create.add_argument("name", metavar="NAME", help="the agent's display name")
    create.add_argument(
        "--description", default=None, help='what the agent does (default: "NAME, a local agent")'
    )
    create.add_argument(
        "--url", default=DEFAULT_URL, help="REST URL of the platform (default: %(default)s)"
    )
    create.add_argument(
        "--user-key",
        default=None,
        help="the person's key (default: $BAND_USER_KEY, else the key stored in --db)",
    )
    create.add_argument(
        "--db", default=DEFAULT_DB, help="DB to read the local key from (default: %(default)s)"
    )
    create.add_argument(
        "--config",
        default=None,
        help="agent_config.yaml to write the credentials to (default: print them)",
    )
    create.add_argument("--key", default=None, help="top-level key in --config (default: NAME)")
    create.add_argument(
        "--json",
        action="store_true",
        help='print {"id", "handle", "api_key"} as JSON, for scripts (default: text)',
    )
    create.set_defaults(func=_agent_create)
    user = dev_sub.add_parser("user", help="manage local people", description="Manage people.")
    user_sub = user.add_subparsers(dest="user_command", required=True, metavar="COMMAND")
    user_create = user_sub.add_parser(
        "create",
        help="create another person; prints their key",
        description="Create another local person in --db; prints their id, handle and key.",
    )
    user_create.add_argument("name", metavar="NAME", help="the person's name")
    user_create.add_argument("--handle", default=None, help="handle (default: from NAME)")
    user_create.add_argument(
        "--db", default=DEFAULT_DB, help="the platform's SQLite file (default: %(default)s)"
    )
    user_create.set_defaults(func=_user_create)


SUBCOMMANDS: list[Callable[[argparse._SubParsersAction[argparse.ArgumentParser]], None]] = [
    _add_dev,
    add_demo,
    add_doctor,
    add_rooms,
]


def build_parser() -> argparse.ArgumentParser:
    """Build the argument parser with every registered subcommand."""
    parser = argparse.ArgumentParser(
        prog="band",
        description="Band open SDK: the local platform, a demo, and rooms from a terminal.",
    )
    parser.add_argument(
        "--version", action="version", version=f"%(prog)s {__version__} (band-open-sdk)"
    )
    parser.add_argument(
        "--debug",
        action="store_true",
        help="log at DEBUG and show tracebacks of failures (default: off; BAND_LOG_LEVEL=DEBUG)",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for add in SUBCOMMANDS:
        add(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``band`` console script."""
    args = build_parser().parse_args(argv)
    level = logging.DEBUG if args.debug else logging.INFO
    logging.basicConfig(level=level, format="%(levelname)s %(name)s: %(message)s")
    func: Command = args.func
    try:
        return func(args)
    except StartupError as exc:
        if args.debug or debug_enabled():
            raise
        print(f"error: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
