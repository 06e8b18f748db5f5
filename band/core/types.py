"""The values adapters receive: the platform message, its history and the turn's input."""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Generic, Protocol, TypedDict, TypeVar

from .agent_tools import AgentToolsProtocol
from .tooltypes import Capability, ToolCallOutcome, ToolParam
from .wire import JsonObject, JsonValue

__all__ = [
    "AdapterFeatures",
    "Capability",
    "ConflictPolicy",
    "ContactRequestAction",
    "ContactRequestStatus",
    "AgentInput",
    "Emit",
    "FeatureKwargs",
    "HistoryConverter",
    "HistoryProvider",
    "MessageType",
    "PlatformMessage",
    "ToolCallOutcome",
    "ToolEventKey",
    "ToolParam",
]

T = TypeVar("T")
T_co = TypeVar("T_co", covariant=True)


class ConflictPolicy(enum.StrEnum):
    """What the first connection does when another one of this agent is live."""

    SUPERSEDE = "supersede"
    REJECT = "reject"


class MessageType(enum.StrEnum):
    """The ``message_type`` of a chat message or event."""

    TEXT = "text"
    THOUGHT = "thought"
    TOOL_CALL = "tool_call"
    TOOL_RESULT = "tool_result"
    ERROR = "error"
    TASK = "task"
    USAGE = "usage"


class ToolEventKey(enum.StrEnum):
    """The metadata keys of ``tool_call`` / ``tool_result`` events."""

    NAME = "name"
    ARGS = "args"
    OUTPUT = "output"
    TOOL_CALL_ID = "tool_call_id"
    IS_ERROR = "is_error"


class ContactRequestAction(enum.StrEnum):
    """What ``band_respond_contact_request`` does."""

    APPROVE = "approve"
    REJECT = "reject"
    CANCEL = "cancel"


class ContactRequestStatus(enum.StrEnum):
    """The state of a contact request."""

    PENDING = "pending"
    APPROVED = "approved"
    REJECTED = "rejected"
    CANCELLED = "cancelled"


class Emit(enum.StrEnum):
    """Telemetry an adapter may post to the room besides its replies."""

    TOOL_CALLS = "tool_calls"
    THOUGHTS = "thoughts"
    TASK_EVENTS = "task_events"
    USAGE = "usage"


@dataclass(frozen=True, slots=True)
class PlatformMessage:
    """One chat message delivered to the agent."""

    id: str
    room_id: str
    content: str
    sender_id: str
    sender_type: str
    sender_name: str | None
    message_type: str
    metadata: JsonValue
    created_at: datetime

    def format_for_llm(self) -> str:
        """The message as one line a model reads: ``[sender]: content``."""
        return f"[{self.sender_name or self.sender_type}]: {self.content}"


class HistoryConverter(Protocol, Generic[T_co]):
    """Turns raw platform history rows into a framework's message format."""

    def convert(self, raw: list[JsonObject]) -> T_co:
        """Convert ``raw`` (platform messages, oldest first)."""
        ...


@dataclass(slots=True)
class HistoryProvider:
    """The room's history as raw platform rows, converted on demand."""

    raw: list[JsonObject] = field(default_factory=list)

    def convert(self, converter: HistoryConverter[T]) -> T:
        """The history in ``converter``'s format."""
        return converter.convert(self.raw)

    def __len__(self) -> int:
        return len(self.raw)

    def __bool__(self) -> bool:
        return bool(self.raw)


@dataclass(frozen=True, slots=True)
class AgentInput:
    """Everything one turn gives the adapter."""

    msg: PlatformMessage
    tools: AgentToolsProtocol
    history: HistoryProvider
    participants_msg: str | None
    contacts_msg: str | None
    is_session_bootstrap: bool
    room_id: str
    commit_context: Callable[[], None] | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class AdapterFeatures:
    """The adapter's negotiated feature set (tool groups, telemetry, tool filters)."""

    capabilities: frozenset[Capability] = frozenset()
    emit: frozenset[Emit] = frozenset()
    include_tools: frozenset[str] | None = None
    exclude_tools: frozenset[str] | None = None
    include_categories: frozenset[str] | None = None

    @staticmethod
    def names(values: Iterable[object] | None) -> frozenset[str] | None:
        """A frozen set of tool or category names (None stays None)."""
        return None if values is None else frozenset(str(v) for v in values)


class FeatureKwargs(TypedDict, total=False):
    """The feature keywords every ``SimpleAdapter`` constructor accepts."""

    emit: Emit | Iterable[Emit]
    capabilities: Capability | Iterable[Capability]
    include_tools: Iterable[str]
    exclude_tools: Iterable[str]
    include_categories: Iterable[str]
