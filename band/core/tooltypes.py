"""The values of the tool surface: capability groups, a tool call's outcome, a tool definition.

Below both ``band.core.agent_tools`` (the tools' protocol) and ``band.core.types`` (the turn's
input, which carries the tools), so that neither imports the other's importer.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import TypedDict

from .wire import JsonObject, JsonValue

__all__ = ["Capability", "ToolCallOutcome", "ToolParam"]


class Capability(enum.StrEnum):
    """A platform feature whose tools join the model's tool list when requested."""

    MEMORY = "memory"
    CONTACTS = "contacts"
    FILES = "files"
    TASKS = "tasks"


@dataclass(slots=True)
class ToolCallOutcome:
    """The result of one tool call: ``value`` for the model, ``ok`` as the success flag."""

    value: JsonValue
    ok: bool
    error_message: str | None = None


class ToolParam(TypedDict):
    """An Anthropic tool definition (``anthropic.types.ToolParam``'s required keys)."""

    name: str
    description: str
    input_schema: JsonObject
