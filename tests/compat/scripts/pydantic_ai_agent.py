"""A Pydantic AI agent written against band-sdk 6.0.1's documented PydanticAIAdapter constructor.

It answers mentions until stopped (SIGTERM). Env: AID, AKEY, BAND_REST_URL, BAND_WS_URL and
the OpenAI client's OPENAI_BASE_URL / OPENAI_API_KEY ("openai:" is the Responses API).
"""

import asyncio
import os

from band import Agent
from band.adapters import PydanticAIAdapter
from band.adapters.pydantic_ai import PydanticAIAdapterConfig
from band.core.types import Emit


async def main():
    adapter = PydanticAIAdapter(
        PydanticAIAdapterConfig(
            model="openai:gpt-6-luna",
            custom_section="You are a helpful assistant.",
        ),
        emit={Emit.TOOL_CALLS},
    )
    agent = Agent.create(adapter=adapter, agent_id=os.environ["AID"], api_key=os.environ["AKEY"])
    print("ready", flush=True)
    await agent.run()


asyncio.run(main())
