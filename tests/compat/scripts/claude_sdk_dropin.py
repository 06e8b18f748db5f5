"""band-sdk 6.0.1's ClaudeSDKAdapter, built with its documented constructor keywords and config
fields; answers mentions until stopped. Env: AID, AKEY, BAND_REST_URL, BAND_WS_URL,
CLAUDE_CLI, WORKSPACES, and the CLI's ANTHROPIC_BASE_URL / ANTHROPIC_API_KEY."""

import asyncio
import os

from pydantic import BaseModel

from band import Agent
from band.adapters.claude_sdk import (
    ClaudeApprovalOptions,
    ClaudeCLIOptions,
    ClaudeSDKAdapter,
    ClaudeSDKAdapterConfig,
)
from band.converters.claude_sdk import ClaudeSDKHistoryConverter
from band.core.types import Capability, Emit
from band.runtime.custom_tools import declares_turn_effect
from band.runtime.tools import TurnEffect
from band.workspaces import create_room_workspace_resolver


class FileTicketInput(BaseModel):
    """File a support ticket."""

    title: str


@declares_turn_effect(TurnEffect.ACT)
async def file_ticket(args: FileTicketInput) -> str:
    return "filed: " + args.title


adapter = ClaudeSDKAdapter(
    config=ClaudeSDKAdapterConfig(
        model="sonnet",
        fallback_model=None,
        custom_section="Be brief.",
        permission_mode="default",
        setting_sources=(),
        turn_timeout_s=600.0,
        cli=ClaudeCLIOptions(cli_path=os.environ["CLAUDE_CLI"], env={"DISABLE_TELEMETRY": "1"}),
        approvals=ClaudeApprovalOptions(mode="auto_accept", text_notifications=True),
    ),
    history_converter=ClaudeSDKHistoryConverter(),
    additional_tools=[(FileTicketInput, file_ticket)],
    workspace_for_room=create_room_workspace_resolver(os.environ["WORKSPACES"]),
    emit={Emit.TOOL_CALLS},
    capabilities={Capability.TASKS},
)
agent = Agent.create(adapter=adapter, agent_id=os.environ["AID"], api_key=os.environ["AKEY"])
asyncio.run(agent.run())
