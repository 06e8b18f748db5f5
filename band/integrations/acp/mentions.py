"""``@[[<id>]]`` mention tokens rewritten to ``@handle`` before text reaches an ACP agent.

The rewrite is band.runtime.formatters' (band-sdk 6.0.1's rule); this module adds the check
for whether a text holds any token, so a turn reads the roster only when it must.
"""

from __future__ import annotations

import re

from band.runtime.formatters import mention_label, replace_uuid_mentions

__all__ = ["has_mention_tokens", "mention_label", "replace_uuid_mentions"]

_TOKEN = re.compile(r"@\[\[([^\[\]\s]+)\]\]")


def has_mention_tokens(content: str) -> bool:
    """Whether ``content`` holds a platform ``@[[<id>]]`` token."""
    return bool(_TOKEN.search(content))
