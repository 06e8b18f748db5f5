"""A coding agent in Band rooms: ``ACPClientAdapter`` runs an ACP agent process for each room.

Needs Node.js and the ACP bridge of a real coding agent; this example uses Claude Code's
(``npx @zed-industries/claude-code-acp``, which also needs ``ANTHROPIC_API_KEY`` or a
Claude login). Any ACP agent works the same way: ``npx @zed-industries/codex-acp``,
Cursor CLI's ``agent acp``, or ``python -m band.demo.acp_agent`` (the demo's scripted one,
no network, no model: try it with ``--command "python -m band.demo.acp_agent"``).

    band dev agent create Coder --description "Codes" --config agent_config.yaml --key coder
    BAND_REST_URL=http://127.0.0.1:8080 BAND_WS_URL=ws://127.0.0.1:8080/api/v1/socket/websocket \
        python examples/acp_agent.py --workspaces ./acp-workspaces

Each room gets its own process and its own working directory under ``--workspaces``
(``<dir>/<room id>/``). The agent answers the room by calling ``band_send_message`` on the
Band MCP server the adapter gives its session; its thoughts, tool calls and plans appear in
the room as events.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import shlex

from band import Agent
from band.adapters import ACPClientAdapter, ACPClientAdapterConfig
from band.workspaces import create_room_workspace_resolver

DEFAULT_COMMAND = "npx @zed-industries/claude-code-acp"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--name", default="coder", help="key of the agent in agent_config.yaml")
    parser.add_argument("--config", default=None, help="path of agent_config.yaml")
    parser.add_argument("--command", default=DEFAULT_COMMAND, help="the ACP agent to launch")
    parser.add_argument("--workspaces", default=".band-workspaces", help="per-room directories")
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    adapter = ACPClientAdapter(
        ACPClientAdapterConfig(command=tuple(shlex.split(args.command))),
        workspace_for_room=create_room_workspace_resolver(args.workspaces),
    )
    agent = Agent.from_config(args.name, adapter=adapter, config_path=args.config)
    asyncio.run(agent.run())


if __name__ == "__main__":
    main()
