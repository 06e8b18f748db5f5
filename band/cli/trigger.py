"""``band-trigger``: open a room with a target agent and send it a message; print the room's id.

For cron jobs, CI pipelines and other automation (band-sdk's console script). As the agent
(``--auth-mode agent``, the default) or as a person (``user``): look the target up among the
caller's peers by handle, create a room, add the target, post the message mentioning it. The
room's id goes to stdout (exit 0); a failure is one ``Error: ...`` line on stderr (exit 1),
naming a room it created but could not finish. Logs go to stderr.

    BAND_API_KEY=... band-trigger --target-handle @owner/agent --message "Run the daily report"
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
from collections.abc import Sequence

from band.client.errors import BandError
from band.client.rest import RestClient, path
from band.config.env import env_value
from band.config.settings import add_url_options
from band.runtime.handles import normalize_handle

__all__ = ["build_parser", "find_peer_by_handle", "main", "run", "run_with_timeout"]

log = logging.getLogger("band.cli.trigger")

#: Seconds the whole trigger may take (``--timeout``, ``BAND_TRIGGER_TIMEOUT``).
DEFAULT_TIMEOUT = 120
#: The REST API's prefix for each ``--auth-mode``.
_API = {"agent": "/agent", "user": "/me"}


def _timeout(value: str) -> int:
    """A positive number of seconds."""
    seconds = int(value)
    if seconds <= 0:
        raise argparse.ArgumentTypeError(f"must be a positive number of seconds, not {value}")
    return seconds


def build_parser() -> argparse.ArgumentParser:
    """The ``band-trigger`` parser; each option's default is read from the variable its help
    names."""
    parser = argparse.ArgumentParser(
        prog="band-trigger",
        description="Create a Band room with a target agent and send it a message; print the "
        "room's id.",
    )
    parser.add_argument(
        "--api-key",
        default=env_value("BAND_API_KEY"),
        help="the agent's or person's API key (BAND_API_KEY: better than the flag, which other "
        "users can read in the process list)",
    )
    add_url_options(parser, socket=False)
    parser.add_argument(
        "--auth-mode",
        choices=sorted(_API),
        default=env_value("BAND_AUTH_MODE") or "agent",
        help="whose key it is: an agent's or a person's (BAND_AUTH_MODE; default agent)",
    )
    parser.add_argument(
        "--target-handle",
        default=env_value("BAND_TARGET_HANDLE"),
        help="the target agent's handle, e.g. @owner/agent-name (BAND_TARGET_HANDLE)",
    )
    parser.add_argument(
        "--message", default=env_value("BAND_MESSAGE"), help="what to send it (BAND_MESSAGE)"
    )
    parser.add_argument(
        "--timeout",
        type=_timeout,
        default=env_value("BAND_TRIGGER_TIMEOUT") or DEFAULT_TIMEOUT,
        help=f"seconds for the whole operation (BAND_TRIGGER_TIMEOUT; default {DEFAULT_TIMEOUT})",
    )
    parser.add_argument("--verbose", action="store_true", help="log each step (DEBUG)")
    return parser


async def find_peer_by_handle(
    client: RestClient, handle: str, auth_mode: str
) -> dict[str, str] | None:
    """The caller's peer with ``handle`` (``@`` optional, any case): its ``id``, ``name`` and
    ``handle``, read page by page; None when no peer has it."""
    wanted = (normalize_handle(handle) or "").lower()
    async for resp in client.pages(_API[auth_mode] + "/peers", {"page_size": 100}):
        for peer in resp.data if isinstance(resp.data, list) else []:
            if not isinstance(peer, dict):
                continue
            found = str(peer.get("handle") or "")
            if (normalize_handle(found) or "").lower() == wanted:
                return {"id": str(peer["id"]), "name": str(peer.get("name") or ""), "handle": found}
    return None


async def run(args: argparse.Namespace) -> str:
    """Look the target up, create the room, add the target, send the message; the room's id.

    Raises ``ValueError`` for what the caller must fix (a missing option, an unknown handle)
    and ``RuntimeError`` for what the platform refused.
    """
    for value, option, variable in (
        (args.api_key, "--api-key", "BAND_API_KEY"),
        (args.target_handle, "--target-handle", "BAND_TARGET_HANDLE"),
        (args.message, "--message", "BAND_MESSAGE"),
    ):
        if not value:
            raise ValueError(f"{option} is required (or set {variable})")
    api = _API[args.auth_mode]
    async with RestClient(args.api_key, args.rest_url.rstrip("/")) as client:
        try:
            peer = await find_peer_by_handle(client, args.target_handle, args.auth_mode)
        except BandError as exc:
            raise RuntimeError(f"could not list the peers: {exc}") from exc
        if peer is None:
            raise ValueError(
                f"no peer with the handle {args.target_handle}: check the handle, and that "
                f"the {args.auth_mode} this key belongs to can reach it"
            )
        log.info("found %s (%s)", peer["name"], peer["id"])
        try:
            created = await client.request("POST", api + "/chats", json={"chat": {}})
        except BandError as exc:
            raise RuntimeError(f"could not create the room: {exc}") from exc
        room = created.data.get("id") if isinstance(created.data, dict) else None
        if not isinstance(room, str):
            raise RuntimeError("could not create the room: the platform answered no room id")
        log.info("created room %s", room)
        try:
            body = {"participant": {"participant_id": peer["id"]}}
            await client.request("POST", path(api + "/chats/{}/participants", room), json=body)
            mention = {"id": peer["id"], "handle": peer["handle"]}
            message = {"message": {"content": args.message, "mentions": [mention]}}
            await client.request("POST", path(api + "/chats/{}/messages", room), json=message)
        except BandError as exc:
            raise RuntimeError(f"{exc} (room {room} was created and is left as it is)") from exc
        log.info("sent the message to %s in room %s", peer["handle"], room)
        return room


async def run_with_timeout(args: argparse.Namespace) -> str:
    """``run`` within ``args.timeout`` seconds (``TimeoutError`` past them)."""
    return await asyncio.wait_for(run(args), timeout=args.timeout)


def main(argv: Sequence[str] | None = None) -> None:
    """The ``band-trigger`` command: the room's id on stdout and exit 0, or one error line."""
    args = build_parser().parse_args(argv)
    from band.config.logs import configure_stderr_logging  # pydantic-settings: only here

    configure_stderr_logging("DEBUG" if args.verbose else None)
    try:
        room = asyncio.run(run_with_timeout(args))
    except TimeoutError:
        print(f"Error: timed out after {args.timeout} seconds", file=sys.stderr)
        sys.exit(1)
    except (ValueError, RuntimeError, BandError) as exc:
        print(f"Error: {exc}", file=sys.stderr)
        sys.exit(1)
    print(room)
    sys.exit(0)
