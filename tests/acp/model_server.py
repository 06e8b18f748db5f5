"""A scripted model API on 127.0.0.1 for the real coding agents (Claude Code, Gemini CLI).

It serves the Anthropic Messages API (``POST /v1/messages``, streamed as SSE or not, and
``/v1/messages/count_tokens``) and the Gemini ``v1beta`` API (``:streamGenerateContent`` and
``:generateContent``, ``:countTokens``). The "model" follows a script written in the turn's
user message, the last ``[[ step; step; ... ]]`` block, one model response per tool step:

* ``say <text>``: text in the current response (held by the adapter, posted as a thought).
* ``think <text>``: a thought in the current response (Anthropic ``thinking``, Gemini
  ``thought`` part).
* ``reply <text>``: call ``band_send_message`` mentioning the requester (the system context's
  ``Current requester id: <id>``); ends the response.
* ``bash <command>``: call the agent's own shell tool (Claude Code ``Bash``, Gemini
  ``run_shell_command``), which asks the client for permission; ends the response.
* ``wait``: stream the response's text so far, then hang until the client goes away (the
  agent cancels the request when the turn is interrupted); only the first time the script is
  seen (a message run again after a restart is answered at once).

A script's steps after the last tool step end the turn (``end_turn`` / ``STOP``). Requests
without the Band tools (an agent's own side queries: titles, routing) get a neutral answer.
Every request is recorded (``requests``) so tests can see what the agents asked.
"""

from __future__ import annotations

import asyncio
import json
import re
import socket
import threading
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

__all__ = ["Answer", "ModelServer", "Step", "model_server", "parse_script"]

SCRIPT = re.compile(r"\[\[(.*?)\]\]", re.S)
REQUESTER = re.compile(r"Current requester id: (\S+)")
TOOL_STEPS = frozenset({"reply", "bash"})
#: Gemini CLI's side queries that want JSON (model routing, next speaker) all parse this.
NEUTRAL_JSON = {
    "reasoning": "scripted",
    "model_choice": "flash",
    "complexity_reasoning": "scripted",
    "complexity_score": 1,
    "next_speaker": "user",
}
#: How long ``wait`` hangs at most (the agent normally aborts the request long before).
WAIT_S = 120.0


@dataclass
class Step:
    """One script step."""

    verb: str
    arg: str


@dataclass
class Answer:
    """What the model answers at one point of the script."""

    texts: list[str] = field(default_factory=list)
    thoughts: list[str] = field(default_factory=list)
    tool: Step | None = None
    wait: bool = False


def parse_script(text: str) -> list[Answer]:
    """The model's responses for the last ``[[...]]`` block of ``text``, one per tool step."""
    blocks = SCRIPT.findall(text)
    if not blocks:
        return [Answer(texts=["(no script)"])]
    responses = [Answer()]
    for raw in blocks[-1].split(";"):
        verb, _, arg = raw.strip().partition(" ")
        current = responses[-1]
        if verb == "say":
            current.texts.append(arg)
        elif verb == "think":
            current.thoughts.append(arg)
        elif verb == "wait":
            current.wait = True
        elif verb in TOOL_STEPS:
            current.tool = Step(verb, arg)
            responses.append(Answer())
    return responses


def _texts(value: Any) -> Iterator[str]:
    """Every text string inside a request body (messages, parts, system prompts)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for item in value:
            yield from _texts(item)
    elif isinstance(value, dict):
        for key, item in value.items():
            if key in ("text", "content", "system", "systemInstruction", "parts", "messages"):
                yield from _texts(item)
            elif key == "contents":
                yield from _texts(item)


def requester(body: Any) -> str:
    """The requester id the adapter's system context names (the last one), or ``unknown``."""
    found = REQUESTER.findall("\n".join(_texts(body)))
    return found[-1] if found else "unknown"


def _tool_named(names: list[str], suffix: str) -> str:
    """The declared tool whose name ends with ``suffix`` (agents prefix MCP tools)."""
    for name in names:
        if name == suffix or name.endswith(suffix):
            return name
    return suffix


def _progress(turns: list[tuple[str, list[Any]]]) -> tuple[str, int]:
    """(the turn's script text, how many model responses it already got) from the history,
    where ``turns`` is the conversation as (role, blocks) with roles ``user``/``model``."""
    for index in range(len(turns) - 1, -1, -1):
        role, blocks = turns[index]
        text = "\n".join(_texts(blocks))
        if role == "user" and "[[" in text:
            done = sum(1 for r, _ in turns[index + 1 :] if r == "model")
            return text, done
    return "", 0


