"""A scripted model provider on 127.0.0.1: the Anthropic Messages and OpenAI Chat Completions
endpoints over real HTTP, answering each request with the next scripted reply.

The providers' own SDKs talk to it through their ``base_url``; it records every request
body, so a test checks what the adapter sent as well as what it did with the answers.
"""

from __future__ import annotations

import asyncio
import json
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

#: a scripted reply: a JSON body (status 200), ``(status, body)``, or a function of the request
Reply = dict[str, Any] | tuple[int, dict[str, Any]] | Callable[[dict[str, Any]], Any]


class ScriptedProvider:
    """Serves ``replies`` in order on ``/v1/messages`` and ``/v1/chat/completions``."""

    def __init__(self) -> None:
        self.replies: list[Reply] = []
        self.requests: list[dict[str, Any]] = []
        self.url = ""

    def script(self, *replies: Reply) -> None:
        """Queue replies for the next requests."""
        self.replies.extend(replies)

    async def _serve(self, request: Request) -> JSONResponse:
        body = json.loads(await request.body())
        self.requests.append(body)
        if not self.replies:
            err = {"type": "error", "error": {"type": "api_error", "message": "script exhausted"}}
            return JSONResponse(err, status_code=500)
        reply = self.replies.pop(0)
        if callable(reply):
            reply = reply(body)
        status, payload = reply if isinstance(reply, tuple) else (200, reply)
        return JSONResponse(payload, status_code=status)


@contextmanager
def scripted_provider() -> Iterator[ScriptedProvider]:
    """A started ``ScriptedProvider`` (uvicorn in a thread on a free port)."""
    provider = ScriptedProvider()
    app = Starlette(
        routes=[
            Route("/v1/messages", provider._serve, methods=["POST"]),
            Route("/v1/chat/completions", provider._serve, methods=["POST"]),
        ]
    )
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
    thread = threading.Thread(target=asyncio.run, args=(server.serve(sockets=[sock]),), daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        assert time.monotonic() < deadline, "the scripted provider did not start"
        time.sleep(0.01)
    provider.url = f"http://127.0.0.1:{sock.getsockname()[1]}"
    try:
        yield provider
    finally:
        server.should_exit = True
        thread.join(10)
        sock.close()


# --- Anthropic Messages API shapes ----------------------------------------------------------


def anthropic_tool_use(*calls: tuple[str, dict[str, Any]], text: str = "") -> dict[str, Any]:
    """A Messages response calling ``calls`` (name, input) in order."""
    content: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
    content += [
        {"type": "tool_use", "id": f"toolu_{i}_{name}", "name": name, "input": args}
        for i, (name, args) in enumerate(calls)
    ]
    return _anthropic(content, "tool_use")


def anthropic_text(text: str) -> dict[str, Any]:
    """A Messages response that ends the turn with ``text``."""
    return _anthropic([{"type": "text", "text": text}] if text else [], "end_turn")


def _anthropic(content: list[dict[str, Any]], stop: str) -> dict[str, Any]:
    return {
        "id": "msg_scripted",
        "type": "message",
        "role": "assistant",
        "model": "scripted",
        "content": content,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": {"input_tokens": 11, "output_tokens": 7},
    }


def anthropic_error(status: int, message: str) -> tuple[int, dict[str, Any]]:
    """A Messages API error response."""
    return status, {"type": "error", "error": {"type": "invalid_request_error", "message": message}}


# --- OpenAI Chat Completions shapes ---------------------------------------------------------


def openai_tool_calls(*calls: tuple[str, Any]) -> dict[str, Any]:
    """A completion calling ``calls`` (name, arguments: a dict, or a raw string) in order."""
    tool_calls = [
        {
            "id": f"call_{i}_{name}",
            "type": "function",
            "function": {
                "name": name,
                "arguments": args if isinstance(args, str) else json.dumps(args),
            },
        }
        for i, (name, args) in enumerate(calls)
    ]
    return _openai({"role": "assistant", "content": None, "tool_calls": tool_calls}, "tool_calls")


def openai_text(text: str) -> dict[str, Any]:
    """A completion that ends the turn with ``text``."""
    return _openai({"role": "assistant", "content": text}, "stop")


def _openai(message: dict[str, Any], finish: str) -> dict[str, Any]:
    return {
        "id": "chatcmpl-scripted",
        "object": "chat.completion",
        "created": 0,
        "model": "scripted",
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": {"prompt_tokens": 13, "completion_tokens": 5, "total_tokens": 18},
    }
