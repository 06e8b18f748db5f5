"""Matching room participants by handle, name or id, and the mention-handle hint for errors."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

__all__ = [
    "append_available_mention_handles",
    "append_mention_handles_hint",
    "available_mention_handles",
    "matches_identifier",
    "strip_handle_prefix",
]

_HINT = "Available handles:"


def _field(entity: Any, key: str) -> Any:
    # A cached participant is a dict; a model (wire Struct, pydantic) has attributes.
    if isinstance(entity, dict):
        return entity.get(key)
    return getattr(entity, key, None)


def strip_handle_prefix(value: str) -> str:
    """``value`` without its leading ``@`` signs, so ``@alice`` and ``alice`` compare equal."""
    return value.lstrip("@")


def matches_identifier(entity: Any, identifier: str) -> bool:
    """True when ``identifier`` is the entity's handle (``@`` optional), name or id, any case."""
    if not identifier:
        return False
    wanted = identifier.casefold()
    handle = _field(entity, "handle")
    if handle and strip_handle_prefix(str(handle)).casefold() == strip_handle_prefix(wanted):
        return True
    return any(
        (value := _field(entity, key)) and str(value).casefold() == wanted for key in ("name", "id")
    )


def available_mention_handles(
    participants: Iterable[Any], agent_id: str | None = None
) -> list[str]:
    """The handles (as stored) of the participants other than ``agent_id`` that have one."""
    return [
        str(handle)
        for p in participants
        if (handle := _field(p, "handle")) and (agent_id is None or _field(p, "id") != agent_id)
    ]


def append_mention_handles_hint(error: str, handles: list[str]) -> str:
    """``error`` plus the handles a retry may mention; unchanged without handles or if hinted."""
    if not handles or _HINT in error:
        return error
    return f"{error}. {_HINT} {handles!r}. Use participant handles from the list."


def append_available_mention_handles(
    error: str, participants: list[Any], agent_id: str | None = None
) -> str:
    """``append_mention_handles_hint`` with the mentionable handles of ``participants``."""
    return append_mention_handles_hint(error, available_mention_handles(participants, agent_id))
