"""``AgnoHistoryConverter``: platform history as Agno ``Message`` objects.

Needs the ``[agno]`` extra (``agno`` is imported with this module, which ``band.converters``
loads on first use).
"""

from __future__ import annotations

from band._extras import require_module

require_module("agno", "AgnoHistoryConverter")  # an optional dependency: say which

from agno.models.message import Message  # noqa: E402

from band.core.wire import JsonObject  # noqa: E402

from .openai import OpenAIHistoryConverter  # noqa: E402

__all__ = ["AgnoHistoryConverter", "AgnoMessages"]

#: Agno messages (``agno.models.message.Message``).
AgnoMessages = list[Message]


class AgnoHistoryConverter(OpenAIHistoryConverter):
    """The Chat Completions conversion (others' text as ``[sender]: text`` user messages,
    this agent's tool calls with their results), as Agno messages, which share its shape."""

    def convert(self, raw: list[JsonObject]) -> AgnoMessages:  # type: ignore[override]
        """Convert history rows, oldest first."""
        return [Message(**message) for message in super().convert(raw)]
