"""``band-acp``: a Band agent served to an editor over ACP on stdio (band-sdk's console script).

An editor (Zed, a JetBrains IDE, any ACP client) launches ``band-acp`` and speaks ACP's JSON-RPC
on its stdin and stdout. Each session is a Band room; a prompt is a message to the room's
peers (``--peer``, or whoever joins the room), and their answers stream back
(``BandACPServerAdapter``). Logs go to stderr only: a line on stdout would corrupt the session.

    band-acp --agent-id ID --api-key KEY [--peer PEER_ID ...]
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
from collections.abc import Sequence

from band.config.env import env_value
from band.config.settings import add_url_options

__all__ = ["entry_point", "main", "parse_args"]

log = logging.getLogger("band.integrations.acp.cli")

#: ``--log-level`` choices (band-sdk's).
LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR")


def parse_args(args: Sequence[str] | None = None) -> argparse.Namespace:
    """The command line (``sys.argv`` when ``args`` is None); each option's default is read
    from the environment variable its help names."""
    parser = argparse.ArgumentParser(
        prog="band-acp",
        description="Serve a Band agent to an editor over ACP (stdio): each session is a Band "
        "room, each prompt a message to the room's peers.",
    )
    parser.add_argument(
        "--agent-id", default=env_value("BAND_AGENT_ID"), help="the agent's id (BAND_AGENT_ID)"
    )
    parser.add_argument(
        "--api-key", default=env_value("BAND_API_KEY"), help="the agent's API key (BAND_API_KEY)"
    )
    add_url_options(parser)
    parser.add_argument(
        "--peer",
        action="append",
        default=[],
        metavar="ID",
        help="an agent or person added to each session's room (repeatable; default: none, "
        "the room's peers are whoever is added to it)",
    )
    parser.add_argument(
        "--log-level",
        choices=LEVELS,
        default=None,
        help="log level, to stderr (BAND_LOG_LEVEL; default INFO)",
    )
    return parser.parse_args(args)


async def main(args: argparse.Namespace | None = None) -> None:
    """Run the agent and serve ACP on stdio until the editor leaves.

    Raises ``ValueError`` without an agent id or API key, and ``ImportError`` (naming the
    extra) without the ``acp`` extra.
    """
    args = parse_args() if args is None else args
    # pydantic-settings (LogSettings) is imported here only, not by importing this module
    from band.config.logs import configure_stderr_logging

    configure_stderr_logging(args.log_level)
    if not args.agent_id:
        raise ValueError("no agent id: pass --agent-id or set BAND_AGENT_ID")
    if not args.api_key:
        raise ValueError("no API key: pass --api-key or set BAND_API_KEY")
    # after the checks: a usage error costs no import (and the acp extra's is the last)
    from band.agent import Agent
    from band.integrations.acp import (
        ACPServer,
        BandACPServerAdapter,
        BandACPServerAdapterConfig,
        run_acp_server,
    )

    adapter = BandACPServerAdapter(BandACPServerAdapterConfig(peers=tuple(args.peer)))
    agent = Agent.create(
        adapter=adapter,
        agent_id=args.agent_id,
        api_key=args.api_key,
        rest_url=args.rest_url,
        ws_url=args.ws_url,
    )
    log.info("serving agent %s over ACP on stdio", args.agent_id)
    async with agent:
        await run_acp_server(ACPServer(adapter))


def entry_point() -> None:
    """The ``band-acp`` command: a usage error or a missing extra is one line and exit 1."""
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        pass
    except (ValueError, ImportError) as exc:
        print(f"band-acp: error: {exc}", file=sys.stderr)
        sys.exit(1)