class ModelServer:
    """The scripted model API, served by uvicorn in a thread on a loopback port."""

    def __init__(self) -> None:
        self.requests: list[tuple[str, Any]] = []
        #: scripts whose ``wait`` already hung once (a turn run again answers at once)
        self._waited: set[str] = set()
        self.url = ""
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None
        self.app = Starlette(
            routes=[
                Route("/v1/messages", self.anthropic, methods=["POST"]),
                Route("/v1/messages/count_tokens", self.anthropic_count, methods=["POST"]),
                Route("/v1beta/models/{call:path}", self.gemini, methods=["POST"]),
                Route("/{rest:path}", self.other, methods=["GET", "POST", "PUT", "HEAD"]),
            ]
        )

    # -- lifecycle --

    def start(self) -> None:
        """Serve on a free loopback port until :meth:`stop`."""
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{sock.getsockname()[1]}"
        config = uvicorn.Config(self.app, log_level="warning", lifespan="off")
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": [sock]}, daemon=True
        )
        self._thread.start()
        deadline = time.monotonic() + 10
        while not self._server.started:
            assert time.monotonic() < deadline, "the model server did not start"
            time.sleep(0.01)

    def stop(self) -> None:
        """Stop serving (open streams are cut)."""
        if self._server is not None:
            self._server.should_exit = True
            self._server.force_exit = True
        if self._thread is not None:
            self._thread.join(10)

    def paths(self) -> list[str]:
        """The paths requested so far, in order."""
        return [p for p, _ in self.requests]

    # -- Anthropic Messages API --

    async def anthropic(self, request: Request) -> Response | StreamingResponse | JSONResponse:
        body = await request.json()
        self.requests.append((request.url.path, body))
        tools = [t.get("name", "") for t in body.get("tools") or []]
        if not any(name.endswith("band_send_message") for name in tools):
            blocks: list[dict[str, Any]] = [{"type": "text", "text": "Band room"}]
            return self._anthropic_reply(body, blocks, "end_turn")
        turns = [
            ("model" if m.get("role") == "assistant" else "user", m.get("content"))
            for m in body.get("messages") or []
        ]
        text, done = _progress(turns)
        script = parse_script(text)
        step = script[min(done, len(script) - 1)] if done < len(script) else Answer()
        blocks = []
        for thought in step.thoughts:
            blocks.append({"type": "thinking", "thinking": thought, "signature": "sig"})
        for said in step.texts:
            blocks.append({"type": "text", "text": said})
        stop = "end_turn"
        if step.tool is not None:
            blocks.append(self._anthropic_tool(step.tool, tools, body))
            stop = "tool_use"
        if not body.get("stream"):
            return self._anthropic_reply(body, blocks, stop)
        return StreamingResponse(
            self._anthropic_stream(body, blocks, stop, self._hang(text, step)),
            media_type="text/event-stream",
        )

    def _hang(self, script: str, step: Answer) -> bool:
        """Whether this response hangs (``wait``, the first time its script is seen)."""
        if not step.wait or script in self._waited:
            return False
        self._waited.add(script)
        return True

    @staticmethod
    def _anthropic_tool(step: Step, tools: list[str], body: Any) -> dict[str, Any]:
        call = f"toolu_{uuid.uuid4().hex[:20]}"
        if step.verb == "reply":
            name = _tool_named(tools, "band_send_message")
            args: dict[str, Any] = {"content": step.arg, "mentions": [requester(body)]}
        else:
            name = "Bash"
            args = {"command": step.arg, "description": "Run a command"}
        return {"type": "tool_use", "id": call, "name": name, "input": args}

    @staticmethod
    def _anthropic_message(body: Any, blocks: list[dict[str, Any]], stop: str) -> dict[str, Any]:
        return {
            "id": f"msg_{uuid.uuid4().hex[:20]}",
            "type": "message",
            "role": "assistant",
            "model": body.get("model", "claude-scripted"),
            "content": blocks,
            "stop_reason": stop,
            "stop_sequence": None,
            "usage": {"input_tokens": 10, "output_tokens": 10},
        }

    def _anthropic_reply(self, body: Any, blocks: list[dict[str, Any]], stop: str) -> Any:
        if body.get("stream"):
            return StreamingResponse(
                self._anthropic_stream(body, blocks, stop, False), media_type="text/event-stream"
            )
        return JSONResponse(self._anthropic_message(body, blocks, stop))

    async def _anthropic_stream(
        self, body: Any, blocks: list[dict[str, Any]], stop: str, wait: bool
    ) -> AsyncIterator[bytes]:
        def sse(kind: str, data: dict[str, Any]) -> bytes:
            return f"event: {kind}\ndata: {json.dumps({'type': kind, **data})}\n\n".encode()

        message = self._anthropic_message(body, [], stop)
        message.update(stop_reason=None, usage={"input_tokens": 10, "output_tokens": 1})
        yield sse("message_start", {"message": message})
        for index, block in enumerate(blocks):
            kind = block["type"]
            if kind == "text":
                yield sse(
                    "content_block_start",
                    {"index": index, "content_block": {"type": "text", "text": ""}},
                )
                delta = {"type": "text_delta", "text": block["text"]}
                yield sse("content_block_delta", {"index": index, "delta": delta})
            elif kind == "thinking":
                start = {"type": "thinking", "thinking": "", "signature": ""}
                yield sse("content_block_start", {"index": index, "content_block": start})
                delta = {"type": "thinking_delta", "thinking": block["thinking"]}
                yield sse("content_block_delta", {"index": index, "delta": delta})
                delta = {"type": "signature_delta", "signature": block["signature"]}
                yield sse("content_block_delta", {"index": index, "delta": delta})
            else:
                start = {**block, "input": {}}
                yield sse("content_block_start", {"index": index, "content_block": start})
                delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
                yield sse("content_block_delta", {"index": index, "delta": delta})
            yield sse("content_block_stop", {"index": index})
        if wait:
            await asyncio.sleep(WAIT_S)  # cancelled when the agent aborts the request
        yield sse(
            "message_delta",
            {"delta": {"stop_reason": stop, "stop_sequence": None}, "usage": {"output_tokens": 10}},
        )
        yield sse("message_stop", {})

    async def anthropic_count(self, request: Request) -> JSONResponse:
        self.requests.append((request.url.path, await request.json()))
        return JSONResponse({"input_tokens": 10})

    # -- Gemini v1beta --

    async def gemini(self, request: Request) -> Response | StreamingResponse | JSONResponse:
        call = request.path_params["call"]
        body = await request.json()
        self.requests.append((request.url.path, body))
        if call.endswith(":countTokens"):
            return JSONResponse({"totalTokens": 10})
        declared = [
            d.get("name", "")
            for t in body.get("tools") or []
            for d in t.get("functionDeclarations") or []
        ]
        if not any(name.endswith("band_send_message") for name in declared):
            # a side query (routing, next speaker, titles): neutral JSON or text
            config = body.get("generationConfig") or {}
            neutral = (
                json.dumps(NEUTRAL_JSON)
                if config.get("responseMimeType") == "application/json"
                else "ok"
            )
            parts: list[dict[str, Any]] = [{"text": neutral}]
            return self._gemini_reply(call, parts, False)
        turns = [(c.get("role", "user"), c.get("parts")) for c in body.get("contents") or []]
        text, done = _progress(turns)
        script = parse_script(text)
        step = script[done] if done < len(script) else Answer()
        parts = [{"text": t, "thought": True} for t in step.thoughts]
        parts += [{"text": t} for t in step.texts]
        if step.tool is not None:
            if step.tool.verb == "reply":
                name = _tool_named(declared, "band_send_message")
                args: dict[str, Any] = {"content": step.tool.arg, "mentions": [requester(body)]}
            else:
                name, args = "run_shell_command", {"command": step.tool.arg}
            parts.append({"functionCall": {"name": name, "args": args}})
        if not parts:
            parts = [{"text": ""}]
        return self._gemini_reply(call, parts, self._hang(text, step))

    def _gemini_reply(self, call: str, parts: list[dict[str, Any]], wait: bool) -> Any:
        chunk = {
            "candidates": [
                {"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}
            ],
            "usageMetadata": {
                "promptTokenCount": 10,
                "candidatesTokenCount": 10,
                "totalTokenCount": 20,
            },
            "modelVersion": "gemini-scripted",
        }
        if ":streamGenerateContent" not in call:
            return JSONResponse(chunk)

        async def stream() -> AsyncIterator[bytes]:
            if wait:
                # the text streamed so far, then hang: an interrupt aborts the request
                first = {"candidates": [{"content": {"role": "model", "parts": parts}, "index": 0}]}
                yield f"data: {json.dumps(first)}\r\n\r\n".encode()
                await asyncio.sleep(WAIT_S)
            yield f"data: {json.dumps(chunk)}\r\n\r\n".encode()

        return StreamingResponse(stream(), media_type="text/event-stream")

    async def other(self, request: Request) -> Response:
        """Anything else the agents ask at start: recorded, answered 404 at once."""
        self.requests.append((f"{request.method} {request.url.path}", None))
        return JSONResponse({"error": {"message": "not served here"}}, status_code=404)


def model_server() -> Iterator[ModelServer]:
    """A started :class:`ModelServer`, stopped afterwards (for a module fixture)."""
    server = ModelServer()
    server.start()
    try:
        yield server
    finally:
        server.stop()
