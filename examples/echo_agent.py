"""An echo agent: answers every message that mentions it with the same text, mentioning the sender.

Run it against the local platform (``band dev``) or Band Cloud:

    band dev &                                            # prints BAND_REST_URL / BAND_WS_URL
    band dev agent create Echo --description "Echoes" --config agent_config.yaml --key my_agent
    BAND_REST_URL=http://127.0.0.1:8080 BAND_WS_URL=ws://127.0.0.1:8080/api/v1/socket/websocket \
        python examples/echo_agent.py

``agent_config.yaml`` (in the working directory, or ``--config PATH``) holds the agent's
credentials under a key (``--name``, default ``my_agent``). Without the two variables the agent
connects to Band Cloud. Ctrl-C stops it.
"""

from __future__ import annotations

import argparse
import asyncio
import logging

from band import Agent, PlatformMessage, strip_mentions
from band.core import AgentToolsProtocol, HistoryProvider, SimpleAdapter


class Echo(SimpleAdapter[HistoryProvider]):
    """Replies ``echo: <text>`` to the sender of every message that mentions the agent."""

    async def on_message(
        self,
        msg: PlatformMessage,
        tools: AgentToolsProtocol,
        history: HistoryProvider,
        participants_msg: str | None,
        contacts_msg: str | None,
        *,
        is_session_bootstrap: bool,
        room_id: str,
    ) -> None:
        text = strip_mentions(msg.content)  # the platform writes mentions as @[[participant id]]
        await tools.send_message(f"echo: {text}", mentions=[msg.sender_id])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--name", default="my_agent", help="key of the agent in agent_config.yaml")
    parser.add_argument("--config", default=None, help="path of agent_config.yaml")
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    agent = Agent.from_config(args.name, adapter=Echo(), config_path=args.config)
    asyncio.run(agent.run())


if __name__ == "__main__":
    main()
