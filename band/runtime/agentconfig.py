"""``AgentConfig``: process-level options of one agent (room discovery, socket conflicts)."""

from __future__ import annotations

from dataclasses import dataclass

from band.core.types import ConflictPolicy
from band_sdk_core import SessionPolicy

__all__ = ["AgentConfig", "ConflictPolicy"]


@dataclass(frozen=True, slots=True)
class AgentConfig:
    """Options of the agent process; ``session_policy`` tunes reconnects and heartbeats."""

    auto_subscribe_existing_rooms: bool = True
    single_instance: bool = True
    conflict_policy: ConflictPolicy = ConflictPolicy.SUPERSEDE
    session_policy: SessionPolicy | None = None
