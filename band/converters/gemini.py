"""``GeminiHistoryConverter``: platform history as Gemini ``contents`` (the dict form the
google-genai SDK takes).

The rows are read as the OpenAI converter reads them (text from others, this agent's tool
calls and their results): text becomes a ``user`` part, a tool call a ``model``
``function_call`` part, its result a ``user`` ``function_response`` part; consecutive
contents of one role are merged, as Gemini alternates user and model turns.
"""

from __future__ import annotations

from band.core.wire import JsonObject

from ._events import call_arguments
from .openai import OpenAIHistoryConverter

__all__ = ["GeminiHistoryConverter", "GeminiMessages", "openai_to_gemini"]

#: Gemini contents: ``{"role": "user" | "model", "parts": [...]}``.
GeminiMessages = list[JsonObject]


def openai_to_gemini(messages: list[JsonObject]) -> GeminiMessages:
    """Chat Completions message dicts as Gemini contents."""
    out: GeminiMessages = []
    names: dict[str, str] = {}  # a call's id -> its function (a response names it)

    def add(role: str, part: JsonObject) -> None:
        if out and out[-1]["role"] == role:
            out[-1]["parts"].append(part)
        else:
            out.append({"role": role, "parts": [part]})

    for m in messages:
        if m["role"] == "user":
            add("user", {"text": str(m["content"])})
        elif m["role"] == "tool":
            call_id = str(m["tool_call_id"])
            response = {"output": str(m["content"])}
            add(
                "user",
                {
                    "function_response": {
                        "id": call_id,
                        "name": names.get(call_id, "unknown"),
                        "response": response,
                    }
                },
            )
        else:
            for c in m.get("tool_calls") or []:
                names[c["id"]] = c["function"]["name"]
                call = {
                    "id": c["id"],
                    "name": c["function"]["name"],
                    "args": call_arguments(c["function"]["arguments"]),
                }
                add("model", {"function_call": call})
    return out


class GeminiHistoryConverter(OpenAIHistoryConverter):
    """Text from others becomes ``user`` text parts (``[sender]: text``); this agent's
    tool calls ``model`` ``function_call`` parts, their results ``function_response``
    parts."""

    def convert(self, raw: list[JsonObject]) -> GeminiMessages:
        """Convert history rows, oldest first."""
        return openai_to_gemini(super().convert(raw))
