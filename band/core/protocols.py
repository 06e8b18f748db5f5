"""The protocols adapters meet, at band-sdk's import path: ``AgentToolsProtocol`` (a turn's
tools, ``band.core.agent_tools``), ``HistoryConverter``, ``Preprocessor``, ``FrameworkAdapter``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, runtime_checkable

from band.core.agent_tools import AgentToolsProtocol
from band.core.preprocessor import Preprocessor
from band.core.types import HistoryConverter

if TYPE_CHECKING:
    from band.core.types import AgentInput

__all__ = ["AgentToolsProtocol", "FrameworkAdapter", "HistoryConverter", "Preprocessor"]


@runtime_checkable
class FrameworkAdapter(Protocol):
    """What the runtime calls on an adapter: one turn per message, per-room cleanup, start.

    ``SimpleAdapter`` implements it (and is what ``Agent`` and ``OneShotInvoker`` take); a turn
    gets only messages addressed to the agent, never room or presence events.
    """

    async def on_event(self, inp: AgentInput) -> None:
        """Run one turn for ``inp.msg``, answering through ``inp.tools``."""
        ...

    async def on_cleanup(self, room_id: str) -> None:
        """Drop what the adapter keeps for ``room_id`` (the agent left it, or stops)."""
        ...

    async def on_started(self, agent_name: str, agent_description: str) -> None:
        """The agent is connected: its name and description as the platform has them."""
        ...
