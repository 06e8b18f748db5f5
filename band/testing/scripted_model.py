"""``ScriptedModel``: a model API on 127.0.0.1 that answers from a script, for testing
model-backed agents offline with the providers' real SDKs.

It speaks OpenAI Chat Completions and Responses, Anthropic Messages (with ``count_tokens``)
and the Gemini API (``generateContent``, ``streamGenerateContent``, ``countTokens``),
streamed and not, closely enough for the official clients (``openai``, ``anthropic``,
``google-genai``) and the frameworks built on them. Each model call, whichever API it
comes through, takes the next scripted turn: text, one tool call or several in parallel,
or an HTTP error in the provider's own error envelope. Every call is recorded::

    with ScriptedModel([ToolTurn("lookup", {"q": "band"}), TextTurn("Found it")]) as model:
        client = openai.OpenAI(base_url=model.openai_base_url, api_key=model.api_key)
        ...
        assert model.requests[1].tool_results == [(call_id, "...")]

When the script runs out the model answers ``when_exhausted`` as text (and records the
call), so a test sees the surplus call instead of hanging.
"""

from __future__ import annotations

import asyncio
import json
import socket
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any, Literal, TypeAlias

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from .models import anthropic, gemini, openai
from .models._reply import Call, Parsed, Reply, new_id

__all__ = [
    "DEFAULT_API_KEY",
    "WHEN_EXHAUSTED",
    "ErrorTurn",
    "ModelRequest",
    "Provider",
    "ScriptedModel",
    "ScriptedTurn",
    "TextTurn",
    "ToolTurn",
]

#: The key a ``ScriptedModel`` accepts unless told another.
DEFAULT_API_KEY = "band-test-key"
#: What the model answers once its script is used up.
WHEN_EXHAUSTED = "(the scripted model has no more turns)"
#: How long ``start`` waits for the server to listen.
START_TIMEOUT_S = 10.0

Provider: TypeAlias = Literal["openai-chat", "openai-responses", "anthropic", "gemini"]


@dataclass(frozen=True)
class TextTurn:
    """The model answers ``text`` and ends its turn.

    ``thinking`` adds a thought before the text (Anthropic ``thinking``, Gemini ``thought``,
    OpenAI reasoning). ``hold`` keeps a streamed answer open that long after its text (a call
    still in flight, for interrupt tests; cut when the client goes away). ``delay`` waits
    before answering.
    """

    text: str
    delay: float = field(default=0.0, kw_only=True)
    thinking: str | None = field(default=None, kw_only=True)
    hold: float = field(default=0.0, kw_only=True)


@dataclass(frozen=True)
class ToolTurn:
    """The model calls the tool ``name`` with ``args`` (a list of these in the script is one
    response with parallel calls).

    The name may be a suffix of the offered tool's (``band_send_message`` finds
    ``mcp__band__band_send_message``). ``id`` fixes the call's id; ``text`` and ``thinking``
    come before the call in the same response.
    """

    name: str
    args: Mapping[str, Any] = field(default_factory=dict)
    delay: float = field(default=0.0, kw_only=True)
    id: str | None = field(default=None, kw_only=True)
    text: str = field(default="", kw_only=True)
    thinking: str | None = field(default=None, kw_only=True)


@dataclass(frozen=True)
class ErrorTurn:
    """The provider answers an HTTP error in its own error envelope.

    ``status`` 429 with ``retry_after`` sets ``Retry-After``; 401 is a bad key; 5xx a server
    fault. ``error`` may give the message (its ``str``) and the status (its ``status_code``).
    """

    error: Exception | None = None
    status: int = field(default=500, kw_only=True)
    message: str | None = field(default=None, kw_only=True)
    retry_after: float | None = field(default=None, kw_only=True)
    delay: float = field(default=0.0, kw_only=True)

    @property
    def http_status(self) -> int:
        """The status answered (an ``error``'s ``status_code`` wins)."""
        code = getattr(self.error, "status_code", None)
        return code if isinstance(code, int) else self.status

    @property
    def text(self) -> str:
        """The error message in the envelope."""
        if self.message is not None:
            return self.message
        if self.error is not None:
            return str(self.error)
        return f"scripted error {self.http_status}"


ScriptedTurn: TypeAlias = TextTurn | ToolTurn | ErrorTurn | Sequence[ToolTurn]
#: A hook that answers a call itself (None: the next scripted turn answers it).
Responder: TypeAlias = Callable[["ModelRequest"], ScriptedTurn | None]


