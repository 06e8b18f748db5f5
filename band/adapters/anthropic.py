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

import logging
from typing import Any, Unpack

from pydantic import Field, PositiveInt

from band.converters.anthropic import AnthropicHistoryConverter, AnthropicMessages
from band.core.protocols import AgentToolsProtocol
from band.core.simple_adapter import FeatureKwargs
from band.core.turn import AgentFailure
from band.core.types import PlatformMessage
from band.runtime.tools.custom import CustomToolDef, custom_tools_to_schemas

from ._model import (
    GENERIC_PROVIDER_FAILURE_MESSAGE,
    MAX_TOOL_ROUNDS,
    BaseAdapterConfig,
    ModelAdapter,
    add_usage,
    empty_usage,
    relay_closing_text,
    run_tool_call,
    send_usage,
)

__all__ = ["ANTHROPIC_MODEL", "AnthropicAdapter", "AnthropicAdapterConfig"]

log = logging.getLogger("band.adapters.anthropic")

#: The model an ``AnthropicAdapterConfig`` names by default (band-sdk 6.0.1's default).
ANTHROPIC_MODEL = "claude-sonnet-5-5"
PROVIDER = "anthropic"


class AnthropicAdapterConfig(BaseAdapterConfig):
    """Settings of :class:`AnthropicAdapter`.

    ``system_prompt``, when set, is sent as it is (``custom_section``,
    ``include_base_instructions`` and the tool-group notes are then unused);
    ``provider_key`` None lets the client read ``ANTHROPIC_API_KEY``.
    """

    model: str = ANTHROPIC_MODEL
    provider_key: str | None = Field(default=None, repr=False)
    system_prompt: str | None = None
    custom_section: str = ""
    include_base_instructions: bool = True
    max_tokens: PositiveInt = 4096


def _failure(exc: Exception) -> AgentFailure:
    """The provider failure to report for ``exc`` (HTTP status and body when it has them)."""
    status = getattr(exc, "status_code", None)
    if isinstance(status, int):
        return AgentFailure(PROVIDER, str(exc), str(status), getattr(exc, "body", None))
    return AgentFailure(PROVIDER, GENERIC_PROVIDER_FAILURE_MESSAGE)


class AnthropicAdapter(ModelAdapter[AnthropicMessages]):
    """Runs each turn as an Anthropic tool loop over the platform tools (and custom tools)."""

    def __init__(
        self,
        config: AnthropicAdapterConfig | None = None,
        *,
        history_converter: AnthropicHistoryConverter | None = None,
        additional_tools: list[CustomToolDef] | None = None,
        **features: Unpack[FeatureKwargs],
    ) -> None:
        settings = config or AnthropicAdapterConfig()
        super().__init__(
            settings,
            history_converter=history_converter or AnthropicHistoryConverter(),
            additional_tools=additional_tools,
            **features,
        )
        self.config: AnthropicAdapterConfig = settings
        try:
            from anthropic import AsyncAnthropic
        except ImportError as exc:  # an optional dependency: say how to get it
            raise ImportError(
                "AnthropicAdapter needs the anthropic package: pip install anthropic"
            ) from exc
        #: the ``anthropic.AsyncAnthropic`` the turns use (replace it to point elsewhere)
        self.client: Any = AsyncAnthropic(api_key=self.config.provider_key)

    async def on_message(
        self,
        msg: PlatformMessage,
        tools: AgentToolsProtocol,
        history: AnthropicMessages,
        participants_msg: str | None,
        contacts_msg: str | None,
        *,
        is_session_bootstrap: bool,
        room_id: str,
    ) -> None:
        """One turn: the message (and any room changes) to Claude, then its tool calls."""
        messages = self._room_history(room_id, history, is_session_bootstrap)
        for note in (participants_msg, contacts_msg):
            if note:
                messages.append({"role": "user", "content": f"[System]: {note}"})
        messages.append({"role": "user", "content": msg.format_for_llm()})
        schemas: list[Any] = list(
            tools.get_anthropic_tool_schemas(capabilities=self.features.capabilities)
        )
        schemas.extend(custom_tools_to_schemas(self._custom_tools, "anthropic"))
        usage = empty_usage()
        try:
            for _ in range(MAX_TOOL_ROUNDS):
                try:
                    response = await self.client.messages.create(
                        model=self.config.model,
                        max_tokens=self.config.max_tokens,
                        system=self._system_prompt,
                        messages=messages,
                        tools=schemas,
                    )
                except Exception as exc:
                    log.exception("room %s: the Anthropic request failed", room_id)
                    await tools.send_failure(_failure(exc))
                    raise
                u = response.usage
                add_usage(
                    usage,
                    input_tokens=getattr(u, "input_tokens", 0),
                    output_tokens=getattr(u, "output_tokens", 0),
                    cache_read_tokens=getattr(u, "cache_read_input_tokens", 0),
                    cache_write_tokens=getattr(u, "cache_creation_input_tokens", 0),
                )
                text = " ".join(
                    b.text for b in response.content if b.type == "text" and b.text
                ).strip()
                uses = [b for b in response.content if b.type == "tool_use"]
                if response.stop_reason != "tool_use" or not uses:
                    if text:
                        messages.append({"role": "assistant", "content": text})
                    await relay_closing_text(tools, msg, text)
                    return
                blocks: list[dict[str, Any]] = []
                for b in response.content:
                    if b.type == "text" and b.text:
                        blocks.append({"type": "text", "text": b.text})
                    elif b.type == "tool_use":
                        blocks.append(
                            {"type": "tool_use", "id": b.id, "name": b.name, "input": b.input}
                        )
                messages.append({"role": "assistant", "content": blocks})
                results, declined = await self._run_tools(tools, uses)
                messages.append({"role": "user", "content": results})
                if declined:  # a successful band_no_reply settled the turn: no follow-up
                    return
            log.warning("room %s: stopped after %d model calls", room_id, MAX_TOOL_ROUNDS)
        finally:
            await send_usage(tools, self.features, usage)

    async def _run_tools(
        self, tools: AgentToolsProtocol, uses: list[Any]
    ) -> tuple[list[dict[str, Any]], bool]:
        """Run the response's tool calls in order; the tool_result blocks, and whether a
        successful ``band_no_reply`` (with every sibling call succeeding) ended the turn."""
        results: list[dict[str, Any]] = []
        declined = failed = False
        for use in uses:
            run = await run_tool_call(
                tools, self._custom_tools, self.features, use.name, use.input, use.id
            )
            declined = declined or (run.ok and use.name == "band_no_reply")
            failed = failed or not run.ok
            results.append(
                {
                    "type": "tool_result",
                    "tool_use_id": use.id,
                    "content": run.output,
                    "is_error": run.is_error,
                }
            )
        return results, declined and not failed

    async def on_cleanup(self, room_id: str) -> None:
        """Forget the room's conversation."""
        self._history.pop(room_id, None)
