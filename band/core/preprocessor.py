"""``Preprocessor``: turns a room event into the adapter's ``AgentInput`` (or skips it)."""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from .types import AgentInput

__all__ = ["Preprocessor"]


@runtime_checkable
class Preprocessor(Protocol):
    """Builds each turn's input; ``band.preprocessing.DefaultPreprocessor`` is the default.

    ``ctx`` is the room's ``band.runtime.rooms.context.RoomContext``; ``event`` a
    ``band.platform.event.MessageEvent``. Returning None skips the message: the adapter is
    not run and the message counts as handled. Context the input consumes (the participant
    update, queued system updates, the bootstrap) stays owed until ``inp.commit_context()``,
    which the runtime calls once the adapter ran.
    """

    async def process(self, ctx: Any, event: Any, agent_id: str) -> AgentInput | None:
        """The input for ``event``, or None to skip it."""
        ...
