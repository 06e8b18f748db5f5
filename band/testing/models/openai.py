"""The OpenAI wire APIs ScriptedModel serves: Chat Completions and Responses, each streamed
(server-sent events) or not, and OpenAI's error envelope."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from typing import Any

from starlette.responses import JSONResponse, Response, StreamingResponse

from ._reply import Parsed, Reply, estimate_tokens, new_id, sse, text_of

__all__ = ["chat_answer", "chat_parse", "error", "responses_answer", "responses_parse"]

#: OpenAI's error ``type``/``code`` by HTTP status (the SDK maps the status to its exception).
ERROR_KINDS = {
    400: ("invalid_request_error", None),
    401: ("invalid_request_error", "invalid_api_key"),
    403: ("permission_error", None),
    404: ("invalid_request_error", "model_not_found"),
    429: ("rate_limit_exceeded", "rate_limit_exceeded"),
}


def error(status: int, message: str) -> JSONResponse:
    """OpenAI's ``{"error": {...}}`` envelope."""
    kind, code = ERROR_KINDS.get(status, ("server_error", None))
    body = {"error": {"message": message, "type": kind, "param": None, "code": code}}
    return JSONResponse(body, status_code=status)


# -- Chat Completions --


def chat_parse(body: dict[str, Any]) -> Parsed:
    """System prompt, history, tools and tool results of a Chat Completions request."""
    parsed = Parsed()
    systems: list[str] = []
    for message in body.get("messages") or []:
        role = message.get("role", "user")
        content = text_of(message.get("content"))
        if role in ("system", "developer"):
            systems.append(content)
        elif role == "tool":
            parsed.tool_results.append((message.get("tool_call_id", ""), content))
            parsed.messages.append(("tool", content))
        else:
            parsed.messages.append((role, content))
    parsed.system = "\n".join(systems) if systems else None
    for tool in body.get("tools") or []:
        function = tool.get("function") or {}
        parsed.tool_names.append(function.get("name") or tool.get("name", ""))
    return parsed


def _chat_usage(body: dict[str, Any], reply: Reply) -> dict[str, Any]:
    prompt = estimate_tokens(len(json.dumps(body.get("messages") or [])))
    return {
        "prompt_tokens": prompt,
        "completion_tokens": reply.output_tokens,
        "total_tokens": prompt + reply.output_tokens,
        "prompt_tokens_details": {"cached_tokens": 0},
        "completion_tokens_details": {"reasoning_tokens": 0},
    }