@dataclass
class ModelRequest:
    """One call the model received, in a provider-neutral form beside the raw request.

    ``messages`` is the history as ``(role, text)`` with roles ``user``, ``assistant`` and
    ``tool`` (a tool result's output); ``tool_results`` pairs each result with its call's id
    (Gemini: the id, or the function's name).
    """

    provider: Provider
    path: str
    headers: dict[str, str]
    body: dict[str, Any]
    stream: bool
    model: str
    system: str | None
    messages: list[tuple[str, str]]
    tool_names: list[str]
    tool_results: list[tuple[str, str]]
    #: the HTTP status answered (401 for a wrong key, an ``ErrorTurn``'s status)
    status: int = 200
    #: ``time.monotonic()`` when the call arrived
    received_at: float = 0.0

    @property
    def prompt(self) -> str:
        """The last user message's text ("" when there is none)."""
        users = [text for role, text in self.messages if role == "user"]
        return users[-1] if users else ""


def _key_of(request: Request) -> str | None:
    """The API key the client sent, in whichever header or parameter its SDK uses."""
    auth = request.headers.get("authorization", "")
    if auth.lower().startswith("bearer "):
        return auth[7:].strip()
    return (
        request.headers.get("x-api-key")
        or request.headers.get("x-goog-api-key")
        or request.query_params.get("key")
    )


def _resolve(name: str, offered: list[str]) -> str:
    """The offered tool ``name`` means: itself, or the one offered name ending with it."""
    if name in offered:
        return name
    matches = [o for o in offered if o.endswith(name)]
    return matches[0] if len(matches) == 1 else name


def _reply(turn: TextTurn | Sequence[ToolTurn], offered: list[str], prefix: str) -> Reply:
    """The response a text turn or a list of tool turns describes."""
    if isinstance(turn, TextTurn):
        return Reply(turn.text, turn.thinking, (), turn.hold)
    calls = tuple(
        Call(t.id or new_id(prefix), _resolve(t.name, offered), dict(t.args), t.id is not None)
        for t in turn
    )
    thoughts = [t.thinking for t in turn if t.thinking]
    return Reply("".join(t.text for t in turn), "\n".join(thoughts) or None, calls)


