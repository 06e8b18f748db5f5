"""The demo agent: a deterministic SimpleAdapter that shows a model-style turn, without a model."""

from __future__ import annotations

import json
import re
import uuid
from typing import Any

from band.core import SimpleAdapter
from band.core.types import PlatformMessage

__all__ = ["DemoAdapter", "SilentAdapter", "plain"]

_MENTION_TOKEN = re.compile(r"@\[\[[^\]]+\]\]\s*")


def plain(content: str) -> str:
    """Message text without the ``@[[id]]`` tokens the platform puts in for mentions."""
    return _MENTION_TOKEN.sub("", content).strip()


class DemoAdapter(SimpleAdapter[Any]):
    """Thinks aloud, then replies through ``band_send_message`` the way a model's tool call does.

    Each turn posts a ``thought`` event, a ``tool_call`` event naming the tool and its
    arguments, runs the tool through the same path a model loop uses
    (``execute_tool_call_structured``), and posts its ``tool_result``. The reply mentions the
    sender, so the platform delivers it to them.
    """

    async def on_message(
        self,
        msg: PlatformMessage,
        tools: Any,
        history: Any,
        participants_msg: str | None,
        contacts_msg: str | None,
        *,
        is_session_bootstrap: bool,
        room_id: str,
    ) -> None:
        text = plain(msg.content) or "(nothing)"
        sender = msg.sender_name or msg.sender_type
        await tools.send_event(
            f"{sender} asked me something; I will answer with band_send_message.", "thought"
        )
        args = {"content": f"Hello {sender}! You said: {text}", "mentions": [msg.sender_id]}
        call_id = f"demo-{uuid.uuid4().hex[:8]}"
        await tools.send_event(
            json.dumps({"name": "band_send_message", "args": args}),
            "tool_call",
            {"name": "band_send_message", "args": args, "tool_call_id": call_id},
        )
        outcome = await tools.execute_tool_call_structured("band_send_message", args)
        output = outcome.value if isinstance(outcome.value, str) else json.dumps(outcome.value)
        await tools.send_event(
            output,
            "tool_result",
            {
                "name": "band_send_message",
                "output": output,
                "tool_call_id": call_id,
                "is_error": not outcome.ok,
            },
        )


class SilentAdapter(SimpleAdapter[Any]):
    """Never replies (a test aid for the demo's failure path: the runtime reports the turn)."""

    async def on_message(self, *args: Any, **kwargs: Any) -> None:
        return None
