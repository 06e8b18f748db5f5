"""``StrandsHistoryConverter``: platform history as Strands (Bedrock Converse) messages."""

from __future__ import annotations

from band.core.wire import JsonObject, JsonValue

from .anthropic import AnthropicHistoryConverter

__all__ = ["StrandsHistoryConverter", "StrandsMessages", "merge_consecutive_roles"]

#: Strands messages: ``{"role": "user" | "assistant", "content": [content blocks]}`` with
#: ``{"text": ...}``, ``{"toolUse": {...}}`` and ``{"toolResult": {...}}`` blocks.
StrandsMessages = list[JsonObject]


def _block(block: JsonValue) -> JsonObject:
    """One Anthropic content block in Converse form."""
    if not isinstance(block, dict):
        return {"text": str(block)}
    kind = block.get("type")
    if kind == "tool_use":
        use: JsonObject = {"toolUseId": block["id"], "name": block["name"], "input": block["input"]}
        return {"toolUse": use}
    if kind == "tool_result":
        status = "error" if block.get("is_error") else "success"
        result: JsonObject = {
            "toolUseId": block["tool_use_id"],
            "status": status,
            "content": [{"text": str(block.get("content", ""))}],
        }
        return {"toolResult": result}
    return {"text": str(block.get("text", ""))}


def merge_consecutive_roles(messages: StrandsMessages) -> StrandsMessages:
    """Join neighbouring messages of one role (Converse wants the roles to alternate)."""
    merged: StrandsMessages = []
    for message in messages:
        if merged and merged[-1]["role"] == message["role"]:
            previous = merged[-1]["content"]
            content = message["content"]
            assert isinstance(previous, list) and isinstance(content, list)
            merged[-1] = {"role": message["role"], "content": [*previous, *content]}
        else:
            merged.append(message)
    return merged


class StrandsHistoryConverter(AnthropicHistoryConverter):
    """The Anthropic conversion (text from others as ``[sender]: text`` user messages, this
    agent's tool calls and results as pairs, an unanswered call given an error result), in
    Converse blocks, with neighbouring messages of one role joined."""

    def convert(self, raw: list[JsonObject]) -> StrandsMessages:
        """Convert history rows, oldest first."""
        out: StrandsMessages = []
        for message in super().convert(raw):
            content = message["content"]
            blocks = content if isinstance(content, list) else [{"type": "text", "text": content}]
            out.append({"role": message["role"], "content": [_block(b) for b in blocks]})
        return merge_consecutive_roles(out)
