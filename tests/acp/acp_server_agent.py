"""A Band agent served over ACP on stdio (what an editor launches): BandACPServerAdapter +
ACPServer + run_acp_server, its peers and platform from the environment."""

from __future__ import annotations

import asyncio
import os

from band import Agent
from band.integrations.acp import (
    ACPServer,
    BandACPServerAdapter,
    BandACPServerAdapterConfig,
    run_acp_server,
)


async def main() -> None:
    config = BandACPServerAdapterConfig(peers=(os.environ["PEER_ID"],), reply_grace_s=0.3)
    adapter = BandACPServerAdapter(config)
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
