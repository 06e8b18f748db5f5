"""``InputAdapter``: a ``SimpleAdapter`` whose turn is one ``AgentInput``, whole."""

from __future__ import annotations

from abc import abstractmethod

from .protocols import AgentToolsProtocol
from .simple_adapter import SimpleAdapter
from .types import AgentInput, HistoryProvider, PlatformMessage

__all__ = ["InputAdapter"]


class InputAdapter(SimpleAdapter[HistoryProvider]):
    """A ``SimpleAdapter`` that takes each turn as one ``AgentInput``: implement :meth:`on_input`.

    For adapters that read the turn's parts as they come (no history converter).
    :meth:`on_message` stays the turn's entry point (a subclass may override it and call
    ``super()``); it hands its arguments over to :meth:`on_input` as one input.
    """

    async def on_message(
        self,
        msg: PlatformMessage,
        tools: AgentToolsProtocol,
        history: HistoryProvider,
        participants_msg: str | None,
        contacts_msg: str | None,
        *,
        is_session_bootstrap: bool,
        room_id: str,
    ) -> None:
        """The turn as one ``AgentInput``, to :meth:`on_input`."""
        inp = AgentInput(
            msg, tools, history, participants_msg, contacts_msg, is_session_bootstrap, room_id
        )
        await self.on_input(inp)

    @abstractmethod
    async def on_input(self, inp: AgentInput) -> None:
        """Run one turn."""
