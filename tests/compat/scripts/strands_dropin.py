"""band-sdk 6.0.1's StrandsAdapter, built with every documented constructor keyword; answers
mentions until stopped. Env: AID, AKEY, BAND_REST_URL, BAND_WS_URL, OPENAI_BASE_URL,
OPENAI_API_KEY. Prints ``ready`` once started."""

import asyncio
import os

from pydantic import BaseModel
from strands import tool
from strands.models.openai import OpenAIModel

from band import Agent
from band.adapters.strands import StrandsAdapter, StrandsAdapterConfig
from band.converters.strands import StrandsHistoryConverter
from band.core.types import Capability, Emit
from band.runtime.custom_tools import declares_turn_effect
from band.runtime.tools import TurnEffect


class FileTicketInput(BaseModel):
    """File a support ticket."""

    title: str


@declares_turn_effect(TurnEffect.ACT)
async def file_ticket(args: FileTicketInput) -> str:
    return "filed: " + args.title


@tool
def shout(text: str) -> str:
    """Shout a text."""
    return text.upper()


class Ready(StrandsAdapter):
    async def on_started(self, agent_name, agent_description):
        await super().on_started(agent_name, agent_description)
        print("ready", flush=True)


adapter = Ready(
    config=StrandsAdapterConfig(system_prompt=None, custom_section="Be brief."),
    history_converter=StrandsHistoryConverter(),
    additional_tools=[shout, (FileTicketInput, file_ticket)],
    llm=OpenAIModel(client_args={"max_retries": 0}, model_id="scripted"),
    emit={Emit.TOOL_CALLS},
    capabilities={Capability.MEMORY},
)
agent = Agent.create(adapter=adapter, agent_id=os.environ["AID"], api_key=os.environ["AKEY"])
asyncio.run(agent.run())