def chat_answer(body: dict[str, Any], reply: Reply) -> Response:
    """A ``chat.completion`` (or its ``chat.completion.chunk`` stream)."""
    ident, created, model = new_id("chatcmpl-"), int(time.time()), body.get("model", "scripted")
    finish = "tool_calls" if reply.calls else "stop"
    calls = [
        {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
        for c in reply.calls
    ]
    if not body.get("stream"):
        message: dict[str, Any] = {"role": "assistant", "content": reply.text or None}
        if calls:
            message["tool_calls"] = calls
        if reply.thinking:
            message["reasoning_content"] = reply.thinking
        return JSONResponse(
            {
                "id": ident,
                "object": "chat.completion",
                "created": created,
                "model": model,
                "choices": [
                    {"index": 0, "message": message, "finish_reason": finish, "logprobs": None}
                ],
                "usage": _chat_usage(body, reply),
            }
        )

    def chunk(delta: dict[str, Any], reason: str | None = None) -> bytes:
        choice = {"index": 0, "delta": delta, "finish_reason": reason, "logprobs": None}
        head = {"id": ident, "object": "chat.completion.chunk", "created": created}
        return sse({**head, "model": model, "choices": [choice]})

    async def stream() -> AsyncIterator[bytes]:
        yield chunk({"role": "assistant", "content": ""})
        if reply.thinking:
            yield chunk({"reasoning_content": reply.thinking})
        if reply.text:
            yield chunk({"content": reply.text})
        if reply.hold:
            await asyncio.sleep(reply.hold)
        for index, call in enumerate(calls):
            yield chunk({"tool_calls": [{"index": index, **call}]})
        yield chunk({}, finish)
        if (body.get("stream_options") or {}).get("include_usage"):
            head = {"id": ident, "object": "chat.completion.chunk", "created": created}
            yield sse({**head, "model": model, "choices": [], "usage": _chat_usage(body, reply)})
        yield b"data: [DONE]\n\n"

    return StreamingResponse(stream(), media_type="text/event-stream")


# -- Responses --


def responses_parse(body: dict[str, Any]) -> Parsed:
    """Instructions, input items, tools and function outputs of a Responses request."""
    parsed = Parsed()
    systems = [body["instructions"]] if body.get("instructions") else []
    items = body.get("input") or []
    if isinstance(items, str):
        items = [{"role": "user", "content": items}]
    for item in items:
        kind = item.get("type", "message")
        if kind == "message":
            role, content = item.get("role", "user"), text_of(item.get("content"))
            if role in ("system", "developer"):
                systems.append(content)
            else:
                parsed.messages.append((role, content))
        elif kind == "function_call_output":
            output = item.get("output")
            text = output if isinstance(output, str) else text_of(output)
            parsed.tool_results.append((item.get("call_id", ""), text))
            parsed.messages.append(("tool", text))
    parsed.system = "\n".join(systems) if systems else None
    parsed.tool_names = [t.get("name", t.get("type", "")) for t in body.get("tools") or []]
    return parsed


def _response(body: dict[str, Any], reply: Reply, status: str) -> dict[str, Any]:
    """A ``response`` object (empty output while ``in_progress``)."""
    prompt = estimate_tokens(len(json.dumps(body.get("input") or "")))
    done = status == "completed"
    return {
        "id": body["_response_id"],
        "object": "response",
        "created_at": body["_created"],
        "status": status,
        "model": body.get("model", "scripted"),
        "output": _output(body, reply) if done else [],
        "output_text": reply.text if done else "",
        "parallel_tool_calls": True,
        "tool_choice": body.get("tool_choice", "auto"),
        "tools": body.get("tools") or [],
        "instructions": body.get("instructions"),
        "metadata": {},
        "error": None,
        "incomplete_details": None,
        "temperature": 1.0,
        "top_p": 1.0,
        "text": {"format": {"type": "text"}},
        "usage": (
            {
                "input_tokens": prompt,
                "input_tokens_details": {"cached_tokens": 0},
                "output_tokens": reply.output_tokens,
                "output_tokens_details": {"reasoning_tokens": 0},
                "total_tokens": prompt + reply.output_tokens,
            }
            if done
            else None
        ),
    }


def _output(body: dict[str, Any], reply: Reply) -> list[dict[str, Any]]:
    """The response's output items: reasoning, the message, the function calls."""
    ids: list[str] = body["_item_ids"]
    items: list[dict[str, Any]] = []
    if reply.thinking:
        summary = [{"type": "summary_text", "text": reply.thinking}]
        items.append({"type": "reasoning", "id": ids[0], "summary": summary})
    if reply.text:
        part = {"type": "output_text", "text": reply.text, "annotations": [], "logprobs": []}
        items.append(
            {
                "type": "message",
                "id": ids[1],
                "status": "completed",
                "role": "assistant",
                "content": [part],
            }
        )
    for index, call in enumerate(reply.calls):
        items.append(
            {
                "type": "function_call",
                "id": ids[2 + index],
                "call_id": call.id,
                "name": call.name,
                "arguments": call.arguments,
                "status": "completed",
            }
        )
    return items


def responses_answer(body: dict[str, Any], reply: Reply) -> Response:
    """A ``response`` (or its ``response.*`` event stream)."""
    body = {
        **body,
        "_response_id": new_id("resp_"),
        "_created": int(time.time()),
        "_item_ids": [new_id("rs_"), new_id("msg_")] + [new_id("fc_") for _ in reply.calls],
    }
    if not body.get("stream"):
        return JSONResponse(_response(body, reply, "completed"))

    async def stream() -> AsyncIterator[bytes]:
        sequence = 0

        def event(kind: str, **data: Any) -> bytes:
            nonlocal sequence
            sequence += 1
            return sse({"type": kind, "sequence_number": sequence - 1, **data}, kind)

        yield event("response.created", response=_response(body, reply, "in_progress"))
        yield event("response.in_progress", response=_response(body, reply, "in_progress"))
        for index, item in enumerate(_output(body, reply)):
            kind, ident = item["type"], item["id"]
            if kind == "message":
                start = {**item, "status": "in_progress", "content": []}
                yield event("response.output_item.added", output_index=index, item=start)
                part = item["content"][0]
                empty = {**part, "text": ""}
                where = {"item_id": ident, "output_index": index, "content_index": 0}
                yield event("response.content_part.added", **where, part=empty)
                yield event("response.output_text.delta", **where, delta=part["text"], logprobs=[])
                if reply.hold:
                    await asyncio.sleep(reply.hold)
                yield event("response.output_text.done", **where, text=part["text"], logprobs=[])
                yield event("response.content_part.done", **where, part=part)
            elif kind == "function_call":
                start = {**item, "status": "in_progress", "arguments": ""}
                yield event("response.output_item.added", output_index=index, item=start)
                where = {"item_id": ident, "output_index": index}
                yield event(
                    "response.function_call_arguments.delta", **where, delta=item["arguments"]
                )
                yield event(
                    "response.function_call_arguments.done",
                    **where,
                    arguments=item["arguments"],
                    name=item["name"],
                )
            else:
                yield event("response.output_item.added", output_index=index, item=item)
            yield event("response.output_item.done", output_index=index, item=item)
        yield event("response.completed", response=_response(body, reply, "completed"))

    return StreamingResponse(stream(), media_type="text/event-stream")
