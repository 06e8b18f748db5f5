"""The typed shape of an Anthropic tool definition (structurally the provider SDK's own)."""

from __future__ import annotations

from typing import Any, TypedDict

__all__ = ["ToolParam"]


class ToolParam(TypedDict):
    """An Anthropic tool definition (``anthropic.types.ToolParam``'s required keys)."""

    name: str
    description: str
    input_schema: dict[str, Any]
