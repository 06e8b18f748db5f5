"""``GeminiAdapter``: Gemini through Google's Gen AI SDK (google-genai), in a platform-tool loop.

band-sdk 6.0.1's constructor::

    adapter = GeminiAdapter(
        GeminiAdapterConfig(model="gemini-3.8-flash", custom_section="You answer briefly."),
        capabilities=Capability.MEMORY,
    )

The client reads ``GEMINI_API_KEY`` / ``GOOGLE_API_KEY`` unless ``provider_key`` is set, and
``GOOGLE_GEMINI_BASE_URL``; it is built on the first turn (``adapter.client`` may be set to
another ``google.genai.Client`` before). Needs the [gemini] extra (``google-genai``).
"""

from __future__ import annotations

from band._extras import require_module

require_module("gemini", "GeminiAdapter")  # an optional dependency: say how to get it

import asyncio  # noqa: E402 -- after the extra check, which names what is missing
import logging  # noqa: E402
from collections.abc import Mapping, Sequence  # noqa: E402
from typing import Any  # noqa: E402

import httpx  # noqa: E402
from google import genai  # noqa: E402
from google.genai import errors, types  # noqa: E402
from pydantic import NonNegativeFloat, NonNegativeInt, PositiveInt  # noqa: E402

from band.converters.gemini import GeminiHistoryConverter, GeminiMessages  # noqa: E402
from band.core.protocols import AgentToolsProtocol  # noqa: E402
from band.core.turn import AgentFailure  # noqa: E402
from band.core.types import PlatformMessage  # noqa: E402
from band.core.wire import JsonObject  # noqa: E402
from band.runtime.tools.custom import custom_tools_to_schemas  # noqa: E402

from ._model import (  # noqa: E402
    GENERIC_PROVIDER_FAILURE_MESSAGE,
    ModelAdapter,
    ModelReply,
    PromptConfig,
    ProviderResponse,
    ToolRequest,
    ToolRun,
)

__all__ = ["GEMINI_MODEL", "GeminiAdapter", "GeminiAdapterConfig"]

log = logging.getLogger("band.adapters.gemini")

#: The model a ``GeminiAdapterConfig`` names by default (band-sdk 6.0.1's default).
GEMINI_MODEL = "gemini-3.8-flash"


class GeminiAdapterConfig(PromptConfig):
    """Settings of :class:`GeminiAdapter` (band-sdk 6.0.1's fields).

    ``max_retries`` retries a call after a server (5xx) or transport error, waiting
    ``retry_base_delay_s`` and doubling; ``max_tool_rounds`` bounds the model calls of a
    turn; ``max_history_messages`` the contents kept per room.
    """

    model: str = GEMINI_MODEL
    max_output_tokens: PositiveInt | None = None
    temperature: float | None = None
    max_tool_rounds: PositiveInt = 20
    max_retries: NonNegativeInt = 2
    retry_base_delay_s: NonNegativeFloat = 1.0
    max_history_messages: PositiveInt = 200


