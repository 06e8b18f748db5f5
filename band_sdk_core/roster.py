"""Public facade of ParticipantRoster."""

from __future__ import annotations

from ._roster_py import ParticipantRoster

__all__ = ["ParticipantRoster"]
