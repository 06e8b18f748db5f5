"""Reading the platform history rows the converters share: tool events and whose text it is."""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from typing import Any

from band.core.wire import JsonObject

__all__ = [
    "INTERRUPTED_TOOL_TEXT",
    "BaseConverter",
    "ToolCallEvent",
    "ToolResultEvent",
    "call_arguments",
    "is_own_text",
    "parse",
]

log = logging.getLogger("band.converters")

#: What the model reads for a tool call whose result was never recorded.
INTERRUPTED_TOOL_TEXT = "Error: tool execution was interrupted"


class BaseConverter:
    """Base of the converters: the agent's name, and text rows as ``user`` messages (this
    agent's own text left out)."""

    def __init__(self, agent_name: str = "") -> None:
        self._agent_name = agent_name

    def set_agent_name(self, name: str) -> None:
        """Set this agent's name (its own text is skipped)."""
        self._agent_name = name

    def _add_text(self, out: list[JsonObject], row: JsonObject) -> None:
        """Append a text row as a ``user`` message, unless it is this agent's own."""
        if not is_own_text(row, self._agent_name):
            out.append({"role": "user", "content": user_text(row)})


@dataclass(frozen=True)
class ToolCallEvent:
    """A ``tool_call`` event: ``{"name", "args", "tool_call_id"}``."""

    name: str
    args: JsonObject
    tool_call_id: str


@dataclass(frozen=True)
class ToolResultEvent:
    """A ``tool_result`` event: ``{"name", "output", "tool_call_id", "is_error"}``."""

    name: str
    output: str
    tool_call_id: str
    is_error: bool


def _object(content: str, kind: str) -> JsonObject | None:
    try:
        event = json.loads(content)
    except (TypeError, json.JSONDecodeError):
        log.warning("skipping a %s event that is not JSON: %r", kind, str(content)[:100])
        return None
    if not isinstance(event, dict):
        log.warning("skipping a %s event that is not an object: %r", kind, str(content)[:100])
        return None
    name, call_id = event.get("name"), event.get("tool_call_id")
    if not (isinstance(name, str) and name and isinstance(call_id, str) and call_id):
        log.warning("skipping a %s event without name or tool_call_id", kind)
        return None
    return event


def parse(row: JsonObject) -> ToolCallEvent | ToolResultEvent | None:
    """The tool event in a history row, or None (not a tool event, or malformed)."""
    kind = row.get("message_type")
    if kind not in ("tool_call", "tool_result"):
        return None
    event = _object(row.get("content") or "", str(kind))
    if event is None:
        return None
    if kind == "tool_call":
        args = event.get("args")
        return ToolCallEvent(
            event["name"], args if isinstance(args, dict) else {}, event["tool_call_id"]
        )
    return ToolResultEvent(
        event["name"],
        str(event.get("output", "")),
        event["tool_call_id"],
        bool(event.get("is_error", False)),
    )


def call_arguments(raw: object) -> dict[str, Any]:
    """A recorded call's arguments as an object (a JSON string is decoded; anything else: {})."""
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except json.JSONDecodeError:
            return {}
    return raw if isinstance(raw, dict) else {}


def is_own_text(row: JsonObject, agent_name: str) -> bool:
    """Whether a text row is this agent's own message (its tool results already hold it)."""
    own = row.get("role") == "assistant" or row.get("sender_type") == "Agent"
    return own and bool(agent_name) and row.get("sender_name") == agent_name


def user_text(row: JsonObject) -> str:
    """A text row as the model reads it: ``[sender]: content``."""
    content = str(row.get("content") or "")
    sender = row.get("sender_name")
    return f"[{sender}]: {content}" if sender else content
