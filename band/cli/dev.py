"""``band dev`` (the local platform), ``band dev agent create`` and ``band dev user create``."""

from __future__ import annotations

import argparse
import json
import logging
import os
import socket
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from band.private_files import write_private

from . import local
from .human import Human, socket_url
from .options import (
    DEV_HOST,
    DEV_PORT,
    CommandError,
    add_db,
    add_platform,
    env_url,
    platform_url,
    port,
)

if TYPE_CHECKING:
    from band.runtime.instance import HostLock

__all__ = ["add"]


def _serve(args: argparse.Namespace) -> int:
    """Run the local platform in the foreground."""
    taken = _port_taken(args.host, args.port)
    if taken:
        other = args.port + 1 if args.port < 65535 else DEV_PORT + 1
        raise CommandError(
            f"cannot listen on {args.host}:{args.port}: {taken}.\n"
            f"Another band dev may be running there; pass --port {other} (or any free "
            "port) and point BAND_REST_URL/BAND_WS_URL at it."
        )
    from band.runtime.instance import HostLock

    lock = None if args.db == ":memory:" else _serving_lock(HostLock(f"{args.db}.lock"), args.db)
    try:
        return _serve_app(args)
    finally:
        if lock is not None:
            lock.release()


def _serving_lock(lock: HostLock, db: str) -> HostLock:
    """Hold ``db``'s serving lock, or refuse: two band devs on one database would each keep
    their own view of it (one's new rooms unseen by the other) and push to their own sockets."""
    from band.devserver.store.db import private_db_dir

    private_db_dir(Path(db))  # the lock file lives beside the database: its directory first
    if not lock.try_acquire():
        raise CommandError(
            f"another band dev is serving {db} (lock {lock.path}).\n"
            "Use that one (it printed its URLs), stop it first, or give this one another --db."
        )
    return lock


def _serve_app(args: argparse.Namespace) -> int:
    """Serve the local platform on ``args.db`` (its serving lock held) until Ctrl-C."""
    from band.runtime.eventloop import loop_factory  # the serving command's alone
    from band.serving.ws import DirectSendProtocol

    # a flag shows in every local account's process list: BAND_USER_KEY is the private way
    app = local.app(args.db, args.user_key or os.environ.get("BAND_USER_KEY") or None)
    app.state.log_joins = args.access_log  # socket topic joins are logged with the requests
    warning = exposure_warning(args.host)
    if warning:
        print(f"warning: {warning}", file=sys.stderr, flush=True)
    rest = rest_url(args.host, args.port)
    print(f"BAND_USER_KEY={app.state.user_key}")
    print(f"BAND_REST_URL={rest}")
    print(f"BAND_WS_URL={socket_url(rest)}")
    print(f"Web room view: {rest}/", flush=True)
    local.serve(
        app,
        host=args.host,
        port=args.port,
        # uvloop when the [uvloop] extra is installed, as for agents (BAND_UVLOOP=0: asyncio's)
        loop="asyncio" if loop_factory() is None else "uvloop",
        log_level="info",
        access_log=args.access_log,
        # uvicorn's websockets-sansio protocol, with a direct send for the socket pushes
        ws=DirectSendProtocol,
        # pushes are small JSON frames: deflating them costs more CPU than the bytes it saves
        ws_per_message_deflate=False,
    )
    return 0


def exposure_warning(host: str) -> str:
    """What listening on ``host`` exposes ("" for a loopback address: nothing)."""
    from band.serving.hosts import is_loopback  # band.serving loads the server: serving alone

    if is_loopback(host):
        return ""
    return (
        f"listening on {host}, not a loopback address: other machines can reach this "
        "platform, and anyone holding a key it prints acts as that person or agent; keep the "
        "default 127.0.0.1 unless you need this"
    )


def rest_url(host: str, port: int) -> str:
    """The REST URL this machine's agents and commands use for a platform on ``host:port``
    (a wildcard address such as 0.0.0.0 is not one to connect to: loopback instead)."""
    from band.serving.hosts import connect_host, url_host

    return f"http://{url_host(connect_host(host))}:{port}"


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


