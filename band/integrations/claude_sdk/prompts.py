"""The system prompt of a Band agent's Claude Code session."""

from __future__ import annotations

from claude_agent_sdk.types import SystemPromptPreset

from band.core.types import AdapterFeatures
from band.runtime.prompts import render_system_prompt

__all__ = ["generate_claude_sdk_agent_prompt"]


def generate_claude_sdk_agent_prompt(
    agent_name: str,
    agent_description: str = "An AI assistant",
    custom_section: str | None = None,
    features: AdapterFeatures | None = None,
) -> SystemPromptPreset:
    """Claude Code's own system prompt (the ``claude_code`` preset) with Band's instructions
    appended: who the agent is, how it answers in the room with the ``mcp__band__*`` tools,
    the tool groups ``features`` enables, then ``custom_section``. ``ClaudeSDKAdapter``'s
    sessions run with it."""
    append = render_system_prompt(
        agent_name=agent_name,
        agent_description=agent_description,
        custom_section=custom_section or "",
        features=features or AdapterFeatures(),
    )
    return SystemPromptPreset(type="preset", preset="claude_code", append=append)
