"""A Band agent served over ACP on stdio (what an editor launches): BandACPServerAdapter +
ACPServer + run_acp_server, its peers and platform from the environment.

``PEER_IDS`` (comma separated) are the peers; ``ROUTES`` (``command=Peer name,...``) and
``MODES`` (``mode=Peer name,...``) give it an ``AgentRouter``."""

from __future__ import annotations

import asyncio
import os

from band import Agent
from band.integrations.acp import (
    ACPServer,
    AgentRouter,
    BandACPServerAdapter,
    BandACPServerAdapterConfig,
    run_acp_server,
)


def _pairs(name: str) -> dict[str, str]:
    items = [item.split("=", 1) for item in os.environ.get(name, "").split(",") if item]
    return {key: value for key, value in items}


async def main() -> None:
    peers = tuple(os.environ.get("PEER_IDS", os.environ.get("PEER_ID", "")).split(","))
    config = BandACPServerAdapterConfig(peers=peers, reply_grace_s=0.3)
    adapter = BandACPServerAdapter(config)
    if os.environ.get("ROUTES") or os.environ.get("MODES"):
        adapter.set_router(
            AgentRouter(mode_to_peer=_pairs("MODES"), slash_commands=_pairs("ROUTES"))
        )
    agent = Agent.create(
        adapter=adapter,
        agent_id=os.environ["AGENT_ID"],
        api_key=os.environ["AGENT_KEY"],
        rest_url=os.environ["BAND_REST_URL"],
        ws_url=os.environ["BAND_WS_URL"],
    )
    async with agent:
        await run_acp_server(ACPServer(adapter))


asyncio.run(main())
