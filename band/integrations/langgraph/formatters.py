"""A platform message as a LangGraph graph's input."""

from __future__ import annotations

from typing import Any, Protocol

from band.core.types import PlatformMessage
from band.runtime.rooms.events import MessageCreatedPayload

__all__ = ["MessageFormatter", "default_messages_state_formatter"]

#: What a formatter reads: a pushed message, or the message a turn handles.
Message = MessageCreatedPayload | PlatformMessage


class MessageFormatter(Protocol):
    """Turns a platform message and its sender's display name into the dict a graph's state
    takes as input."""

    def __call__(self, message: Message, sender_name: str) -> dict[str, Any]:
        """The graph input for ``message`` from ``sender_name``."""
        ...


def default_messages_state_formatter(message: Message, sender_name: str) -> dict[str, Any]:
    """Input for a ``MessagesState`` graph: one user message naming the sender, its kind and
    id, then the text (``{"messages": [{"role": "user", "content": ...}]}``)."""
    who = f"{sender_name} ({message.sender_type}, ID: {message.sender_id})"
    return {"messages": [{"role": "user", "content": f"Message from {who}: {message.content}"}]}
