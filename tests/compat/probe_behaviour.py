"""Outputs of band's pure helpers on fixed inputs, as JSON (run under either SDK).

The official band-sdk 6.0.1's output is checked in as ``official_behaviour.json``; the compat
test runs this under ours and compares value by value.
"""

from __future__ import annotations

import json
import sys
from typing import Any

PARTS = [
    {"id": "u1", "name": "Jane Doe", "handle": "jane", "type": "User", "description": "Owner"},
    {
        "id": "a1",
        "name": "Helper Bot",
        "handle": "jane/helper",
        "type": "Agent",
        "description": "Helps\nwith things",
    },
    {"id": "a2", "name": "NoHandle", "type": "Agent"},
]
MSG = {
    "id": "m1",
    "content": "@[[a1]] hi @[[u1]] and @[[zz]]",
    "sender_id": "u1",
    "sender_name": "Jane Doe",
    "sender_type": "User",
    "message_type": "text",
    "created_at": "2026-01-01T00:00:00Z",
}
MSG2 = {
    "id": "m2",
    "content": "reply",
    "sender_id": "a1",
    "sender_name": "Helper Bot",
    "sender_type": "Agent",
    "message_type": "text",
}
MSG3 = {
    "id": "m3",
    "content": "thinking",
    "sender_id": "a1",
    "sender_name": None,
    "sender_type": "Agent",
    "message_type": "thought",
}


def _try(fn: Any, *args: Any, **kwargs: Any) -> Any:
    try:
        return fn(*args, **kwargs)
    except Exception as exc:  # the kind of failure is part of the behaviour
        return {"raised": type(exc).__name__}


def probe() -> dict[str, Any]:
    """Every case, keyed by a stable name."""
    from band import (
        ALL_TOOL_NAMES,
        BASE_TOOL_NAMES,
        CHAT_TOOL_NAMES,
        CONTACT_TOOL_NAMES,
        MCP_TOOL_PREFIX,
        MEMORY_TOOL_NAMES,
        TOOL_MODELS,
        build_participants_message,
        format_history_for_llm,
        format_message_for_llm,
        mcp_tool_names,
        render_system_prompt,
    )
    from band.core.types import Capability
    from band.runtime.tools import READ_ONLY_TOOL_NAMES, TASK_TOOL_NAMES

    out: dict[str, Any] = {
        "format_message": format_message_for_llm(MSG, PARTS),
        "format_message_no_parts": format_message_for_llm(MSG),
        "format_message_agent": format_message_for_llm(MSG3, PARTS),
        "history": format_history_for_llm([MSG, MSG2, MSG3], exclude_id="m2", participants=PARTS),
        "history_plain": format_history_for_llm([MSG, MSG2, MSG3]),
        "history_empty": format_history_for_llm([]),
        "participants": build_participants_message(PARTS),
        "participants_empty": build_participants_message([]),
        "mcp_tool_names": sorted(mcp_tool_names(["band_send_message", "band_no_reply"])),
        "mcp_tool_names_type": type(mcp_tool_names(["band_send_message"])).__name__,
        "MCP_TOOL_PREFIX": MCP_TOOL_PREFIX,
        "ALL_TOOL_NAMES": sorted(ALL_TOOL_NAMES),
        "BASE_TOOL_NAMES": sorted(BASE_TOOL_NAMES),
        "CHAT_TOOL_NAMES": sorted(CHAT_TOOL_NAMES),
        "CONTACT_TOOL_NAMES": sorted(CONTACT_TOOL_NAMES),
        "MEMORY_TOOL_NAMES": sorted(MEMORY_TOOL_NAMES),
        "TASK_TOOL_NAMES": sorted(TASK_TOOL_NAMES),
        "READ_ONLY_TOOL_NAMES": sorted(READ_ONLY_TOOL_NAMES),
        "TOOL_MODELS": {k: v.__name__ for k, v in sorted(TOOL_MODELS.items())},
        "capabilities": sorted(c.value for c in Capability),
    }
    out["prompt_default"] = render_system_prompt()
    out["prompt_named"] = render_system_prompt(
        agent_name="Ada", agent_description="A helpful bot", custom_section="Be brief."
    )
    out["prompt_no_base"] = render_system_prompt(
        agent_name="Ada", agent_description="d", include_base_instructions=False
    )
    out["prompt_bad_template"] = _try(render_system_prompt, template="nope")
    from band.core.exceptions import AgentAlreadyRunningError, BandConfigError

    names = ["band_send_message", "band_no_reply", "band_no_replx"]
    out["with_suggestion"] = [
        [type(e).__name__, str(e)]
        for e in (
            BandConfigError.with_suggestion("Unknown tool.", bad, names)
            for bad in ("band_send_mesage", "band_sned_message", "xyz", "BAND_NO_REPLY")
        )
    ]
    limited = AgentAlreadyRunningError.with_suggestion("No.", "band_no_rply", names, max_distance=1)
    out["with_suggestion_limited"] = [type(limited).__name__, str(limited)]
    from band.core.exceptions import MessagePostError, MessagePostKind, RoomExecutionStoppedError

    classified = MessagePostError.classified(MessagePostKind.UNCONFIRMED_RECIPIENT, "det")
    out["message_post_error"] = [str(classified), classified.kind, classified.detail]
    out["room_stopped"] = str(RoomExecutionStoppedError("r1"))
    return out


if __name__ == "__main__":
    json.dump(probe(), sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")
