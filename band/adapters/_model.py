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
from typing import Any

from pydantic import BaseModel, ConfigDict

from band.core.protocols import AgentToolsProtocol
from band.core.types import AdapterFeatures, Emit, PlatformMessage
from band.runtime.capabilities import Capability
from band.runtime.custom_tools import (
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
    "render_prompt",
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

_BASE_INSTRUCTIONS = """\
You are {name}, an agent in Band chat rooms with people and other agents.
{description}
Messages reach you as "[sender]: text". Nothing you write as plain text reaches the room:
to answer, call band_send_message with the text and at least one mention (the participant's
ID or @handle, usually the sender's). When a message needs no answer from you, call
band_no_reply. Use the other band_ tools to look up participants and peers, add or remove
them, or create rooms. Answer once per message; do not repeat yourself."""

_CAPABILITY_NOTES = {
    Capability.CONTACTS: "Contact tools (band_*contact*) manage who you can reach across owners.",
    Capability.MEMORY: "Memory tools (band_*memor*) store and recall what you learn; "
    "store only what will matter later.",
    Capability.TASKS: "Task tools (band_*task*, band_*board*) keep the room's shared task "
    "board: report your own status on the tasks you work on.",
    Capability.FILES: "File tools (band_*room_file*) share, list and read the room's files.",
}


class BaseAdapterConfig(BaseModel):
    """Base of the adapter configs: frozen, and an unknown field is an error."""

    model_config = ConfigDict(frozen=True, extra="forbid")


def render_prompt(
    *,
    agent_name: str,
    agent_description: str,
    custom_section: str,
    include_base_instructions: bool,
    features: AdapterFeatures,
) -> str:
    """The system prompt: base instructions, a note per enabled tool group, the custom part."""
    parts: list[str] = []
    if include_base_instructions:
        parts.append(
            _BASE_INSTRUCTIONS.format(
                name=agent_name or "an agent", description=agent_description or ""
            ).replace("\n\n", "\n")
        )
        caps = features.capabilities
        parts.extend(note for cap, note in _CAPABILITY_NOTES.items() if cap in caps)
    if custom_section.strip():
        parts.append(custom_section.strip())
    return "\n\n".join(parts)


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