class _Given(argparse.Action):
    """Store the option's value and note in ``given`` that it was given (not defaulted)."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        setattr(namespace, self.dest, values)
        namespace.given = {*getattr(namespace, "given", ()), self.dest}


def _platform_of(args: argparse.Namespace) -> None:
    """Fill in ``--url`` for ``band dev [--host H] [--port P] agent create ...``: options given
    to ``band dev`` before a subcommand name the band dev it acts on (``--db`` and
    ``--user-key`` carry over as they are)."""
    if "url" in args:
        return
    if {"host", "port"} & getattr(args, "given", set()):
        args.url = rest_url(args.host, args.port)
        return
    try:
        args.url = platform_url(env_url())
    except argparse.ArgumentTypeError as exc:
        raise CommandError(f"BAND_REST_URL: {exc}", code=2) from exc


async def _agent_create(args: argparse.Namespace) -> int:
    """Register an agent through the human API; say what was registered and written."""
    _platform_of(args)
    description = args.description or f"{args.name}, a local agent"
    body = {"agent": {"name": args.name, "description": description}}
    async with Human(args) as human:
        data = await human.call("POST", "/me/agents/register", body)
    assert isinstance(data, dict)
    agent, credentials = data["agent"], data["credentials"]
    assert isinstance(agent, dict) and isinstance(credentials, dict)
    out = {"id": agent["id"], "handle": agent["handle"], "api_key": credentials["api_key"]}
    entry = args.key or args.name
    if args.config:
        _write_config(args.config, entry, str(agent["id"]), str(out["api_key"]))
    if args.json:
        print(json.dumps(out))
        return 0
    print(f'registered agent "{args.name}" (@{agent["handle"]}, id {agent["id"]})')
    if args.config:
        print(f'wrote its agent_id and api_key to {args.config} under "{entry}"')
    else:
        print(f"{entry}:\n  agent_id: {agent['id']}\n  api_key: {out['api_key']}")
        print("(the lines above go in agent_config.yaml; --config FILE writes them for you)")
    print(f'run it with Agent.from_config("{entry}", adapter=...) in a shell where')
    print(f"  export BAND_REST_URL={human.url} BAND_WS_URL={socket_url(human.url)}")
    return 0


def _user_create(args: argparse.Namespace) -> int:
    """Create another local person in the dev DB and print its id, handle and key as JSON.

    Band Cloud has no API to create people (they sign up), so this writes the platform's
    SQLite file directly; a running ``band dev`` on the same file sees the person at once.
    """
    name = args.name.strip()
    if not name:
        raise CommandError("NAME can't be blank", code=2)
    if args.db == ":memory:":
        raise CommandError("--db must be the platform's SQLite file, not :memory:", code=2)
    user, key = local.create_person(args.db, name, args.handle or name)
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
            raise CommandError(f"{path} is not a YAML mapping")
        doc = loaded or {}
    old = doc.get(key)
    entry: dict[str, Any] = old if isinstance(old, dict) else {}
    doc[key] = {**entry, "agent_id": agent_id, "api_key": api_key}
    # it holds API keys: owner-only when created, an existing file's mode never loosened
    write_private(path, yaml.safe_dump(doc, sort_keys=False))


def add(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``band dev`` and its ``agent create`` and ``user create``."""
    dev = sub.add_parser(
        "dev",
        help="run the local Band platform",
        description=(
            "Serve Band's REST API, its WebSocket and the web room view on SQLite: a local "
            "platform for building and testing agents offline. Prints BAND_USER_KEY, "
            "BAND_REST_URL and BAND_WS_URL, then serves until Ctrl-C."
        ),
    )
    # noted when given: before a subcommand they name the band dev it acts on
    dev.add_argument(
        "--host",
        action=_Given,
        default=DEV_HOST,
        help=(
            "address to listen on (default: %(default)s, loopback; any other address is "
            "reachable from other machines, and band dev warns of it)"
        ),
    )
    dev.add_argument(
        "--port", action=_Given, type=port, default=DEV_PORT, help="port (default: %(default)s)"
    )
    add_db(dev, "SQLite file or :memory:")
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
    # a server's log is its output: the platform's INFO lines (sockets, joins) by default
    dev.set_defaults(func=_serve, log_level=logging.INFO)
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
    add_platform(create, inherit="band dev")
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
    create.set_defaults(func=_agent_create, log_level=logging.WARNING)
    user = dev_sub.add_parser("user", help="manage local people", description="Manage people.")
    user_sub = user.add_subparsers(dest="user_command", required=True, metavar="COMMAND")
    user_create = user_sub.add_parser(
        "create",
        help="create another person; prints their key",
        description="Create another local person in --db; prints their id, handle and key.",
    )
    user_create.add_argument("name", metavar="NAME", help="the person's name")
    user_create.add_argument("--handle", default=None, help="handle (default: from NAME)")
    add_db(user_create, "the platform's SQLite file", inherit="band dev")
    user_create.set_defaults(func=_user_create, log_level=logging.WARNING)
