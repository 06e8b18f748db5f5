"""One MCP tool as band-mcp serves it: name, description, input model, handler, room binding."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel

from .config import Scope, ToolGroup

#: A handler gets the validated input model and the room id (None for room-less tools).
Handler = Callable[[BaseModel, str | None], Awaitable[Any]]
#: Where a room-bound tool takes its room: a ``chat_id`` field of its own model (human tools),
#: or a ``chat_id``/``room_id`` argument the server adds and strips (agent tools).
RoomBinding = Literal["model", "added"]


@dataclass(frozen=True, slots=True)
class ToolDef:
    """A tool of one scope; ``room`` says how it gets its room (None: not room-bound)."""

    name: str
    description: str
    model: type[BaseModel]
    handler: Handler
    scope: Scope
    group: ToolGroup | None = None
    room: RoomBinding | None = None
