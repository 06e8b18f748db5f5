"""``@[[<id>]]`` mention tokens rewritten to ``@handle`` before text reaches an ACP agent."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

__all__ = ["has_mention_tokens", "mention_label", "replace_uuid_mentions"]

_TOKEN = re.compile(r"@\[\[([^\[\]\s]+)\]\]")


def mention_label(*, handle: str | None, name: str | None) -> str | None:
    """How a participant is mentioned, without ``@``: the handle, else the name without spaces."""
    if handle:
        return handle[1:] if handle.startswith("@") else handle
    if not name:
        return None
    # a label never holds whitespace: readers split mentions on it
    return "-".join(name.split()) or None


def has_mention_tokens(content: str) -> bool:
    """Whether ``content`` holds a platform ``@[[<id>]]`` token."""
    return bool(_TOKEN.search(content))


def replace_uuid_mentions(content: str, participants: Iterable[Mapping[str, Any]]) -> str:
    """``content`` with each known participant's ``@[[<id>]]`` token as ``@<handle>``.

    A token of someone not in ``participants`` (or without a handle or name) stays as it is.
    """
    labels: dict[str, str] = {}
    for p in participants:
        pid, label = p.get("id"), mention_label(handle=p.get("handle"), name=p.get("name"))
        if isinstance(pid, str) and pid and label:
            labels[pid] = label

    def swap(m: re.Match[str]) -> str:
        label = labels.get(m.group(1))
        return f"@{label}" if label else m.group(0)

    return _TOKEN.sub(swap, content) if content else content
