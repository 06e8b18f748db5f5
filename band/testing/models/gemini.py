"""The Gemini API (``v1beta``) ScriptedModel serves: ``generateContent``,
``streamGenerateContent`` (``alt=sse``), ``countTokens``, and Google's error envelope."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

from starlette.responses import JSONResponse, Response, StreamingResponse

from ._reply import Parsed, Reply, estimate_tokens, text_of

__all__ = ["answer", "count_tokens", "error", "parse"]

#: Google's error ``status`` by HTTP status.
ERROR_STATUSES = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    429: "RESOURCE_EXHAUSTED",
    500: "INTERNAL",
    503: "UNAVAILABLE",
    504: "DEADLINE_EXCEEDED",
}


def error(status: int, message: str) -> JSONResponse:
    """Google's ``{"error": {"code", "message", "status"}}`` envelope."""
    kind = ERROR_STATUSES.get(status, "UNKNOWN")
    body = {"error": {"code": status, "message": message, "status": kind}}
    return JSONResponse(body, status_code=status)


def parse(body: dict[str, Any]) -> Parsed:
    """System instruction, contents, function declarations and function responses."""
    system = body.get("systemInstruction") or body.get("system_instruction")
    parsed = Parsed(system=text_of(system.get("parts")) if system else None)
    for content in body.get("contents") or []:
        role = "assistant" if content.get("role") == "model" else content.get("role", "user")
        texts: list[str] = []
        for part in content.get("parts") or []:
            response = part.get("functionResponse") or part.get("function_response")
            if response is not None:
                output = response.get("response")
                text = json.dumps(output) if not isinstance(output, str) else output
                parsed.tool_results.append((response.get("id") or response.get("name", ""), text))
                parsed.messages.append(("tool", text))
            elif "text" in part and not part.get("thought"):
                texts.append(part["text"])
        if texts or role == "assistant":  # a model turn of function calls only counts too
            parsed.messages.append((role, "".join(texts)))
    for tool in body.get("tools") or []:
        declarations = tool.get("functionDeclarations") or tool.get("function_declarations") or []
        parsed.tool_names += [d.get("name", "") for d in declarations]
    return parsed


def _prompt_tokens(body: dict[str, Any]) -> int:
    sent = [body.get("systemInstruction"), body.get("contents"), body.get("tools")]
    return estimate_tokens(len(json.dumps(sent)))


def count_tokens(body: dict[str, Any]) -> JSONResponse:
    """``:countTokens``: the same estimate a response's usage reports."""
    request = body.get("generateContentRequest") or body
    return JSONResponse({"totalTokens": _prompt_tokens(request)})


def answer(body: dict[str, Any], reply: Reply, stream: bool) -> Response:
    """A ``GenerateContentResponse`` (streamed: its text chunk first, then the rest)."""
    parts: list[dict[str, Any]] = []
    if reply.thinking:
        parts.append({"text": reply.thinking, "thought": True})
    if reply.text:
        parts.append({"text": reply.text})
    for call in reply.calls:
        function: dict[str, Any] = {"name": call.name, "args": dict(call.args)}
        if call.scripted_id:
            function["id"] = call.id
        parts.append({"functionCall": function})
    prompt = _prompt_tokens(body)
    usage = {
        "promptTokenCount": prompt,
        "candidatesTokenCount": reply.output_tokens,
        "totalTokenCount": prompt + reply.output_tokens,
    }

    def chunk(chunk_parts: list[dict[str, Any]], final: bool) -> dict[str, Any]:
        candidate: dict[str, Any] = {
            "content": {"role": "model", "parts": chunk_parts or [{"text": ""}]},
            "index": 0,
        }
        if final:
            candidate["finishReason"] = "STOP"
        return {"candidates": [candidate], "usageMetadata": usage, "modelVersion": "scripted"}

    if not stream:
        return JSONResponse(chunk(parts, True))

    async def events() -> AsyncIterator[bytes]:
        if reply.hold:
            text_parts = [p for p in parts if "functionCall" not in p]
            yield f"data: {json.dumps(chunk(text_parts, False))}\r\n\r\n".encode()
            await asyncio.sleep(reply.hold)  # cancelled when the client goes away
            rest = [p for p in parts if "functionCall" in p]
            yield f"data: {json.dumps(chunk(rest, True))}\r\n\r\n".encode()
        else:
            yield f"data: {json.dumps(chunk(parts, True))}\r\n\r\n".encode()

    return StreamingResponse(events(), media_type="text/event-stream")
