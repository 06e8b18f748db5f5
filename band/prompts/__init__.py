"""Role prompts: ready-made instructions for agents that play a role in a room (planner,
reviewer), to pass as (part of) an agent's ``custom_section``."""

from __future__ import annotations

from .roles import get_available_roles, get_role_prompt, load_role_prompt

__all__ = ["get_available_roles", "get_role_prompt", "load_role_prompt"]
