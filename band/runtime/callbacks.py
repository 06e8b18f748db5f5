"""Signatures of the callbacks user code hands to ``Agent.create`` (one import path)."""

from __future__ import annotations

from .contacts import ContactEventCallback
from .events import ParticipantAddedCallback, ParticipantRemovedCallback

__all__ = ["ContactEventCallback", "ParticipantAddedCallback", "ParticipantRemovedCallback"]
