"""The SDK's error base classes and the errors of its own surface (configuration, lifecycle, tools).

The tool errors live here, at band-sdk's import path ``band.core.exceptions``;
``band.runtime.tools`` re-exports them.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from typing import TypeVar

C = TypeVar("C", bound="BandConfigError")

__all__ = [
    "AgentAlreadyRunningError",
    "BandConfigError",
    "BandConnectionError",
    "BandError",
    "BandToolError",
    "InvalidToolArgumentsError",
    "MessagePostError",
    "MessagePostKind",
    "ProviderRunError",
    "RoomExecutionStoppedError",
    "StartupError",
]


class BandError(Exception):
    """Base class of every error this SDK raises (the platform's own: ``band.client.errors``)."""


class BandConnectionError(BandError):
    """The platform could not be reached (connect error, reset, timeout)."""


class StartupError(BandError):
    """The agent could not start; the message says why and what to do next (no traceback
    needed: ``Agent.run()`` and the CLIs print it alone unless ``BAND_LOG_LEVEL=DEBUG``)."""


class BandConfigError(BandError):
    """The agent or adapter is configured in a way that cannot work."""

    @classmethod
    def with_suggestion(
        cls: type[C],
        message: str,
        bad_name: str,
        valid_names: Iterable[str],
        *,
        max_distance: int = 2,
    ) -> C:
        """The error, its message ending ``Did you mean '<name>'?`` when one of
        ``valid_names`` is within ``max_distance`` edits of ``bad_name`` (case ignored)."""
        best: tuple[int, str] | None = None
        for name in valid_names:
            distance = _edit_distance(bad_name.lower(), name.lower())
            if distance <= max_distance and (best is None or distance < best[0]):
                best = (distance, name)
        if best is None:
            return cls(message)
        return cls(f"{message} Did you mean '{best[1]}'?")


def _edit_distance(a: str, b: str) -> int:
    """Levenshtein distance (insertions, deletions, substitutions)."""
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i]
        for j, cb in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        previous = current
    return previous[-1]


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


class ProviderRunError(BandError):
    """A model provider or framework reported a failed run; raise it inside the turn.

    The turn is then reported failed. ``code`` is short and safe to show in the room;
    ``detail`` (provider text, which may echo the prompt) only reaches the logs.
    """

    def __init__(self, code: str, detail: str | None = None) -> None:
        super().__init__(f"{code}: {detail}" if detail else code)
        self.code = code
