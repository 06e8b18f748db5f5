"""band-sdk 6.0.1's AgnoAdapter, built with every documented constructor keyword; answers
mentions until stopped. Env: AID, AKEY, BAND_REST_URL, BAND_WS_URL, OPENAI_BASE_URL,
OPENAI_API_KEY."""

import asyncio
import os

from agno.agent import Agent as AgnoAgent
from agno.models.openai import OpenAIChat

from band import Agent
from band.adapters.agno import AgnoAdapter, AgnoAdapterConfig
from band.converters.agno import AgnoHistoryConverter
from band.core.types import Capability, Emit


def shout(text: str) -> str:
    """Shout a text."""
    return text.upper()


adapter = AgnoAdapter(
    config=AgnoAdapterConfig(),
    history_converter=AgnoHistoryConverter(),
    agent=AgnoAgent(model=OpenAIChat(id="scripted", max_retries=0), tools=[shout]),
    session_id_factory=lambda room_id: "band-" + room_id,
    emit={Emit.TOOL_CALLS},
    capabilities={Capability.TASKS},
)
agent = Agent.create(adapter=adapter, agent_id=os.environ["AID"], api_key=os.environ["AKEY"])
asyncio.run(agent.run())
