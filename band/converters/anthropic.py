"""``AnthropicHistoryConverter``: platform history as Anthropic Messages API messages."""

from __future__ import annotations

from band.core.wire import JsonObject, JsonValue

from ._events import INTERRUPTED_TOOL_TEXT, BaseConverter, ToolCallEvent, parse

__all__ = ["AnthropicHistoryConverter", "AnthropicMessages"]

#: Anthropic messages: ``{"role": "user" | "assistant", "content": str | [blocks]}``.
AnthropicMessages = list[JsonObject]


class AnthropicHistoryConverter(BaseConverter):
    """Text from others becomes ``user`` messages (``[sender]: text``); this agent's tool
    calls become one ``assistant`` message of ``tool_use`` blocks and their results one
    ``user`` message of ``tool_result`` blocks. This agent's own text is left out (its
    ``band_send_message`` call already holds it); a ``tool_use`` without a recorded result
    gets an error result, since the API refuses an unanswered one."""

    def convert(self, raw: list[JsonObject]) -> AnthropicMessages:
        """Convert history rows, oldest first."""
        out: AnthropicMessages = []
        calls: list[JsonObject] = []
        results: list[JsonObject] = []

        def flush() -> None:
            if calls:
                out.append({"role": "assistant", "content": list(calls)})
                calls.clear()
            if results:
                out.append({"role": "user", "content": list(results)})
                results.clear()

        for row in raw:
            kind = row.get("message_type", "text")
            event = parse(row)
            if isinstance(event, ToolCallEvent):
                if results:
                    flush()
                calls.append(
                    {
                        "type": "tool_use",
                        "id": event.tool_call_id,
                        "name": event.name,
                        "input": event.args,
                    }
                )
            elif event is not None:
                if calls:  # the calls this result answers come first
                    out.append({"role": "assistant", "content": list(calls)})
                    calls.clear()
                block: JsonObject = {
                    "type": "tool_result",
                    "tool_use_id": event.tool_call_id,
                    "content": event.output,
                }
                if event.is_error:
                    block["is_error"] = True
                results.append(block)
            elif kind == "text":
                flush()
                self._add_text(out, row)
        flush()
        _answer_orphans(out)
        return out


def _answer_orphans(messages: AnthropicMessages) -> None:
    """Give every unanswered ``tool_use`` an error ``tool_result`` in the next user message."""
    i = 0
    while i < len(messages):
        msg = messages[i]
        blocks = msg.get("content")
        if msg.get("role") != "assistant" or not isinstance(blocks, list):
            i += 1
            continue
        ids = [b["id"] for b in blocks if isinstance(b, dict) and b.get("type") == "tool_use"]
        nxt = messages[i + 1] if i + 1 < len(messages) else None
        answered: set[JsonValue] = set()
        if nxt is not None and nxt.get("role") == "user" and isinstance(nxt.get("content"), list):
            answered = {
                b.get("tool_use_id")
                for b in nxt["content"]
                if isinstance(b, dict) and b.get("type") == "tool_result"
            }
        missing = [
            {
                "type": "tool_result",
                "tool_use_id": uid,
                "content": INTERRUPTED_TOOL_TEXT,
                "is_error": True,
            }
            for uid in sorted(set(ids) - answered)
        ]
        if missing:
            if nxt is not None and nxt.get("role") == "user":
                content = nxt["content"]
                if isinstance(content, str):
                    content = [{"type": "text", "text": content}]
                nxt["content"] = missing + content
            else:
                messages.insert(i + 1, {"role": "user", "content": missing})
        i += 1
