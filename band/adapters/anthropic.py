"""``AnthropicAdapter``: Claude through the Anthropic Messages API, in a platform-tool loop.

The ``anthropic`` package is imported when an adapter is built, not with this module::

    adapter = AnthropicAdapter(
        AnthropicAdapterConfig(custom_section="You answer weather questions."),
        capabilities=Capability.MEMORY,
    )
    agent = Agent.create(adapter=adapter, agent_id="...", api_key="...")

The client reads ``ANTHROPIC_API_KEY`` (unless ``provider_key`` is set) and
``ANTHROPIC_BASE_URL``; ``adapter.client`` may be replaced by another ``AsyncAnthropic``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from band.converters.anthropic import AnthropicHistoryConverter, AnthropicMessages
from band.core.protocols import AgentToolsProtocol
from band.core.wire import JsonObject

from ._model import (
    BaseAdapterConfig,
    ModelAdapter,
    ModelReply,
    ProviderResponse,
    ToolRequest,
    ToolRun,
)

__all__ = ["ANTHROPIC_MODEL", "AnthropicAdapter", "AnthropicAdapterConfig"]

#: The model an ``AnthropicAdapterConfig`` names by default (band-sdk 6.0.1's default).
ANTHROPIC_MODEL = "claude-sonnet-5-5"


class AnthropicAdapterConfig(BaseAdapterConfig):
    """Settings of :class:`AnthropicAdapter`.

    ``system_prompt``, when set, is sent as it is (``custom_section``,
    ``include_base_instructions`` and the tool-group notes are then unused);
    ``provider_key`` None lets the client read ``ANTHROPIC_API_KEY``.
    """

    model: str = ANTHROPIC_MODEL


class AnthropicAdapter(ModelAdapter[AnthropicMessages, AnthropicAdapterConfig]):
    """Runs each turn as an Anthropic tool loop over the platform tools (and custom tools)."""

    PROVIDER = "anthropic"
    API_NAME = "Anthropic"
    CLIENT = ("anthropic", "AsyncAnthropic")
    KEY_ENV = "ANTHROPIC_API_KEY"
    KEY_URL = "https://console.anthropic.com/settings/keys"

    def _defaults(self) -> tuple[AnthropicAdapterConfig, AnthropicHistoryConverter]:
        """A default config and a new history converter."""
        return AnthropicAdapterConfig(), AnthropicHistoryConverter()

    async def _check_key(self) -> None:
        """Count the tokens of one word (free of charge; a wrong key gets 401)."""
        await self.client.messages.count_tokens(
            model=self.config.model, messages=[{"role": "user", "content": "hi"}]
        )

    def _platform_schemas(self, tools: AgentToolsProtocol) -> Sequence[Mapping[str, object]]:
        """The platform tools in the Messages API's ``tools`` format."""
        return tools.get_anthropic_tool_schemas(capabilities=self.features.capabilities)

    async def _complete(
        self, messages: list[JsonObject], schemas: list[Mapping[str, object]]
    ) -> ProviderResponse:
        """One Messages API call, the system prompt beside the messages."""
        return await self.client.messages.create(
            model=self.config.model,
            max_tokens=self.config.max_tokens,
            system=self._system_prompt,
            messages=messages,
            tools=schemas,
        )

    def _usage(self, response: ProviderResponse) -> dict[str, object]:
        """The response's input, output and cache token counts."""
        u = response.usage
        return {
            "input_tokens": getattr(u, "input_tokens", 0),
            "output_tokens": getattr(u, "output_tokens", 0),
            "cache_read_tokens": getattr(u, "cache_read_input_tokens", 0),
            "cache_write_tokens": getattr(u, "cache_creation_input_tokens", 0),
        }

    def _read(self, response: ProviderResponse) -> ModelReply:
        """The text blocks, and the ``tool_use`` blocks when the model stopped to use tools."""
        text = " ".join(b.text for b in response.content if b.type == "text" and b.text).strip()
        uses = [b for b in response.content if b.type == "tool_use"]
        if response.stop_reason != "tool_use" or not uses:
            return ModelReply(text)
        blocks: list[JsonObject] = []
        for b in response.content:
            if b.type == "text" and b.text:
                blocks.append({"type": "text", "text": b.text})
            elif b.type == "tool_use":
                blocks.append({"type": "tool_use", "id": b.id, "name": b.name, "input": b.input})
        calls = [ToolRequest(use.name, use.input, use.id) for use in uses]
        return ModelReply(text, calls, {"role": "assistant", "content": blocks})

    def _tool_results(self, runs: list[tuple[ToolRequest, ToolRun]]) -> list[JsonObject]:
        """One user message of ``tool_result`` blocks."""
        results = [
            {
                "type": "tool_result",
                "tool_use_id": call.call_id,
                "content": run.output,
                "is_error": run.is_error,
            }
            for call, run in runs
        ]
        return [{"role": "user", "content": results}]