class ScriptedModel:
    """The scripted model API, served by uvicorn in a thread on a free loopback port."""

    def __init__(
        self,
        turns: Sequence[ScriptedTurn] = (),
        *,
        api_key: str = DEFAULT_API_KEY,
        when_exhausted: str = WHEN_EXHAUSTED,
        respond: Responder | None = None,
    ) -> None:
        self.api_key = api_key
        self.when_exhausted = when_exhausted
        #: answers a call before the script does (None from it: the script answers)
        self.respond = respond
        #: one per model call, in order of arrival
        self.requests: list[ModelRequest] = []
        #: what else arrived: token counts, model lists, unknown paths
        self.other_requests: list[ModelRequest] = []
        self.base_url = ""
        self._turns: deque[ScriptedTurn] = deque()
        self._lock = threading.Lock()
        self._arrived = threading.Condition(self._lock)
        self._waiters: list[tuple[asyncio.AbstractEventLoop, asyncio.Event]] = []
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None
        self.script(*turns)
        self.app = Starlette(
            routes=[
                Route("/v1/chat/completions", self._openai_chat, methods=["POST"]),
                Route("/v1/responses", self._openai_responses, methods=["POST"]),
                Route("/v1/models", self._openai_models, methods=["GET"]),
                Route("/v1/messages", self._anthropic, methods=["POST"]),
                Route("/v1/messages/count_tokens", self._anthropic_count, methods=["POST"]),
                Route("/{version:str}/models/{call:path}", self._gemini, methods=["POST"]),
                Route("/{rest:path}", self._other, methods=["GET", "POST", "PUT", "HEAD"]),
            ]
        )

    # -- what a test uses --

    @property
    def openai_base_url(self) -> str:
        """The OpenAI SDK's ``base_url``."""
        return f"{self.base_url}/v1"

    @property
    def anthropic_base_url(self) -> str:
        """The Anthropic SDK's ``base_url``."""
        return self.base_url

    @property
    def gemini_base_url(self) -> str:
        """google-genai's ``http_options`` ``base_url``."""
        return self.base_url

    def env(self) -> dict[str, str]:
        """The environment that points the providers' SDKs (and CLIs) here."""
        return {
            "OPENAI_BASE_URL": self.openai_base_url,
            "OPENAI_API_KEY": self.api_key,
            "ANTHROPIC_BASE_URL": self.anthropic_base_url,
            "ANTHROPIC_API_KEY": self.api_key,
            "GOOGLE_GEMINI_BASE_URL": self.gemini_base_url,
            "GEMINI_API_KEY": self.api_key,
            "GOOGLE_API_KEY": self.api_key,
        }

    def script(self, *turns: ScriptedTurn) -> None:
        """Append turns; each model call takes the next one."""
        with self._lock:
            for turn in turns:
                if not isinstance(turn, TextTurn | ToolTurn | ErrorTurn):
                    turn = tuple(turn)
                    if not turn or not all(isinstance(t, ToolTurn) for t in turn):
                        raise TypeError("a list in the script must hold ToolTurns only")
                self._turns.append(turn)

    @property
    def remaining(self) -> int:
        """How many scripted turns no call has taken yet."""
        with self._lock:
            return len(self._turns)

    async def wait_for_requests(self, count: int, timeout: float = 30.0) -> list[ModelRequest]:
        """Wait until ``count`` model calls have arrived; all calls so far."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            arrived = asyncio.Event()
            with self._lock:
                if len(self.requests) >= count:
                    return list(self.requests)
                self._waiters.append((loop, arrived))
            try:
                await asyncio.wait_for(arrived.wait(), max(0.0, deadline - loop.time()))
            except TimeoutError:
                raise TimeoutError(self._late(count)) from None

    def wait_for_requests_sync(self, count: int, timeout: float = 30.0) -> list[ModelRequest]:
        """:meth:`wait_for_requests` for synchronous tests."""
        with self._arrived:
            if not self._arrived.wait_for(lambda: len(self.requests) >= count, timeout):
                raise TimeoutError(self._late(count))
            return list(self.requests)

    def _late(self, count: int) -> str:
        return f"{len(self.requests)} of {count} model calls arrived in time"

    # -- lifecycle --

    def start(self) -> ScriptedModel:
        """Serve on a free loopback port until :meth:`stop`."""
        if self._server is not None:
            return self
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", 0))
        self.base_url = f"http://127.0.0.1:{sock.getsockname()[1]}"
        config = uvicorn.Config(self.app, log_level="warning", lifespan="off")
        server = uvicorn.Server(config)
        thread = threading.Thread(
            target=server.run, kwargs={"sockets": [sock]}, name="scripted-model", daemon=True
        )
        self._server, self._thread = server, thread
        thread.start()
        deadline = time.monotonic() + START_TIMEOUT_S
        while not server.started:
            if not thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the scripted model server did not start")
            time.sleep(0.005)  # start-up poll: uvicorn offers no event to wait on
        return self

    def stop(self) -> None:
        """Stop serving (open streams are cut)."""
        server, thread = self._server, self._thread
        self._server = self._thread = None
        if server is not None:
            server.should_exit = True
            server.force_exit = True
        if thread is not None:
            thread.join(START_TIMEOUT_S)

    def __enter__(self) -> ScriptedModel:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    async def __aenter__(self) -> ScriptedModel:
        return await asyncio.to_thread(self.start)

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await asyncio.to_thread(self.stop)

    # -- serving --

    def _record(self, request: ModelRequest, into: list[ModelRequest]) -> None:
        with self._lock:
            into.append(request)
            waiters, self._waiters = self._waiters, []
            self._arrived.notify_all()
        for loop, event in waiters:
            if not loop.is_closed():
                loop.call_soon_threadsafe(event.set)

    def _next(self, request: ModelRequest) -> ScriptedTurn:
        if self.respond is not None:
            answer = self.respond(request)
            if answer is not None:
                return answer
        with self._lock:
            return self._turns.popleft() if self._turns else TextTurn(self.when_exhausted)

    async def _call(
        self,
        request: Request,
        provider: Provider,
        parse: Callable[[dict[str, Any]], Parsed],
        answer: Callable[[dict[str, Any], Reply], Response],
        error: Callable[[int, str], JSONResponse],
        *,
        model: str | None = None,
        stream: bool | None = None,
    ) -> Response:
        """One model call: record it, take its turn, answer in the provider's shape."""
        try:
            body = await request.json()
        except ValueError:
            return error(400, "the request body is not JSON")
        if not isinstance(body, dict):
            return error(400, "the request body is not a JSON object")
        parsed = parse(body)
        call = ModelRequest(
            provider=provider,
            path=request.url.path,
            headers=dict(request.headers),
            body=body,
            stream=bool(body.get("stream")) if stream is None else stream,
            model=model if model is not None else str(body.get("model", "")),
            system=parsed.system,
            messages=parsed.messages,
            tool_names=parsed.tool_names,
            tool_results=parsed.tool_results,
            received_at=time.monotonic(),
        )
        if _key_of(request) != self.api_key:
            call.status = 401
            self._record(call, self.requests)
            return error(401, "Invalid API key (the scripted model accepts its own key only)")
        turn = self._next(call)
        if isinstance(turn, ErrorTurn):
            call.status = turn.http_status
            self._record(call, self.requests)
            await asyncio.sleep(turn.delay)
            response = error(turn.http_status, turn.text)
            if turn.retry_after is not None:
                response.headers["retry-after"] = f"{turn.retry_after:g}"
            return response
        self._record(call, self.requests)
        tools = turn if isinstance(turn, TextTurn | ToolTurn) else tuple(turn)
        delays = (
            [tools.delay] if isinstance(tools, TextTurn | ToolTurn) else [t.delay for t in tools]
        )
        if isinstance(tools, ToolTurn):
            tools = (tools,)
        prefix = "toolu_" if provider == "anthropic" else "call_"
        await asyncio.sleep(max(delays))
        return answer(body, _reply(tools, call.tool_names, prefix))

    async def _openai_chat(self, request: Request) -> Response:
        return await self._call(
            request, "openai-chat", openai.chat_parse, openai.chat_answer, openai.error
        )

    async def _openai_responses(self, request: Request) -> Response:
        return await self._call(
            request,
            "openai-responses",
            openai.responses_parse,
            openai.responses_answer,
            openai.error,
        )

    async def _anthropic(self, request: Request) -> Response:
        return await self._call(
            request, "anthropic", anthropic.parse, anthropic.answer, anthropic.error
        )

    async def _gemini(self, request: Request) -> Response:
        model, _, method = request.path_params["call"].partition(":")
        if method == "countTokens":
            body = await self._other_body(request, "gemini", model)
            return gemini.count_tokens(body)
        if method not in ("generateContent", "streamGenerateContent"):
            return await self._other(request)
        stream = method == "streamGenerateContent"
        return await self._call(
            request,
            "gemini",
            gemini.parse,
            lambda body, reply: gemini.answer(body, reply, stream),
            gemini.error,
            model=model,
            stream=stream,
        )

    async def _anthropic_count(self, request: Request) -> Response:
        body = await self._other_body(request, "anthropic", None)
        return anthropic.count_tokens(body)

    async def _openai_models(self, request: Request) -> Response:
        self._record(_other_request(request, "openai-chat", {}, ""), self.other_requests)
        models = [{"id": "scripted", "object": "model", "created": 0, "owned_by": "band"}]
        return JSONResponse({"object": "list", "data": models})

    async def _other_body(
        self, request: Request, provider: Provider, model: str | None
    ) -> dict[str, Any]:
        try:
            body = await request.json()
        except ValueError:
            body = {}
        body = body if isinstance(body, dict) else {}
        name = model if model is not None else str(body.get("model", ""))
        self._record(_other_request(request, provider, body, name), self.other_requests)
        return body

    async def _other(self, request: Request) -> Response:
        """Anything else (an agent's start-up probes): recorded, answered 404 at once."""
        raw = await request.body()
        try:
            body = json.loads(raw) if raw else {}
        except ValueError:
            body = {}
        body = body if isinstance(body, dict) else {}
        self._record(_other_request(request, "openai-chat", body, ""), self.other_requests)
        return JSONResponse({"error": {"message": "not served here"}}, status_code=404)


def _other_request(
    request: Request, provider: Provider, body: dict[str, Any], model: str
) -> ModelRequest:
    return ModelRequest(
        provider=provider,
        path=f"{request.method} {request.url.path}",
        headers=dict(request.headers),
        body=body,
        stream=False,
        model=model,
        system=None,
        messages=[],
        tool_names=[],
        tool_results=[],
        received_at=time.monotonic(),
    )
