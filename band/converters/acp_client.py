"""``ACPClientHistoryConverter``: what a room's history says about its ACP client session, for
``ACPClientAdapter`` started again (the session to ``session/load`` and the replay lines)."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from band.core.types import HistoryConverter
from band.core.wire import JsonObject

if TYPE_CHECKING:
    from band.integrations.acp.session_state import ACPClientSessionState

__all__ = ["ACPClientHistoryConverter"]

log = logging.getLogger("band.converters")


class ACPClientHistoryConverter(HistoryConverter["ACPClientSessionState"]):
    """History rows -> ``ACPClientSessionState``: each room's last ``ACP client session``
    event (``acp_client_room_id`` -> ``acp_client_session_id``) and the room's text messages
    as ``[sender]: text`` replay lines, read as ``ACPClientAdapter`` reads them."""

    def convert(self, raw: list[JsonObject]) -> ACPClientSessionState:
        """The session state ``raw`` (one room's platform history rows, oldest first) records."""
        # imported here: band.integrations.acp needs the [acp] extra
        from band.integrations.acp.session_state import ACPClientSessionState

        # an event naming no room belongs to the room the rows came from
        room_id = next((r["room_id"] for r in raw if isinstance(r.get("room_id"), str)), "")
        state = ACPClientSessionState.from_history(raw, str(room_id))
        log.debug(
            "ACP client history: %d sessions, %d replay lines",
            len(state.room_to_session),
            len(state.replay_messages),
        )
        return state
