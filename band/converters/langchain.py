"""``LangChainHistoryConverter``: platform history as LangChain messages (LangGraph's form).

The rows are read as the OpenAI converter reads them (text from others, this agent's tool
calls and their results); each message then becomes its LangChain class. ``langchain_core``
is imported when history is converted, not with this module.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from band.core.wire import JsonObject

from .openai import OpenAIHistoryConverter

if TYPE_CHECKING:
    from langchain_core.messages import BaseMessage

__all__ = ["LangChainHistoryConverter", "LangChainMessages", "openai_to_langchain"]

#: LangChain messages: ``HumanMessage``, ``AIMessage`` with ``tool_calls``, ``ToolMessage``.
LangChainMessages = list["BaseMessage"]


def _arguments(raw: object) -> dict[str, Any]:
    """A recorded call's arguments as an object (what LangChain's tool calls hold)."""
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except json.JSONDecodeError:
            return {}
    return raw if isinstance(raw, dict) else {}


def openai_to_langchain(messages: list[JsonObject]) -> LangChainMessages:
    """Chat Completions message dicts as LangChain message objects."""
    from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

    out: LangChainMessages = []
    for m in messages:
        if m["role"] == "user":
            out.append(HumanMessage(content=str(m["content"])))
        elif m["role"] == "tool":
            out.append(ToolMessage(content=str(m["content"]), tool_call_id=str(m["tool_call_id"])))
        else:
            calls = [
                {
                    "name": c["function"]["name"],
                    "args": _arguments(c["function"]["arguments"]),
                    "id": c["id"],
                    "type": "tool_call",
                }
                for c in m.get("tool_calls") or []
            ]
            out.append(AIMessage(content=str(m.get("content") or ""), tool_calls=calls))
    return out


class LangChainHistoryConverter(OpenAIHistoryConverter):
    """Text from others becomes ``HumanMessage`` (``[sender]: text``); this agent's tool
    calls an ``AIMessage`` with ``tool_calls``, each result a ``ToolMessage``."""

    def convert(self, raw: list[JsonObject]) -> LangChainMessages:  # type: ignore[override]
        """Convert history rows, oldest first."""
        return openai_to_langchain(super().convert(raw))
