"""Typed shapes of provider tool definitions (structurally the providers' own SDK types)."""

from __future__ import annotations

from typing import Any, Literal, TypedDict

__all__ = ["OpenAIFunction", "OpenAITool", "ToolParam"]


class ToolParam(TypedDict):
    """An Anthropic tool definition (``anthropic.types.ToolParam``'s required keys)."""

    name: str
    description: str
    input_schema: dict[str, Any]


class OpenAIFunction(TypedDict):
    """The ``function`` member of an OpenAI function tool."""

    name: str
    description: str
    parameters: dict[str, Any]


class OpenAITool(TypedDict):
    """An OpenAI chat-completions function tool."""

    type: Literal["function"]
    function: OpenAIFunction
