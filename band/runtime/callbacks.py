"""band-sdk's import path for the callback signatures user code hands to ``Agent.create``."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from band.runtime.contacts.config import ContactEventCallback
from band.runtime.rooms.events import ParticipantAddedCallback, ParticipantRemovedCallback

if TYPE_CHECKING:
    from band.core.types import PlatformMessage
    from band.runtime.tools import AgentTools

__all__ = [
    "ContactEventCallback",
    "MessageHandler",
    "ParticipantAddedCallback",
    "ParticipantRemovedCallback",
]

#: A handler of one message with the room's tools: ``await handler(message, tools)``.
MessageHandler = Callable[["PlatformMessage", "AgentTools"], Awaitable[None]]
