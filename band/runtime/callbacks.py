"""band-sdk's import path for the callback signatures user code hands to ``Agent.create``."""

from __future__ import annotations

from band.runtime.contacts.config import ContactEventCallback
from band.runtime.rooms.events import ParticipantAddedCallback, ParticipantRemovedCallback

__all__ = ["ContactEventCallback", "ParticipantAddedCallback", "ParticipantRemovedCallback"]
