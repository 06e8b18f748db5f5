"""What every provider module shares: one scripted model response, a parsed request, token
estimates, ids and the server-sent-events framing."""

from __future__ import annotations

import json
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Call", "Parsed", "Reply", "estimate_tokens", "new_id", "sse", "text_of"]


@dataclass(frozen=True)
class Call:
    """One tool call in a response: its id, the offered tool's name, its arguments."""

    id: str
    name: str
    args: Mapping[str, Any]
    #: whether the script gave the id (Gemini's own calls carry none unless given)
    scripted_id: bool = False

    @property
    def arguments(self) -> str:
        """The arguments as the JSON text the OpenAI APIs carry."""
        return json.dumps(dict(self.args))


@dataclass(frozen=True)
class Reply:
    """One model response: text, an optional thought, tool calls (none: the turn ends), and
    how long a stream stays open after its text (an in-flight call for interrupt tests)."""

    text: str = ""
    thinking: str | None = None
    calls: tuple[Call, ...] = ()
    hold: float = 0.0

    @property
    def output_tokens(self) -> int:
        """A deterministic estimate of the response's size in tokens."""
        size = len(self.text) + len(self.thinking or "")
        size += sum(len(c.name) + len(c.arguments) for c in self.calls)
        return estimate_tokens(size)


@dataclass
class Parsed:
    """A request in a provider-neutral form (see ``ModelRequest``)."""

    system: str | None = None
    messages: list[tuple[str, str]] = field(default_factory=list)
    tool_names: list[str] = field(default_factory=list)
    tool_results: list[tuple[str, str]] = field(default_factory=list)


def estimate_tokens(chars: int) -> int:
    """About four characters a token, at least one (usage numbers are always filled in)."""
    return max(1, chars // 4)


def new_id(prefix: str) -> str:
    """A fresh id in the provider's style (``msg_...``, ``call_...``)."""
    return f"{prefix}{uuid.uuid4().hex[:24]}"


def sse(data: Mapping[str, Any], event: str | None = None) -> bytes:
    """One server-sent event (with an ``event:`` line when named)."""
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {json.dumps(data)}\n\n".encode()


def text_of(value: Any) -> str:
    """The text inside a message content: a string, or the text of its parts/blocks."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "".join(text_of(item) for item in value)
    if isinstance(value, dict):
        for key in ("text", "content", "output", "parts"):
            if key in value and value.get("type") not in ("image", "image_url", "input_image"):
                return text_of(value[key])
    return ""
