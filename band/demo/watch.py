"""Print a room as it unfolds: messages and events, read through the human API."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable

from band.client import RestClient, path
from band.core.wire import JsonValue, MessageRow

__all__ = ["Clock", "RoomWatcher", "render"]

_MENTION_TOKEN = re.compile(r"@\[\[([^\]]+)\]\]")
_LABELS = {
    "thought": "thought",
    "tool_call": "tool call",
    "tool_result": "tool result",
    "error": "error",
    "task": "task",
    "attention": "attention",
}
MAX_LINE = 160


class Clock:
    """Seconds since the demo started, as the ``[  1.23s]`` prefix of every line."""

    def __init__(self) -> None:
        self.t0 = time.monotonic()

    def stamp(self) -> str:
        return f"[{time.monotonic() - self.t0:6.2f}s]"


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= MAX_LINE else text[: MAX_LINE - 1] + "…"


def _named(value: JsonValue, names: dict[str, str]) -> JsonValue:
    """``value`` with every participant id shown as ``@name`` (for display only)."""
    if isinstance(value, str):
        return f"@{names[value]}" if value in names else value
    if isinstance(value, list):
        return [_named(v, names) for v in value]
    if isinstance(value, dict):
        return {k: _named(v, names) for k, v in value.items()}
    return value


def render(row: MessageRow, names: dict[str, str]) -> str:
    """One room row as a line: ``Sender: text`` or ``Sender (tool call): name {args}``."""
    sender = row.sender_name or names.get(row.sender_id or "", "?")
    content = row.content or ""
    content = _MENTION_TOKEN.sub(lambda m: "@" + names.get(m.group(1), m.group(1)), content)
    kind = row.message_type or "text"
    meta = row.metadata or {}
    if kind == "text":
        return _short(f"{sender}: {content}")
    if kind == "tool_call" and meta.get("name"):
        args = json.dumps(_named(meta.get("args", {}), names), ensure_ascii=False)
        content = f"{meta['name']} {args}"
    elif kind == "tool_result" and meta.get("name"):
        status = "failed" if meta.get("is_error") else "ok"
        content = f"{meta['name']} -> {status}: {meta.get('output', content)}"
    return _short(f"{sender} ({_LABELS.get(kind, kind)}): {content}")


class RoomWatcher:
    """Polls a room's messages as the local person and hands each new row to ``on_row``."""

    def __init__(
        self,
        rest: RestClient,
        room_id: str,
        names: dict[str, str],
        on_row: Callable[[MessageRow], None],
    ) -> None:
        self.rest = rest
        self.room_id = room_id
        self.names = names
        self.on_row = on_row
        self.seen: set[str] = set()

    async def poll(self) -> list[MessageRow]:
        """Fetch the rows not seen yet (every page), report them, and return them."""
        fresh: list[MessageRow] = []
        url = path("/me/chats/{}/messages", self.room_id)
        async for page in self.rest.pages(url, {"limit": 100}):
            for row in page.rows_as(MessageRow):
                if row.id is not None and row.id not in self.seen:
                    self.seen.add(row.id)
                    fresh.append(row)
        fresh.reverse()  # the platform pages newest first; report in the order they were sent
        for row in fresh:
            self.on_row(row)
        return fresh
