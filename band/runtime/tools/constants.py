"""band-sdk's tool constants under its names, each the value our tools and runtime use."""

from __future__ import annotations

from band.core.types import Capability

from .files import MAX_SEND_CONTENT_BYTES
from .human import HUMAN_SURFACE_CONTACT_TOOL_NAMES, HUMAN_SURFACE_MEMORY_TOOL_NAMES
from .registry import CONTACT_TOOL_NAMES, FILE_TOOL_NAMES, MEMORY_TOOL_NAMES, TASK_TOOL_NAMES

__all__ = [
    "CAPABILITY_TOOL_NAMES",
    "CHAT_ID_FIELD_NAME",
    "CHAT_ID_MAX_LENGTH",
    "CHAT_PAGE_SIZE",
    "LEGACY_SEND_MESSAGE_TOOL",
    "MAX_CHAT_PAGES",
    "MAX_SEND_CONTENT_BYTES",
    "MISSING_MENTIONS_ERROR",
    "withheld_tool_names",
]

#: the agent and human tools each optional capability gates (files and tasks: agent only)
CAPABILITY_TOOL_NAMES: dict[Capability, frozenset[str]] = {
    Capability.MEMORY: MEMORY_TOOL_NAMES | HUMAN_SURFACE_MEMORY_TOOL_NAMES,
    Capability.CONTACTS: CONTACT_TOOL_NAMES | HUMAN_SURFACE_CONTACT_TOOL_NAMES,
    Capability.FILES: FILE_TOOL_NAMES,
    Capability.TASKS: TASK_TOOL_NAMES,
}

#: the argument that names the room a room-bound tool acts on, and its longest accepted value
CHAT_ID_FIELD_NAME = "chat_id"
CHAT_ID_MAX_LENGTH = 255

#: band-sdk's room listing: pages of 100, at most 50 pages (the tools' chat lookups read so many)
CHAT_PAGE_SIZE = 100
MAX_CHAT_PAGES = 50
#: The pages of 100 the runtime and ``BandLink.list_rooms`` read of the agent's rooms at the
#: most (100,000 rooms), a bound against a listing that never ends. band-sdk reads
#: ``MAX_CHAT_PAGES`` (5,000 rooms) and never serves the rooms past them: on band dev, which
#: lists oldest first, the newest.
MAX_ROOM_PAGES = 1000

#: the start of band_send_message's error when no participant is mentioned
MISSING_MENTIONS_ERROR = "At least one mention is required"

#: the send tool's name before band_send_message; counted as a reply like it
LEGACY_SEND_MESSAGE_TOOL = "create_agent_chat_message"


def withheld_tool_names(capabilities: frozenset[Capability]) -> frozenset[str]:
    """The tool names left out when only ``capabilities`` are enabled."""
    out: frozenset[str] = frozenset()
    for capability, names in CAPABILITY_TOOL_NAMES.items():
        if capability not in capabilities:
            out |= names
    return out
