"""What the model adapters (Anthropic, OpenAI) share: the config base, the system prompt,
one tool call with its telemetry, the closing text and the usage event.

A model adapter's turn: the room's history and the new message go to the model with the
platform tools' schemas; each tool call the model makes runs through
``tools.execute_tool_call_structured`` (or a custom tool), its result goes back to the model,
and the loop ends when the model stops calling tools or after a successful
``band_no_reply``. The turn-outcome rule then judges the turn from what the tools recorded.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol, TypeVar, Unpack

from pydantic import BaseModel, ConfigDict

from band.core.protocols import AgentToolsProtocol
from band.core.simple_adapter import FeatureKwargs, SimpleAdapter
from band.core.types import AdapterFeatures, Emit, PlatformMessage
from band.runtime.capabilities import Capability
from band.runtime.prompts import render_system_prompt
from band.runtime.tools.custom import (
    CustomToolDef,
    execute_custom_tool,
    find_custom_tool,
    get_custom_tool_name,
    is_failed_tool_output,
    reject_conflicting_tool_names,
)

__all__ = [
    "GENERIC_PROVIDER_FAILURE_MESSAGE",
    "MAX_TOOL_ROUNDS",
    "USAGE_METADATA_KEY",
    "BaseAdapterConfig",
    "ToolRun",
    "relay_closing_text",
    "ModelAdapter",
    "run_tool_call",
    "send_usage",
]

log = logging.getLogger("band.adapters.model")

#: The failure text of a turn that broke without a provider status to report.
GENERIC_PROVIDER_FAILURE_MESSAGE = "Internal error while processing message; see agent logs."
#: The metadata key of the per-turn token usage on a ``task`` event (``Emit.USAGE``).
USAGE_METADATA_KEY = "band_usage"
#: Model calls one turn may make before the adapter stops asking (a model that never stops
#: calling tools would otherwise hold the room forever); the turn is then judged as it is.
MAX_TOOL_ROUNDS = 50
#: The text given back for a tool call the model made with arguments that are not an object.
BAD_ARGUMENTS = "Error: the tool arguments must be a JSON object"


class BaseAdapterConfig(BaseModel):
    """Base of the adapter configs: frozen, and an unknown field is an error."""

    model_config = ConfigDict(frozen=True, extra="forbid")


class PromptConfig(Protocol):
    """The prompt fields every model adapter config has (declared per config, in the order
    of band-sdk 6.0.1's)."""

    @property
    def system_prompt(self) -> str | None: ...
    @property
    def custom_section(self) -> str: ...
    @property
    def include_base_instructions(self) -> bool: ...


#: A model adapter's history type (the converter's output).
H = TypeVar("H")


class ModelAdapter(SimpleAdapter[H]):
    """What both model adapters keep per agent: the config, the custom tools, the system
    prompt (rendered once the agent's name is known) and each room's model history."""

    SUPPORTED_EMIT: ClassVar[frozenset[Emit]] = frozenset({Emit.TOOL_CALLS, Emit.USAGE})
    SUPPORTED_CAPABILITIES: ClassVar[frozenset[Capability]] = frozenset(
        {Capability.MEMORY, Capability.CONTACTS, Capability.TASKS, Capability.FILES}
    )

    def __init__(
        self,
        config: PromptConfig,
        *,
        history_converter: Any,
        additional_tools: Sequence[CustomToolDef] | None,
        **features: Unpack[FeatureKwargs],
    ) -> None:
        super().__init__(history_converter=history_converter, **features)
        self.config = config
        self._custom_tools = check_custom_tools(additional_tools)
        self._history: dict[str, list[dict[str, Any]]] = {}
        self._system_prompt = ""

    async def on_started(self, agent_name: str, agent_description: str) -> None:
        """Render the system prompt once the agent's name and description are known."""
        await super().on_started(agent_name, agent_description)
        self._system_prompt = self.config.system_prompt or render_system_prompt(
            agent_name=agent_name,
            agent_description=agent_description,
            custom_section=self.config.custom_section,
            include_base_instructions=self.config.include_base_instructions,
            features=self.features,
        )

    def _room_history(self, room_id: str, history: H, bootstrap: bool) -> list[dict[str, Any]]:
        """The room's model history: the converted room history on a session bootstrap,
        else what this adapter kept of earlier turns."""
        if bootstrap or room_id not in self._history:
            self._history[room_id] = list(history) if bootstrap else []  # type: ignore[call-overload]
        return self._history[room_id]


def check_custom_tools(tools: Sequence[CustomToolDef] | None) -> list[CustomToolDef]:
    """The custom tools as a list, refusing duplicate names and platform tool names."""
    listed = list(tools or [])
    reject_conflicting_tool_names(get_custom_tool_name(model) for model, _ in listed)
    return listed


@dataclass(frozen=True)
class ToolRun:
    """One executed tool call: the text the model gets back and how it went."""

    output: str
    ok: bool
    is_error: bool


async def _event(tools: AgentToolsProtocol, kind: str, body: dict[str, Any]) -> None:
    """Post a ``tool_call`` / ``tool_result`` event; telemetry never breaks the turn."""
    try:
        await tools.send_event(json.dumps(body, default=str), kind, body)
    except Exception as exc:
        log.warning("could not post the %s event: %s", kind, exc)


async def run_tool_call(
    tools: AgentToolsProtocol,
    custom_tools: Sequence[CustomToolDef],
    features: AdapterFeatures,
    name: str,
    arguments: Any,
    call_id: str,
) -> ToolRun:
    """Run one tool call the model made (a custom tool first, else a platform tool).

    With ``Emit.TOOL_CALLS`` the call and its result are posted as ``tool_call`` /
    ``tool_result`` events. Failures become error text for the model, never exceptions.
    """
    emit = Emit.TOOL_CALLS in features.emit
    if emit:
        await _event(tools, "tool_call", {"name": name, "args": arguments, "tool_call_id": call_id})
    try:
        if not isinstance(arguments, Mapping):
            value: Any = BAD_ARGUMENTS
            ok = False
        elif (custom := find_custom_tool(custom_tools, name)) is not None:
            value = await execute_custom_tool(custom, arguments, turn=tools.turn)
            ok = not is_failed_tool_output(value)
        else:
            outcome = await tools.execute_tool_call_structured(name, arguments)
            value, ok = outcome.value, outcome.ok
        output = value if isinstance(value, str) else json.dumps(value, default=str)
        run = ToolRun(output, ok, is_error=not ok)
    except asyncio.CancelledError:
        raise
    except Exception as exc:  # the model sees the failure and may try something else
        log.warning("tool %s failed: %s", name, exc)
        run = ToolRun(f"Error: {exc}", ok=False, is_error=True)
    if emit:
        await _event(
            tools,
            "tool_result",
            {"name": name, "output": run.output, "tool_call_id": call_id, "is_error": run.is_error},
        )
    return run


async def relay_closing_text(tools: AgentToolsProtocol, msg: PlatformMessage, text: str) -> None:
    """Post the model's closing text to the room when no tool replied or declined this turn.

    A successful reply or decline already answered, so the text is then not relayed (it
    would be a second message). The relay mentions the sender, as every message must.
    """
    if not text.strip() or tools.turn.replied:
        return
    try:
        await tools.send_message(text, [msg.sender_id])
    except Exception as exc:  # the turn-outcome rule reports the missing reply instead
        log.warning("could not relay the model's closing text to room %s: %s", msg.room_id, exc)


async def send_usage(
    tools: AgentToolsProtocol, features: AdapterFeatures, usage: Mapping[str, int]
) -> None:
    """With ``Emit.USAGE``, post the turn's token usage as a ``task`` event (not when empty)."""
    if Emit.USAGE not in features.emit or not any(usage.values()):
        return
    task = asyncio.current_task()
    if task is not None and task.cancelling():
        return  # a turn being cancelled does no more network I/O
    content = f"Token usage: input={usage['input_tokens']} output={usage['output_tokens']}"
    try:
        await tools.send_event(content, "task", {USAGE_METADATA_KEY: dict(usage)})
    except Exception as exc:
        log.warning("could not post the usage event: %s", exc)


def add_usage(total: dict[str, int], **counts: Any) -> None:
    """Add one model call's token counts (None counts as 0) to ``total``."""
    for key, value in counts.items():
        total[key] = total.get(key, 0) + (int(value) if isinstance(value, int) else 0)


def empty_usage() -> dict[str, int]:
    """A zero per-turn usage."""
    return {"input_tokens": 0, "output_tokens": 0, "cache_read_tokens": 0, "cache_write_tokens": 0}
