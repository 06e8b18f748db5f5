"""``platform_connection_stub``: placeholder platform coordinates for adapter unit tests."""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["PlatformConnection", "platform_connection_stub"]


@dataclass(frozen=True)
class PlatformConnection:
    """Where and as whom an agent reaches the platform (the key is never in the repr)."""

    agent_id: str
    api_key: str = field(repr=False)
    rest_url: str
    ws_url: str


def platform_connection_stub(agent_id: str = "test-agent-id") -> PlatformConnection:
    """A ``PlatformConnection`` whose URLs resolve nowhere (``test.invalid``)."""
    return PlatformConnection(
        agent_id=agent_id,
        api_key="test-api-key",
        rest_url="https://test.invalid",
        ws_url="wss://test.invalid/socket",
    )
