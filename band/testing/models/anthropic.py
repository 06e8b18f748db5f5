"""The Anthropic Messages API ScriptedModel serves: ``/v1/messages`` streamed or not,
``count_tokens``, and Anthropic's error envelope."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

from starlette.responses import JSONResponse, Response, StreamingResponse

from ._reply import Parsed, Reply, estimate_tokens, new_id, sse, text_of

__all__ = ["answer", "count_tokens", "error", "parse"]

#: Anthropic's error ``type`` by HTTP status.
ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    529: "overloaded_error",
}


def error(status: int, message: str) -> JSONResponse:
    """Anthropic's ``{"type": "error", "error": {...}}`` envelope."""
    kind = ERROR_TYPES.get(status, "api_error")
    body = {"type": "error", "error": {"type": kind, "message": message}}
    return JSONResponse(body, status_code=status, headers={"request-id": new_id("req_")})


def parse(body: dict[str, Any]) -> Parsed:
    """System prompt, history, tools and tool results of a Messages request."""
    system = body.get("system")
    parsed = Parsed(system=text_of(system) if system else None)
    for message in body.get("messages") or []:
        role, content = message.get("role", "user"), message.get("content")
        blocks = content if isinstance(content, list) else [{"type": "text", "text": content}]
        texts: list[str] = []
        for block in blocks:
            if block.get("type") == "tool_result":
                output = text_of(block.get("content"))
                parsed.tool_results.append((block.get("tool_use_id", ""), output))
                parsed.messages.append(("tool", output))
            elif block.get("type") == "text":
                texts.append(block.get("text") or "")
        if texts or role == "assistant":  # an assistant turn of tool calls only counts too
            parsed.messages.append((role, "".join(texts)))
    parsed.tool_names = [t.get("name", "") for t in body.get("tools") or []]
    return parsed


def _input_tokens(body: dict[str, Any]) -> int:
    sent = [body.get("system"), body.get("messages"), body.get("tools")]
    return estimate_tokens(len(json.dumps(sent)))


def count_tokens(body: dict[str, Any]) -> JSONResponse:
    """``/v1/messages/count_tokens``: the same estimate a message's usage reports."""
    return JSONResponse({"input_tokens": _input_tokens(body)})


def _blocks(reply: Reply) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = []
    if reply.thinking:
        blocks.append({"type": "thinking", "thinking": reply.thinking, "signature": "scripted"})
    if reply.text:
        blocks.append({"type": "text", "text": reply.text})
    for call in reply.calls:
        blocks.append({"type": "tool_use", "id": call.id, "name": call.name, "input": call.args})
    return blocks


def answer(body: dict[str, Any], reply: Reply) -> Response:
    """A ``message`` (or its event stream)."""
    stop = "tool_use" if reply.calls else "end_turn"
    usage = {
        "input_tokens": _input_tokens(body),
        "output_tokens": reply.output_tokens,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
    }
    message: dict[str, Any] = {
        "id": new_id("msg_"),
        "type": "message",
        "role": "assistant",
        "model": body.get("model", "scripted"),
        "content": _blocks(reply),
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": usage,
    }
    if not body.get("stream"):
        return JSONResponse(message)

    def event(kind: str, **data: Any) -> bytes:
        return sse({"type": kind, **data}, kind)

    async def stream() -> AsyncIterator[bytes]:
        start = {
            **message,
            "content": [],
            "stop_reason": None,
            "usage": {**usage, "output_tokens": 1},
        }
        yield event("message_start", message=start)
        for index, block in enumerate(message["content"]):
            kind = block["type"]
            if kind == "text":
                empty = {"type": "text", "text": ""}
                yield event("content_block_start", index=index, content_block=empty)
                delta = {"type": "text_delta", "text": block["text"]}
                yield event("content_block_delta", index=index, delta=delta)
            elif kind == "thinking":
                empty = {"type": "thinking", "thinking": "", "signature": ""}
                yield event("content_block_start", index=index, content_block=empty)
                delta = {"type": "thinking_delta", "thinking": block["thinking"]}
                yield event("content_block_delta", index=index, delta=delta)
                delta = {"type": "signature_delta", "signature": block["signature"]}
                yield event("content_block_delta", index=index, delta=delta)
            else:
                yield event(
                    "content_block_start", index=index, content_block={**block, "input": {}}
                )
                delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
                yield event("content_block_delta", index=index, delta=delta)
            yield event("content_block_stop", index=index)
        if reply.hold:
            await asyncio.sleep(reply.hold)  # cancelled when the client goes away
        delta = {"stop_reason": stop, "stop_sequence": None}
        yield event("message_delta", delta=delta, usage={"output_tokens": reply.output_tokens})
        yield event("message_stop")

    return StreamingResponse(stream(), media_type="text/event-stream")
