"""A Gemini agent written against band-sdk 6.0.1's documented GeminiAdapter constructor.

It answers mentions until stopped (SIGTERM). Env: AID, AKEY, BAND_REST_URL, BAND_WS_URL and
the google-genai client's GOOGLE_GEMINI_BASE_URL / GEMINI_API_KEY.
"""

import asyncio
import os

from band import Agent
from band.adapters import GeminiAdapter
from band.adapters.gemini import GeminiAdapterConfig
from band.core.types import Capability, Emit


async def main():
    adapter = GeminiAdapter(
        GeminiAdapterConfig(
            model="gemini-3.8-flash",
            custom_section="You are a helpful assistant.",
        ),
        capabilities=Capability.MEMORY,
        emit={Emit.TOOL_CALLS},
    )
    agent = Agent.create(adapter=adapter, agent_id=os.environ["AID"], api_key=os.environ["AKEY"])
    print("ready", flush=True)
    await agent.run()


asyncio.run(main())
