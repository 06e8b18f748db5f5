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
import logging
from typing import Any, Unpack

from pydantic import Field, PositiveInt

from band.converters.openai import OpenAIHistoryConverter, OpenAIMessages
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

__all__ = ["OPENAI_MODEL", "OpenAIAdapter", "OpenAIAdapterConfig"]

log = logging.getLogger("band.adapters.openai")

#: The model an ``OpenAIAdapterConfig`` names by default (band-sdk 6.0.1's OpenAI default).
OPENAI_MODEL = "gpt-6-luna"
PROVIDER = "openai"


class OpenAIAdapterConfig(BaseAdapterConfig):
    """Settings of :class:`OpenAIAdapter` (those of ``AnthropicAdapterConfig``, and
    ``base_url`` for another Chat Completions server).

    ``max_tokens`` is sent as ``max_completion_tokens``.
    """

    model: str = OPENAI_MODEL
    provider_key: str | None = Field(default=None, repr=False)
    base_url: str | None = None
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


def _arguments(raw: str | None) -> Any:
    """A tool call's JSON arguments (empty: ``{}``); invalid JSON is returned as it is, so
    the call fails back to the model."""
    if not raw:
        return {}
    try:
        return json.loads(raw)
    except json.JSONDecodeError:
        return raw


class OpenAIAdapter(ModelAdapter[OpenAIMessages]):
    """Runs each turn as a Chat Completions tool loop over the platform tools (and custom
    tools)."""

    def __init__(
        self,
        config: OpenAIAdapterConfig | None = None,
        *,
        history_converter: OpenAIHistoryConverter | None = None,
        additional_tools: list[CustomToolDef] | None = None,
        **features: Unpack[FeatureKwargs],
    ) -> None:
        settings = config or OpenAIAdapterConfig()
        super().__init__(
            settings,
            history_converter=history_converter or OpenAIHistoryConverter(),
            additional_tools=additional_tools,
            **features,
        )
        self.config: OpenAIAdapterConfig = settings
        try:
            from openai import AsyncOpenAI
        except ImportError as exc:  # an optional dependency: say how to get it
            raise ImportError("OpenAIAdapter needs the openai package: pip install openai") from exc
        #: the ``openai.AsyncOpenAI`` the turns use (replace it to point elsewhere)
        self.client: Any = AsyncOpenAI(
            api_key=self.config.provider_key, base_url=self.config.base_url
        )

    async def on_message(
        self,
        msg: PlatformMessage,
        tools: AgentToolsProtocol,
        history: OpenAIMessages,
        participants_msg: str | None,
        contacts_msg: str | None,
        *,
        is_session_bootstrap: bool,
        room_id: str,
    ) -> None:
        """One turn: the message (and any room changes) to the model, then its tool calls."""
        messages = self._room_history(room_id, history, is_session_bootstrap)
        for note in (participants_msg, contacts_msg):
            if note:
                messages.append({"role": "user", "content": f"[System]: {note}"})
        messages.append({"role": "user", "content": msg.format_for_llm()})
        schemas = list(tools.get_openai_tool_schemas(capabilities=self.features.capabilities))
        schemas.extend(custom_tools_to_schemas(self._custom_tools, "openai"))
        usage = empty_usage()
        try:
            for _ in range(MAX_TOOL_ROUNDS):
                system = [{"role": "system", "content": self._system_prompt}]
                try:
                    response = await self.client.chat.completions.create(
                        model=self.config.model,
                        max_completion_tokens=self.config.max_tokens,
                        messages=system + messages if self._system_prompt else messages,
                        tools=schemas,
                    )
                except Exception as exc:
                    log.exception("room %s: the OpenAI request failed", room_id)
                    await tools.send_failure(_failure(exc))
                    raise
                u = response.usage
                details = getattr(u, "prompt_tokens_details", None)
                add_usage(
                    usage,
                    input_tokens=getattr(u, "prompt_tokens", 0),
                    output_tokens=getattr(u, "completion_tokens", 0),
                    cache_read_tokens=getattr(details, "cached_tokens", 0),
                )
                reply = response.choices[0].message
                text = (reply.content or "").strip()
                calls = [c for c in reply.tool_calls or [] if c.type == "function"]
                if not calls:
                    if text:
                        messages.append({"role": "assistant", "content": text})
                    await relay_closing_text(tools, msg, text)
                    return
                messages.append(
                    {
                        "role": "assistant",
                        "content": reply.content,
                        "tool_calls": [
                            {
                                "id": c.id,
                                "type": "function",
                                "function": {
                                    "name": c.function.name,
                                    "arguments": c.function.arguments,
                                },
                            }
                            for c in calls
                        ],
                    }
                )
                if await self._run_tools(tools, calls, messages):
                    return  # a successful band_no_reply settled the turn: no follow-up
            log.warning("room %s: stopped after %d model calls", room_id, MAX_TOOL_ROUNDS)
        finally:
            await send_usage(tools, self.features, usage)

    async def _run_tools(
        self, tools: AgentToolsProtocol, calls: list[Any], messages: list[dict[str, Any]]
    ) -> bool:
        """Run the calls in order, appending a ``tool`` message for each; whether a successful
        ``band_no_reply`` (with every sibling call succeeding) ended the turn."""
        declined = failed = False
        for call in calls:
            name = call.function.name
            run = await run_tool_call(
                tools,
                self._custom_tools,
                self.features,
                name,
                _arguments(call.function.arguments),
                call.id,
            )
            declined = declined or (run.ok and name == "band_no_reply")
            failed = failed or not run.ok
            messages.append({"role": "tool", "tool_call_id": call.id, "content": run.output})
        return declined and not failed

    async def on_cleanup(self, room_id: str) -> None:
        """Forget the room's conversation."""
        self._history.pop(room_id, None)
