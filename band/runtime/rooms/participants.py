"""The participants of one room: a ``ParticipantRoster`` fed by REST and participant pushes."""

from __future__ import annotations

import logging

from band.client.rest import RestClient, path
from band.core.wire import JsonObject
from band_sdk_core import ParticipantRoster

__all__ = ["RoomParticipants"]

log = logging.getLogger("band.runtime.rooms.participants")


class RoomParticipants:
    """Who is in the room, kept in band_sdk_core's ``ParticipantRoster``."""

    def __init__(self, rest: RestClient, room_id: str, agent_id: str) -> None:
        self.rest = rest
        self.room_id = room_id
        self.agent_id = agent_id
        self.roster = ParticipantRoster()
        self.loaded = False

    async def load(self) -> None:
        """Replace the roster with the platform's list."""
        resp = await self.rest.request("GET", path("/agent/chats/{}/participants", self.room_id))
        rows = resp.data if isinstance(resp.data, list) else []
        self.roster.set_all(
            [r for r in rows if isinstance(r, dict) and isinstance(r.get("id"), str)]
        )
        self.loaded = True

    def added(self, payload: JsonObject) -> None:
        """Apply a ``participant_added`` push."""
        self.roster.add(payload)

    def removed(self, payload: JsonObject) -> None:
        """Apply a ``participant_removed`` push."""
        self.roster.remove(str(payload["id"]))

    def changed(self) -> bool:
        """Whether the participants changed since the model was last told."""
        return bool(self.roster.changed())

    def mark_sent(self) -> None:
        """The model was told about the current participants."""
        self.roster.mark_sent()

    def snapshot(self) -> list[JsonObject]:
        """The participants as dicts (``id``, ``name``, ``type``, ``handle``, ``description``)."""
        return list(map(dict, self.roster.list()))  # every turn: no comprehension's frame
