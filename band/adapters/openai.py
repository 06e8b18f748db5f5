"""``OpenAIAdapter``: a model behind the OpenAI Chat Completions API, in a platform-tool loop.

band-sdk 6.0.1 has no OpenAI adapter of its own (OpenAI models reach it through framework
adapters); this one has the shape of its ``AnthropicAdapter``. It works with any server that
speaks Chat Completions with tool calls (``base_url``). The ``openai`` package is imported
when an adapter is built, not with this module::

    adapter = OpenAIAdapter(OpenAIAdapterConfig(model="gpt-5-mini"), capabilities=Capability.TASKS)

The client reads ``OPENAI_API_KEY`` / ``OPENAI_BASE_URL`` unless ``provider_key`` /
``base_url`` are set; ``adapter.client`` may be replaced by another ``AsyncOpenAI``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

from band.converters.openai import OpenAIHistoryConverter, OpenAIMessages
from band.core.protocols import AgentToolsProtocol
from band.core.wire import JsonObject, JsonValue

from ._model import (
    BaseAdapterConfig,
    ModelAdapter,
    ModelReply,
    ProviderResponse,
    ToolRequest,
    ToolRun,
)

__all__ = ["OPENAI_MODEL", "OpenAIAdapter", "OpenAIAdapterConfig"]

#: The model an ``OpenAIAdapterConfig`` names by default (band-sdk 6.0.1's OpenAI default).
OPENAI_MODEL = "gpt-6-luna"


class OpenAIAdapterConfig(BaseAdapterConfig):
    """Settings of :class:`OpenAIAdapter` (those of ``AnthropicAdapterConfig``, and
    ``base_url`` for another Chat Completions server).

    ``max_tokens`` is sent as ``max_completion_tokens``.
    """

    model: str = OPENAI_MODEL
    base_url: str | None = None


def _arguments(raw: str | None) -> JsonValue:
    """A tool call's JSON arguments (empty: ``{}``); invalid JSON is returned as it is, so
    the call fails back to the model."""
    if not raw:
        return {}
    try:
        return json.loads(raw)
    except json.JSONDecodeError:
        return raw


class OpenAIAdapter(ModelAdapter[OpenAIMessages, OpenAIAdapterConfig]):
    """Runs each turn as a Chat Completions tool loop over the platform tools (and custom
    tools)."""

    PROVIDER = "openai"
    API_NAME = "OpenAI"
    CLIENT = ("openai", "AsyncOpenAI")
    KEY_ENV = "OPENAI_API_KEY"
    KEY_URL = "https://platform.openai.com/api-keys"

    def _defaults(self) -> tuple[OpenAIAdapterConfig, OpenAIHistoryConverter]:
        """A default config and a new history converter."""
        return OpenAIAdapterConfig(), OpenAIHistoryConverter()

    def _client_options(self) -> dict[str, object]:
        """The key and ``base_url`` (None: the client reads ``OPENAI_BASE_URL``)."""
        return {**super()._client_options(), "base_url": self.config.base_url}

    async def _check_key(self) -> None:
        """List the models (free of charge; a wrong key gets 401)."""
        await self.client.models.list()

    def _platform_schemas(self, tools: AgentToolsProtocol) -> Sequence[Mapping[str, object]]:
        """The platform tools in the Chat Completions ``tools`` format."""
        return tools.get_openai_tool_schemas(capabilities=self.features.capabilities)

    async def _complete(
        self, messages: list[JsonObject], schemas: list[Mapping[str, object]]
    ) -> ProviderResponse:
        """One Chat Completions call, the system prompt as the first message."""
        system = [{"role": "system", "content": self._system_prompt}]
        return await self.client.chat.completions.create(
            model=self.config.model,
            max_completion_tokens=self.config.max_tokens,
            messages=system + messages if self._system_prompt else messages,
            tools=schemas,
        )

    def _usage(self, response: ProviderResponse) -> dict[str, object]:
        """The response's prompt, completion and cached token counts."""
        u = response.usage
        details = getattr(u, "prompt_tokens_details", None)
        return {
            "input_tokens": getattr(u, "prompt_tokens", 0),
            "output_tokens": getattr(u, "completion_tokens", 0),
            "cache_read_tokens": getattr(details, "cached_tokens", 0),
        }

    def _read(self, response: ProviderResponse) -> ModelReply:
        """The first choice's text and its function calls."""
        reply = response.choices[0].message
        text = (reply.content or "").strip()
        calls = [c for c in reply.tool_calls or [] if c.type == "function"]
        if not calls:
            return ModelReply(text)
        message = {
            "role": "assistant",
            "content": reply.content,
            "tool_calls": [
                {
                    "id": c.id,
                    "type": "function",
                    "function": {"name": c.function.name, "arguments": c.function.arguments},
                }
                for c in calls
            ],
        }
        requests = [
            ToolRequest(c.function.name, _arguments(c.function.arguments), c.id) for c in calls
        ]
        return ModelReply(text, requests, message)

    def _tool_results(self, runs: list[tuple[ToolRequest, ToolRun]]) -> list[JsonObject]:
        """A ``tool`` message for each call."""
        return [
            {"role": "tool", "tool_call_id": call.call_id, "content": run.output}
            for call, run in runs
        ]
