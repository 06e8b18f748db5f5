"""Errors the platform tools raise (as opposed to error strings they return to the model)."""

from __future__ import annotations

import enum

from band.client.errors import BandError

__all__ = [
    "BandToolError",
    "InvalidToolArgumentsError",
    "MessagePostError",
    "MessagePostKind",
    "RoomExecutionStoppedError",
]


class BandToolError(BandError):
    """A tool failure the adapter must see: ``execute_tool_call`` re-raises it."""


class MessagePostKind(enum.StrEnum):
    """Why a chat message post failed, as a stable token for logs and tool results."""

    MENTION_NOT_IN_ROOM = "mentioned_participant_not_in_room"
    UNCONFIRMED_RECIPIENT = "unconfirmed_recipient"


class MessagePostError(BandToolError):
    """A classified failure of ``band_send_message``; ``kind`` says which."""

    def __init__(self, kind: MessagePostKind, detail: str) -> None:
        self.kind = kind
        self.detail = detail
        super().__init__(f"{kind}: {detail}")


class InvalidToolArgumentsError(BandError, ValueError):
    """A tool's arguments failed its input model; the message names each field."""


class RoomExecutionStoppedError(BandError):
    """The platform refused a post because the agent's execution in the room is stopped."""

    def __init__(self, room_id: str) -> None:
        self.room_id = room_id
        super().__init__(f"Room {room_id}: platform execution was stopped")
