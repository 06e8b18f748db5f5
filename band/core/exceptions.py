"""Errors of the SDK's own surface (configuration, lifecycle); platform ones: band.client."""

from __future__ import annotations

from band.client.errors import BandConnectionError, BandError

__all__ = ["AgentAlreadyRunningError", "BandConfigError", "BandConnectionError", "BandError"]


class BandConfigError(BandError):
    """The agent or adapter is configured in a way that cannot work."""


class AgentAlreadyRunningError(BandConfigError):
    """This agent is already started (in this process)."""
