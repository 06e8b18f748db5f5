"""``AgentRouter``: which peer an editor's prompt is for (a ``/command`` or the session's mode)."""

from __future__ import annotations

__all__ = ["AgentRouter"]


class AgentRouter:
    """Picks the peer a prompt addresses: ``/<command> rest`` names one through
    ``slash_commands`` (the command is dropped from the text, case does not matter), else the
    session's mode through ``mode_to_peer``; no match addresses every peer (``None``)."""

    def __init__(
        self,
        mode_to_peer: dict[str, str] | None = None,
        slash_commands: dict[str, str] | None = None,
    ) -> None:
        self._modes = dict(mode_to_peer or {})
        self._commands = {name.lower(): peer for name, peer in (slash_commands or {}).items()}

    def resolve(self, text: str, current_mode: str | None = None) -> tuple[str, str | None]:
        """``(text to post, peer or None)`` for a prompt in a session of ``current_mode``."""
        if text.startswith("/"):
            words = text[1:].split(None, 1)
            peer = self._commands.get(words[0].lower()) if words else None
            if peer is not None:
                return (words[1] if len(words) > 1 else ""), peer
        if current_mode is not None and current_mode in self._modes:
            return text, self._modes[current_mode]
        return text, None
