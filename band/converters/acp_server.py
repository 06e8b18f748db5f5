"""``ACPServerHistoryConverter``: the ACP sessions a room's history records, for the ACP
server adapter started again (``BandACPServerAdapter`` records each in a ``task`` event)."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from band.core.types import HistoryConverter
from band.core.wire import JsonObject

if TYPE_CHECKING:
    from band.integrations.acp.sessions import ACPSessionState

__all__ = ["ACPServerHistoryConverter"]

log = logging.getLogger("band.converters")


class ACPServerHistoryConverter(HistoryConverter["ACPSessionState"]):
    """History rows -> ``ACPSessionState``: each row whose metadata has ``acp_session_id``
    maps that session to ``acp_room_id`` (else the row's ``room_id``), with the editor's
    ``acp_cwd`` and ``acp_mcp_servers``; a later row of a session wins."""

    def convert(self, raw: list[JsonObject]) -> ACPSessionState:
        """The sessions ``raw`` (platform history rows, oldest first) records."""
        # imported here: band.integrations.acp imports this module (and needs the [acp] extra)
        from band.integrations.acp.sessions import ACPSessionState

        state = ACPSessionState()
        for row in raw:
            meta = row.get("metadata")
            session_id = meta.get("acp_session_id") if isinstance(meta, dict) else None
            if not isinstance(meta, dict) or not isinstance(session_id, str) or not session_id:
                continue
            room_id = meta.get("acp_room_id") or row.get("room_id")
            if isinstance(room_id, str) and room_id:
                state.session_to_room[session_id] = room_id
            cwd = meta.get("acp_cwd")
            if isinstance(cwd, str) and cwd:
                state.session_cwd[session_id] = cwd
            servers = meta.get("acp_mcp_servers")
            if isinstance(servers, list):
                kept: list[dict[str, Any]] = [s for s in servers if isinstance(s, dict)]
                state.session_mcp_servers[session_id] = kept
        log.debug("ACP server history: %d sessions", len(state.session_to_room))
        return state
