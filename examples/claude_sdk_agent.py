"""Claude Code (through the Claude Agent SDK) in Band rooms, its native tools approved in chat.

    pip install 'band-open-sdk[claude-sdk]'
    ANTHROPIC_API_KEY=... python examples/claude_sdk_agent.py  # my_agent: in agent_config.yaml

Each room gets one Claude session, resumed on its next message and after a restart. Claude's
Bash, Write, ... calls wait for `/approve <token>` (or `/decline <token>`) from the room;
the Band tools are never gated. ``CLAUDE_CLI`` names the ``claude`` executable (npm's
``@anthropic-ai/claude-code``; unset: the one in the SDK's wheel); ``ANTHROPIC_BASE_URL``
points the CLI at another Messages API, as the example's test does with band.testing's
ScriptedModel.
"""

from __future__ import annotations

import asyncio
import logging
import os

from band import Agent
from band.adapters import (
    ClaudeApprovalOptions,
    ClaudeCLIOptions,
    ClaudePermissionMode,
    ClaudeSDKAdapter,
    ClaudeSDKAdapterConfig,
)


def main() -> None:
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    adapter = ClaudeSDKAdapter(
        ClaudeSDKAdapterConfig(
            model=os.environ.get("CLAUDE_MODEL", "sonnet"),
            custom_section="You keep answers short.",
            permission_mode=ClaudePermissionMode.DEFAULT,
            approvals=ClaudeApprovalOptions(mode="manual"),
            cli=ClaudeCLIOptions(cli_path=os.environ.get("CLAUDE_CLI")),
        )
    )
    asyncio.run(Agent.from_config("my_agent", adapter=adapter).run())


if __name__ == "__main__":
    main()