class GeminiAdapter(ModelAdapter[GeminiMessages, GeminiAdapterConfig]):
    """Runs each turn as a Gemini function-calling loop over the platform tools (and custom
    tools), automatic function calling off."""

    PROVIDER = "gemini"
    API_NAME = "Gemini"
    CLIENT = ("google.genai", "Client")

    def _extra(self) -> str:
        return "gemini"

    def _make_client(self) -> Any:
        """None: the client is built on the first turn, so an adapter builds without a key."""
        return None

    def _ensure_client(self) -> Any:
        if self.client is None:
            self.client = genai.Client(api_key=self.config.provider_key)
        return self.client

    def _defaults(self) -> tuple[GeminiAdapterConfig, GeminiHistoryConverter]:
        """A default config and a new history converter."""
        return GeminiAdapterConfig(), GeminiHistoryConverter()

    def _platform_schemas(self, tools: AgentToolsProtocol) -> Sequence[Mapping[str, object]]:
        """The platform tools as OpenAI function schemas (made declarations in _complete)."""
        return tools.get_openai_tool_schemas(capabilities=self.features.capabilities)

    def _tool_schemas(self, tools: AgentToolsProtocol) -> list[Mapping[str, object]]:
        """The platform and custom tools as Gemini function declarations."""
        schemas = [*self._platform_schemas(tools)]
        schemas.extend(custom_tools_to_schemas(self._custom_tools, "openai"))
        declarations: list[Mapping[str, object]] = []
        for schema in schemas:
            fn: Any = schema["function"]
            declarations.append(
                {
                    "name": fn["name"],
                    "description": fn.get("description") or "",
                    "parameters_json_schema": fn.get("parameters") or {"type": "object"},
                }
            )
        return declarations

    def _user_messages(self, texts: list[str]) -> list[JsonObject]:
        """One user content with a text part each (Gemini alternates user and model)."""
        return [{"role": "user", "parts": [{"text": text} for text in texts]}]

    def _assistant_message(self, text: str) -> JsonObject:
        return {"role": "model", "parts": [{"text": text}]}

    def _max_rounds(self) -> int:
        return self.config.max_tool_rounds

    async def _complete(
        self, messages: list[JsonObject], schemas: list[Mapping[str, object]]
    ) -> ProviderResponse:
        """One generate_content call, retried after a server or transport error."""
        config = types.GenerateContentConfig(
            system_instruction=self._system_prompt or None,
            tools=[types.Tool(function_declarations=schemas)] if schemas else None,  # type: ignore[arg-type]
            automatic_function_calling=types.AutomaticFunctionCallingConfig(disable=True),
            max_output_tokens=self.config.max_output_tokens,
            temperature=self.config.temperature,
        )
        client = self._ensure_client()
        for attempt in range(self.config.max_retries + 1):
            try:
                return await client.aio.models.generate_content(
                    model=self.config.model, contents=messages, config=config
                )
            except (errors.ServerError, httpx.TimeoutException, httpx.TransportError) as exc:
                if attempt >= self.config.max_retries:
                    raise
                delay = self.config.retry_base_delay_s * 2**attempt
                log.warning("Gemini call failed (%s); retrying in %.2fs", exc, delay)
                await asyncio.sleep(delay)
        raise AssertionError("unreachable")  # the loop returns or raises

    def _failure(self, exc: Exception) -> AgentFailure:
        """A server error with its status and message (band-sdk 6.0.1's metadata); anything
        else the generic failure (a client error's text stays in the log)."""
        if isinstance(exc, errors.ServerError):
            status = None if exc.status is None else str(exc.status)
            return AgentFailure(self.PROVIDER, str(exc), status, exc.message)
        return AgentFailure(self.PROVIDER, GENERIC_PROVIDER_FAILURE_MESSAGE)

    def _usage(self, response: ProviderResponse) -> dict[str, object]:
        """Prompt, output (thinking included) and cached token counts."""
        u = response.usage_metadata
        output = (getattr(u, "candidates_token_count", 0) or 0) + (
            getattr(u, "thoughts_token_count", 0) or 0
        )
        return {
            "input_tokens": getattr(u, "prompt_token_count", 0),
            "output_tokens": output,
            "cache_read_tokens": getattr(u, "cached_content_token_count", 0),
        }

    def _read(self, response: ProviderResponse) -> ModelReply:
        """The first candidate's text (thoughts left out) and its function calls."""
        content = response.candidates[0].content if response.candidates else None
        parts = list(getattr(content, "parts", None) or [])
        text = "".join(p.text for p in parts if p.text and not p.thought).strip()
        calls = [p.function_call for p in parts if p.function_call is not None]
        message: JsonObject = content.model_dump(exclude_none=True) if content else {}
        if not calls:
            return ModelReply(text, [], message if text else {})
        requests = [ToolRequest(c.name or "", c.args or {}, c.id or c.name or "") for c in calls]
        return ModelReply(text, requests, message)

    def _tool_results(self, runs: list[tuple[ToolRequest, ToolRun]]) -> list[JsonObject]:
        """One user content of ``function_response`` parts."""
        parts: list[JsonObject] = []
        for call, run in runs:
            response = {"error": run.output} if run.is_error else {"output": run.output}
            reply: JsonObject = {"name": call.name, "response": response}
            if call.call_id != call.name:
                reply["id"] = call.call_id
            parts.append({"function_response": reply})
        return [{"role": "user", "parts": parts}]

    async def on_message(
        self,
        msg: PlatformMessage,
        tools: AgentToolsProtocol,
        history: GeminiMessages,
        participants_msg: str | None,
        contacts_msg: str | None,
        *,
        is_session_bootstrap: bool,
        room_id: str,
    ) -> None:
        """The turn, then the room's contents trimmed to ``max_history_messages``."""
        try:
            await super().on_message(
                msg,
                tools,
                history,
                participants_msg,
                contacts_msg,
                is_session_bootstrap=is_session_bootstrap,
                room_id=room_id,
            )
        finally:
            self._trim(room_id)

    def _trim(self, room_id: str) -> None:
        """Keep the newest ``max_history_messages`` contents, starting at a user turn that
        does not answer a call cut off."""
        kept = self._history.get(room_id)
        limit = self.config.max_history_messages
        if kept is None or len(kept) <= limit:
            return
        kept = kept[-limit:]
        while kept:
            first = kept[0]
            parts = [p for p in first.get("parts", []) if "function_response" not in p]
            if first.get("role") == "model" or not parts:
                kept.pop(0)
                continue
            kept[0] = {**first, "parts": parts}
            break
        self._history[room_id] = kept
