"""``LangChainHistoryConverter``: platform history as LangChain messages (LangGraph's form).

The rows are read as the OpenAI converter reads them (text from others, this agent's tool
calls and their results); each message then becomes its LangChain class. Needs the
``[langgraph]`` extra (``langchain_core`` is imported with this module, which
``band.converters`` loads on first use).
"""

from __future__ import annotations

from band._extras import require_module

require_module("langgraph", "LangChainHistoryConverter")  # an optional dependency: say which

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage  # noqa: E402

from band.core.wire import JsonObject  # noqa: E402

from ._events import call_arguments  # noqa: E402
from .openai import OpenAIHistoryConverter  # noqa: E402

__all__ = ["LangChainHistoryConverter", "LangChainMessages", "openai_to_langchain"]

#: LangChain messages: ``HumanMessage``, ``AIMessage`` with ``tool_calls``, ``ToolMessage``.
LangChainMessages = list[BaseMessage]


def openai_to_langchain(messages: list[JsonObject]) -> LangChainMessages:
    """Chat Completions message dicts as LangChain message objects."""
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
                    "args": call_arguments(c["function"]["arguments"]),
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
