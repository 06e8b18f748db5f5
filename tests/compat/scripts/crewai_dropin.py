"""band-sdk 6.0.1's CrewAIAdapter, built with its documented constructor keywords and config
fields; answers mentions until stopped. Env: AID, AKEY, BAND_REST_URL, BAND_WS_URL, and
CrewAI's OPENAI_API_KEY / OPENAI_BASE_URL."""

import asyncio
import os

from pydantic import BaseModel

from band import Agent
from band.adapters.crewai import CrewAIAdapter, CrewAIAdapterConfig
from band.core.types import Capability, Emit
from band.runtime.custom_tools import declares_turn_effect
from band.runtime.tools import TurnEffect


class FileTicketInput(BaseModel):
    """File a support ticket."""

    title: str


@declares_turn_effect(TurnEffect.ACT)
async def file_ticket(args: FileTicketInput) -> str:
    return "filed: " + args.title


adapter = CrewAIAdapter(
    CrewAIAdapterConfig(
        model="openai/gpt-5-mini",
        role="Support",
        goal="File tickets",
        backstory="You file tickets.",
        custom_section="Be brief.",
        verbose=False,
        max_iter=5,
        max_rpm=None,
        allow_delegation=False,
    ),
    additional_tools=[(FileTicketInput, file_ticket)],
    emit={Emit.TOOL_CALLS},
    capabilities={Capability.TASKS},
)
agent = Agent.create(adapter=adapter, agent_id=os.environ["AID"], api_key=os.environ["AKEY"])
asyncio.run(agent.run())
