"""The ``band`` command line: ``band dev`` runs the local platform; more subcommands plug in."""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any

import httpx

from band.demo.cli import add_demo
from band.doctor import add_doctor
from band.private_files import write_private

DEFAULT_DB = ".band/dev.sqlite3"
#: Where ``band dev`` listens by default, and so where the other commands find it.
DEV_HOST, DEV_PORT = "127.0.0.1", 8080
DEFAULT_URL = f"http://{DEV_HOST}:{DEV_PORT}"

Command = Callable[[argparse.Namespace], int]


def _dev_run(args: argparse.Namespace) -> int:
    """Run the local platform in the foreground."""
    import uvicorn

    from band.devserver.app import LIMITS, create_app
    from band.serving import guarded_config

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


def _stored_user_key(db: str) -> str | None:
    """Read the local person's key from an existing dev DB file."""
    if db == ":memory:" or not os.path.exists(db):
        return None
    from band.devserver.store import Store

    store = Store(db)
    try:
        return store.local_user_key()
    finally:
        store.close()


def _agent_create(args: argparse.Namespace) -> int:
    """Register an agent through the human API and print its credentials as JSON."""
    key = args.user_key or os.environ.get("BAND_USER_KEY") or _stored_user_key(args.db)
    if not key:
        print("error: no user key (pass --user-key or set BAND_USER_KEY)", file=sys.stderr)
        return 2
    body = {"agent": {"name": args.name, "description": args.description}}
    try:
        resp = httpx.post(
            f"{args.url.rstrip('/')}/api/v1/me/agents/register",
            json=body,
            headers={"X-API-Key": key},
            timeout=10,
        )
    except httpx.HTTPError as exc:
        print(f"error: cannot reach {args.url}: {exc}", file=sys.stderr)
        return 1
    if resp.status_code >= 400:
        print(f"error: {resp.status_code} {resp.text}", file=sys.stderr)
        return 1
    data = resp.json()["data"]
    agent = data["agent"]
    out = {"id": agent["id"], "handle": agent["handle"], "api_key": data["credentials"]["api_key"]}
    if args.config:
        _write_config(args.config, args.key or args.name, agent["id"], out["api_key"])
    print(json.dumps(out))
    return 0


def _user_create(args: argparse.Namespace) -> int:
    """Create another local person in the dev DB and print its id, handle and key as JSON.

    Band Cloud has no API to create people (they sign up), so this writes the platform's
    SQLite file directly; a running ``band dev`` on the same file sees the person at once.
    """
    from band.devserver.store import Store, new_key, slug

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
    dev = sub.add_parser("dev", help="run the local Band platform")
    dev.add_argument("--host", default=DEV_HOST)
    dev.add_argument("--port", type=int, default=DEV_PORT)
    dev.add_argument("--db", default=DEFAULT_DB, help="SQLite file or :memory:")
    dev.add_argument(
        "--user-key",
        default=None,
        help="key of the local person (default: BAND_USER_KEY, else the one stored in --db)",
    )
    dev.add_argument(
        "--access-log",
        action="store_true",
        help="log every HTTP request and socket join (keys redacted)",
    )
    dev.set_defaults(func=_dev_run)
    dev_sub = dev.add_subparsers(dest="dev_command")
    agent = dev_sub.add_parser("agent", help="manage local agents")
    agent_sub = agent.add_subparsers(dest="agent_command", required=True)
    create = agent_sub.add_parser("create", help="register an agent")
    create.add_argument("name")
    create.add_argument("--description", required=True)
    create.add_argument("--url", default=DEFAULT_URL, help="REST URL of the platform")
    create.add_argument("--user-key", default=None)
    create.add_argument("--db", default=DEFAULT_DB, help="DB to read the local key from")
    create.add_argument("--config", default=None, help="agent_config.yaml to write credentials to")
    create.add_argument("--key", default=None, help="top-level key in --config (default: NAME)")
    create.set_defaults(func=_agent_create)
    user = dev_sub.add_parser("user", help="manage local people")
    user_sub = user.add_subparsers(dest="user_command", required=True)
    user_create = user_sub.add_parser("create", help="create another person; prints their key")
    user_create.add_argument("name")
    user_create.add_argument("--handle", default=None, help="handle (default: from NAME)")
    user_create.add_argument("--db", default=DEFAULT_DB, help="the platform's SQLite file")
    user_create.set_defaults(func=_user_create)


SUBCOMMANDS: list[Callable[[argparse._SubParsersAction[argparse.ArgumentParser]], None]] = [
    _add_dev,
    add_demo,
    add_doctor,
]


def build_parser() -> argparse.ArgumentParser:
    """Build the argument parser with every registered subcommand."""
    parser = argparse.ArgumentParser(prog="band")
    sub = parser.add_subparsers(dest="command", required=True)
    for add in SUBCOMMANDS:
        add(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``band`` console script."""
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    args = build_parser().parse_args(argv)
    func: Command = args.func
    return func(args)


if __name__ == "__main__":
    sys.exit(main())
