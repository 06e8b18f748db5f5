"""``PydanticAIHistoryConverter``: platform history as Pydantic AI model messages.

The rows are read as the OpenAI converter reads them (text from others, this agent's tool
calls and their results); each message then becomes a ``ModelRequest`` (user text, tool
returns) or a ``ModelResponse`` (tool calls). Needs the ``[pydantic-ai]`` extra
(``pydantic_ai`` is imported with this module, which ``band.converters`` loads on first use).
"""

from __future__ import annotations

from band._extras import require_module

require_module("pydantic-ai", "PydanticAIHistoryConverter")  # an optional dependency

from typing import Any  # noqa: E402

from pydantic_ai.messages import (  # noqa: E402
    ModelMessage,
    ModelRequest,
    ModelResponse,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)

from band.core.wire import JsonObject  # noqa: E402

from ._events import call_arguments  # noqa: E402
from .openai import OpenAIHistoryConverter  # noqa: E402

__all__ = ["PydanticAIHistoryConverter", "PydanticAIMessages", "openai_to_pydantic_ai"]

#: Pydantic AI's message history: ``ModelRequest`` and ``ModelResponse`` objects.
PydanticAIMessages = list[ModelMessage]


def openai_to_pydantic_ai(messages: list[JsonObject]) -> PydanticAIMessages:
    """Chat Completions message dicts as Pydantic AI model messages."""
    out: PydanticAIMessages = []
    names: dict[str, str] = {}  # a call's id -> its tool (a return names its tool)
    for m in messages:
        if m["role"] == "user":
            out.append(ModelRequest(parts=[UserPromptPart(content=str(m["content"]))]))
        elif m["role"] == "tool":
            call_id = str(m["tool_call_id"])
            part = ToolReturnPart(names.get(call_id, "unknown"), str(m["content"]), call_id)
            if (
                out
                and isinstance(out[-1], ModelRequest)
                and out[-1].parts
                and all(isinstance(p, ToolReturnPart) for p in out[-1].parts)
            ):
                out[-1].parts = [*out[-1].parts, part]  # one request answers one response
            else:
                out.append(ModelRequest(parts=[part]))
        else:
            parts: list[Any] = []
            for c in m.get("tool_calls") or []:
                names[c["id"]] = c["function"]["name"]
                args = call_arguments(c["function"]["arguments"])
                parts.append(ToolCallPart(c["function"]["name"], args, c["id"]))
            out.append(ModelResponse(parts=parts))
    return out


class PydanticAIHistoryConverter(OpenAIHistoryConverter):
    """Text from others becomes a ``ModelRequest`` with a ``UserPromptPart``
    (``[sender]: text``); this agent's tool calls a ``ModelResponse`` of ``ToolCallPart``,
    their results a ``ModelRequest`` of ``ToolReturnPart``."""

    def convert(self, raw: list[JsonObject]) -> PydanticAIMessages:  # type: ignore[override]
        """Convert history rows, oldest first."""
        return openai_to_pydantic_ai(super().convert(raw))
