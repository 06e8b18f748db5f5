"""The agent tools' names as an enum, and the category each falls into for adapter filters."""

from __future__ import annotations

import enum

from .registry import TOOLS

__all__ = ["BandTool", "ToolCategory", "get_band_tool_category"]


class ToolCategory(enum.StrEnum):
    """The buckets ``include_categories``/``exclude_categories`` name: chat plus each group."""

    CHAT = "chat"
    CONTACTS = "contacts"
    MEMORY = "memory"
    FILES = "files"
    TASKS = "tasks"


#: One member per agent tool, in ``TOOLS`` order, valued (and comparing equal to) its wire name:
#: ``BandTool.SEND_MESSAGE == "band_send_message"``. Built from ``TOOLS`` so no name is retyped.
BandTool = enum.StrEnum(  # type: ignore[misc]  # members come from the registry
    "BandTool",
    [(name.removeprefix("band_").upper(), name) for name in TOOLS],
    module=__name__,
)
BandTool.__doc__ = "The agent tools' names; members are ``str`` equal to the wire name."


def get_band_tool_category(name: str) -> ToolCategory | None:
    """The category of agent tool ``name``, or ``None`` for a name that is not one."""
    spec = TOOLS.get(name)
    return None if spec is None else ToolCategory(spec.category)
