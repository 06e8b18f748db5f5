"""Errors of the SDK's own surface (configuration, lifecycle, tools); platform ones: band.client.

The tool errors live here, at band-sdk's import path ``band.core.exceptions``;
``band.runtime.tools`` re-exports them.
"""

from __future__ import annotations

import enum

from band.client.errors import BandConnectionError, BandError

__all__ = [
    "AgentAlreadyRunningError",
    "BandConfigError",
    "BandConnectionError",
    "BandError",
    "BandToolError",
    "InvalidToolArgumentsError",
    "MessagePostError",
    "MessagePostKind",
    "RoomExecutionStoppedError",
]


class BandConfigError(BandError):
    """The agent or adapter is configured in a way that cannot work."""


class AgentAlreadyRunningError(BandConfigError):
    """This agent is already started (in this process)."""


class BandToolError(BandError):
    """A tool failure the adapter must see: ``execute_tool_call`` re-raises it."""


class MessagePostKind(enum.StrEnum):
    """Why a chat message post failed, as a stable token for logs and tool results."""

    MENTION_NOT_IN_ROOM = "mentioned_participant_not_in_room"
    UNCONFIRMED_RECIPIENT = "unconfirmed_recipient"


class MessagePostError(BandToolError):
    """A failure of ``band_send_message``; ``kind`` says which when it is classified."""

    def __init__(
        self, message: str, *, kind: MessagePostKind | None = None, detail: str | None = None
    ) -> None:
        self.kind = kind
        self.detail = detail
        super().__init__(message)

    @classmethod
    def classified(cls, kind: MessagePostKind, detail: str) -> MessagePostError:
        """The error of ``kind``, its message ``"<kind>: <detail>"``."""
        return cls(f"{kind}: {detail}", kind=kind, detail=detail)


class InvalidToolArgumentsError(BandError, ValueError):
    """A tool's arguments failed its input model; the message names each field."""


class RoomExecutionStoppedError(BandError):
    """The platform refused a post because the agent's execution in the room is stopped."""

    def __init__(self, room_id: str) -> None:
        self.room_id = room_id
        super().__init__(f"Room {room_id}: platform execution was stopped")
