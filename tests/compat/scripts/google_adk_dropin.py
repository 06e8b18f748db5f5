"""band-sdk 6.0.1's GoogleADKAdapter, built with its documented constructor keywords and config
fields; answers mentions until stopped. Env: AID, AKEY, BAND_REST_URL, BAND_WS_URL, and the
Gemini client's GOOGLE_API_KEY / GOOGLE_GEMINI_BASE_URL."""

import asyncio
import os

from pydantic import BaseModel

from band import Agent
from band.adapters.google_adk import GoogleADKAdapter, GoogleADKAdapterConfig
from band.core.types import Capability, Emit
from band.runtime.custom_tools import declares_turn_effect
from band.runtime.tools import TurnEffect


class FileTicketInput(BaseModel):
    """File a support ticket."""

    title: str


@declares_turn_effect(TurnEffect.ACT)
async def file_ticket(args: FileTicketInput) -> str:
    return "filed: " + args.title


adapter = GoogleADKAdapter(
    GoogleADKAdapterConfig(
        model="gemini-scripted",
        system_prompt=None,
        custom_section="Be brief.",
        max_retries=0,
        max_history_messages=20,
        max_transcript_chars=10_000,
    ),
    additional_tools=[(FileTicketInput, file_ticket)],
    emit={Emit.TOOL_CALLS},
    capabilities={Capability.MEMORY},
)
agent = Agent.create(adapter=adapter, agent_id=os.environ["AID"], api_key=os.environ["AKEY"])
asyncio.run(agent.run())
