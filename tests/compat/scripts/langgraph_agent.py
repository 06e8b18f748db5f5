"""A LangGraph agent written against band-sdk 6.0.1's documented LangGraphAdapter constructor.

It answers mentions until stopped (SIGTERM). Env: AID, AKEY, BAND_REST_URL, BAND_WS_URL and
the OpenAI client's OPENAI_BASE_URL / OPENAI_API_KEY.
"""

import asyncio
import os

from langchain_openai import ChatOpenAI
from langgraph.checkpoint.memory import InMemorySaver

from band import Agent
from band.adapters import LangGraphAdapter
from band.adapters.langgraph import LangGraphAdapterConfig
from band.core.types import Emit


async def main():
    adapter = LangGraphAdapter(
        LangGraphAdapterConfig(custom_section="You are a helpful assistant.", recursion_limit=20),
        llm=ChatOpenAI(model="gpt-6-luna"),
        checkpointer=InMemorySaver(),
        emit={Emit.TOOL_CALLS},
    )
    agent = Agent.create(adapter=adapter, agent_id=os.environ["AID"], api_key=os.environ["AKEY"])
    print("ready", flush=True)
    await agent.run()


asyncio.run(main())
