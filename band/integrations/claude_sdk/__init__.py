"""Claude Agent SDK helpers of band-sdk 6.0.1: ``ClaudeSessionManager`` (one Claude Code CLI
session per room) and the system prompt a room's session runs with, both ``ClaudeSDKAdapter``'s
own. Needs the [claude-sdk] extra."""

from __future__ import annotations

from band._extras import require_module

require_module("claude-sdk", "band.integrations.claude_sdk")  # optional: say how to get it

from .prompts import generate_claude_sdk_agent_prompt  # noqa: E402
from .sessions import ClaudeSessionManager  # noqa: E402

__all__ = ["ClaudeSessionManager", "generate_claude_sdk_agent_prompt"]
