"""``AgnoHistoryConverter``: platform history as Agno ``Message`` objects (needs ``agno``)."""

from __future__ import annotations

from typing import Any

from band.core.wire import JsonObject

from .openai import OpenAIHistoryConverter

__all__ = ["AgnoHistoryConverter", "AgnoMessages"]

#: Agno messages (``agno.models.message.Message``; Any: agno is an optional dependency).
AgnoMessages = list[Any]


class AgnoHistoryConverter(OpenAIHistoryConverter):
    """The Chat Completions conversion (others' text as ``[sender]: text`` user messages,
    this agent's tool calls with their results), as Agno messages, which share its shape."""

    def convert(self, raw: list[JsonObject]) -> AgnoMessages:
        """Convert history rows, oldest first."""
        from agno.models.message import Message

        return [Message(**message) for message in super().convert(raw)]
