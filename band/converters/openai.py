"""``OpenAIHistoryConverter``: platform history as OpenAI Chat Completions messages."""

from __future__ import annotations

import json

from band.core.wire import JsonObject

from ._events import INTERRUPTED_TOOL_TEXT, BaseConverter, ToolCallEvent, is_own_text, parse

__all__ = ["OpenAIHistoryConverter", "OpenAIMessages"]

#: Chat Completions messages (``user``, ``assistant`` with ``tool_calls``, ``tool``).
OpenAIMessages = list[JsonObject]


class OpenAIHistoryConverter(BaseConverter):
    """Text from others becomes ``user`` messages (``[sender]: text``); this agent's tool
    calls become one ``assistant`` message with ``tool_calls``, each result a ``tool``
    message. This agent's own text is left out (its ``band_send_message`` call holds it);
    a tool call without a recorded result gets an error result, as the API requires."""

    def convert(self, raw: list[JsonObject]) -> OpenAIMessages:
        """Convert history rows, oldest first."""
        out: OpenAIMessages = []
        calls: list[JsonObject] = []
        answered: set[str] = set()

        def close_calls() -> None:
            # every call of the assistant message is answered before anything else follows
            for call in calls:
                if call["id"] not in answered:
                    out.append(
                        {
                            "role": "tool",
                            "tool_call_id": call["id"],
                            "content": INTERRUPTED_TOOL_TEXT,
                        }
                    )
            calls.clear()

        for row in raw:
            event = parse(row)
            if isinstance(event, ToolCallEvent):
                if not calls or out[-1].get("role") != "assistant":
                    close_calls()
                    out.append({"role": "assistant", "content": None, "tool_calls": []})
                call = {
                    "id": event.tool_call_id,
                    "type": "function",
                    "function": {"name": event.name, "arguments": json.dumps(event.args)},
                }
                out[-1]["tool_calls"].append(call)
                calls.append(call)
            elif event is not None:
                if event.tool_call_id in {c["id"] for c in calls}:
                    out.append(
                        {
                            "role": "tool",
                            "tool_call_id": event.tool_call_id,
                            "content": event.output,
                        }
                    )
                    answered.add(event.tool_call_id)
            elif row.get("message_type", "text") == "text":
                if is_own_text(row, self._agent_name):
                    # its band_send_message call holds it; in the room it comes between the
                    # call and the result, which it must not part
                    continue
                close_calls()
                self._add_text(out, row)
        close_calls()
        return out
