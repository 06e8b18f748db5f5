"""Contact event handling settings: ``ContactEventStrategy`` and ``ContactEventConfig``."""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from band.runtime.contacts.events import ContactEvent
    from band.runtime.contacts.tools import ContactTools

__all__ = ["ContactEventCallback", "ContactEventConfig", "ContactEventStrategy"]

#: ``on_event`` of the CALLBACK strategy: ``await on_event(event, contact_tools)``.
ContactEventCallback = Callable[["ContactEvent", "ContactTools"], Awaitable[None]]


class ContactEventStrategy(Enum):
    """What the runtime does with the agent's contact events.

    Auto-approving every request lets anyone start conversations that cost model tokens,
    so the default ignores them; choose a strategy deliberately.
    """

    #: Ignore contact events; contacts are managed by hand (the default).
    DISABLED = "disabled"
    #: Call ``ContactEventConfig.on_event(event, ContactTools)``; no model involved.
    CALLBACK = "callback"
    #: Hand each event to the agent's model as a turn in a dedicated contacts hub room.
    HUB_ROOM = "hub_room"


@dataclass
class ContactEventConfig:
    """How contact events are handled; ``broadcast_changes`` works with every strategy.

    ``broadcast_changes``: contacts added or removed are announced to every room's next turn
    (in ``contacts_msg``). ``hub_task_id``: the task (a UUID) the hub room is linked to.
    """

    strategy: ContactEventStrategy = ContactEventStrategy.DISABLED
    hub_task_id: str | None = None
    on_event: ContactEventCallback | None = None
    broadcast_changes: bool = False

    def __post_init__(self) -> None:
        if self.strategy == ContactEventStrategy.CALLBACK and self.on_event is None:
            raise ValueError("CALLBACK strategy requires on_event callback")
        if self.hub_task_id is not None:
            try:
                uuid.UUID(self.hub_task_id)
            except (ValueError, AttributeError, TypeError):
                # checked here: the platform would only refuse it once the agent runs
                raise ValueError(f"hub_task_id must be a UUID, got {self.hub_task_id!r}") from None

    @property
    def enabled(self) -> bool:
        """Whether the runtime subscribes to contact events at all."""
        return self.strategy != ContactEventStrategy.DISABLED or self.broadcast_changes
