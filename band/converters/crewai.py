"""``CrewAIHistoryConverter``: platform history as CrewAI's LLM messages.

CrewAI's messages (``crewai.utilities.types.LLMMessage``) are Chat Completions dicts, so this is
the OpenAI converter's reading under CrewAI's name: others' text as ``user`` messages
(``[sender]: text``), this agent's tool calls as an ``assistant`` message with
``tool_calls``, each result a ``tool`` message. It imports nothing of CrewAI.
"""

from __future__ import annotations

from .openai import OpenAIHistoryConverter, OpenAIMessages

__all__ = ["CrewAIHistoryConverter", "CrewAIMessages"]

#: CrewAI's LLM messages: ``{"role": "user" | "assistant" | "tool", "content": ...}`` dicts.
CrewAIMessages = OpenAIMessages


class CrewAIHistoryConverter(OpenAIHistoryConverter):
    """Text from others becomes ``user`` messages; this agent's tool calls and their
    results the ``assistant``/``tool`` pairs CrewAI's LLM takes (an unanswered call gets an
    error result). This agent's own text is left out: its ``band_send_message`` call holds
    it."""
