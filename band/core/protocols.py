"""``AgentToolsProtocol``: what adapters receive as ``AgentInput.tools``.

``band.runtime.tools.AgentTools`` implements it for one room; test doubles may too. Each
``band_<name>`` platform tool is the method ``<name>``. The tool methods return ``Any`` as
band-sdk 6.0.1 declares them: ``AgentTools`` returns the ``band.core.wire`` results, while
``band.testing.FakeAgentTools`` (and users' doubles) return plain dicts, and both must fit.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from band.core.preprocessor import Preprocessor
from band.core.types import HistoryConverter
from band.core.wire import JsonObject, JsonValue

if TYPE_CHECKING:
    from band.core.turn import AgentFailure, Turn
    from band.core.types import AgentInput, Capability, ToolCallOutcome, ToolParam
    from band.core.wire import ChatParticipant

__all__ = ["AgentToolsProtocol", "FrameworkAdapter", "HistoryConverter", "Preprocessor"]


@runtime_checkable
class AgentToolsProtocol(Protocol):
    """The platform tools bound to the current room, and the turn's ledger."""

    turn: Turn

    @property
    def agent_id(self) -> str | None:
        """This agent's ID, or None when the tools are not bound to one."""
        ...

    @property
    def participants(self) -> list[JsonObject]:
        """A read-only snapshot of the room's participants."""
        ...

    @property
    def is_hub_room(self) -> bool:
        """True when bound to the contact hub room."""
        ...

    async def send_message(
        self, content: str, mentions: list[str] | list[dict[str, str]] | None = None
    ) -> Any:
        """Post the turn's reply, mentioning at least one participant."""
        ...

    async def send_notice(
        self, content: str, mentions: list[str] | list[dict[str, str]] | None = None
    ) -> Any:
        """Post an adapter-written message that records nothing on the turn."""
        ...

    async def send_event(
        self, content: str, message_type: str, metadata: JsonObject | None = None
    ) -> Any:
        """Post an event of any type."""
        ...

    async def no_reply(self, reason: str | None = None) -> Any:
        """Decline to answer this turn."""
        ...

    async def send_failure(self, failure: AgentFailure) -> Any:
        """Report a provider failure as an error event; never raises."""
        ...

    async def add_participant(self, identifier: str, role: str = "member") -> Any:
        """Add a person or agent to the room."""
        ...

    async def remove_participant(self, identifier: str) -> Any:
        """Remove a participant from the room."""
        ...

    async def get_participants(self) -> list[ChatParticipant]:
        """List the room's participants."""
        ...

    async def lookup_peers(self, page: int = 1, page_size: int = 50) -> Any:
        """List peers that could join the room."""
        ...

    async def create_chatroom(self, task_id: str | None = None) -> str:
        """Create a room and return its ID."""
        ...

    async def fetch_room_context(
        self, *, room_id: str, page: int = 1, page_size: int = 50
    ) -> JsonObject:
        """Fetch a page of another room's agent context."""
        ...

    def get_tool_schemas(
        self, format: str, *, capabilities: frozenset[Capability] | None = None
    ) -> list[JsonObject] | list[ToolParam]:
        """Tool schemas in ``"openai"`` or ``"anthropic"`` format."""
        ...

    def get_anthropic_tool_schemas(
        self, *, capabilities: frozenset[Capability] | None = None
    ) -> list[ToolParam]:
        """Typed Anthropic tool schemas."""
        ...

    def get_openai_tool_schemas(
        self, *, capabilities: frozenset[Capability] | None = None
    ) -> list[JsonObject]:
        """OpenAI function tool schemas."""
        ...

    async def execute_tool_call(
        self, tool_name: str, arguments: Mapping[str, JsonValue]
    ) -> JsonValue:
        """Execute a tool by name."""
        ...

    async def execute_tool_call_structured(
        self, tool_name: str, arguments: Mapping[str, JsonValue]
    ) -> ToolCallOutcome:
        """Execute a tool by name, reporting success as ``ok``."""
        ...

    async def list_contacts(self, page: int = 1, page_size: int = 50) -> Any:
        """List the agent's contacts."""
        ...

    async def add_contact(self, handle: str, message: str | None = None) -> Any:
        """Send a contact request."""
        ...

    async def remove_contact(self, handle: str | None = None, contact_id: str | None = None) -> Any:
        """Remove a contact."""
        ...

    async def list_contact_requests(
        self, page: int = 1, page_size: int = 50, sent_status: str = "pending"
    ) -> Any:
        """List received and sent contact requests."""
        ...

    async def respond_contact_request(
        self, action: str, handle: str | None = None, request_id: str | None = None
    ) -> Any:
        """Approve, reject or cancel a contact request."""
        ...

    async def list_memories(
        self,
        subject_id: str | None = None,
        scope: str | None = None,
        system: str | None = None,
        type: str | None = None,
        segment: str | None = None,
        content_query: str | None = None,
        page_size: int = 50,
        status: str | None = None,
    ) -> Any:
        """List memories the agent can access."""
        ...

    async def store_memory(
        self,
        content: str,
        system: str,
        type: str,
        segment: str,
        thought: str,
        scope: str,
        subject_id: str | None = None,
        metadata: JsonObject | None = None,
    ) -> Any:
        """Store a memory."""
        ...

    async def get_memory(self, memory_id: str) -> Any:
        """Read one memory."""
        ...

    async def supersede_memory(self, memory_id: str) -> Any:
        """Mark a memory superseded."""
        ...

    async def archive_memory(self, memory_id: str) -> Any:
        """Archive a memory."""
        ...

    async def list_room_files(self, cursor: str | None = None) -> Any:
        """List the files shared in the room (``Capability.FILES``)."""
        ...

    async def read_room_file(self, file_id: str) -> Any:
        """Read one file shared in the room."""
        ...

    async def send_room_file(
        self, content: str, filename: str, caption: str = "", mentions: list[str] | None = None
    ) -> Any:
        """Share text as a file in the room; it is the turn's reply."""
        ...

    async def list_tasks(
        self, state: str | None = None, cursor: str | None = None, limit: int | None = None
    ) -> Any:
        """List the room board's tasks."""
        ...

    async def create_task(
        self, subject: str, detail: str | None = None, supersedes_id: str | None = None
    ) -> Any:
        """Create a task."""
        ...

    async def get_task(self, id: str, include: str | None = None) -> Any:
        """Read one task."""
        ...

    async def update_task(
        self,
        id: str,
        status: str | None = None,
        active_form: str | None = None,
        comment: str | None = None,
        subject: str | None = None,
        detail: str | None = None,
        state: str | None = None,
    ) -> Any:
        """Update a task."""
        ...

    async def get_task_history(
        self, id: str, cursor: str | None = None, limit: int | None = None
    ) -> Any:
        """Read a task's history."""
        ...

    async def get_board(self, include: str | None = None) -> Any:
        """Read the room's goal."""
        ...

    async def set_board(
        self, goal_title: str | None = None, goal_summary: str | None = None
    ) -> Any:
        """Set the room's goal."""
        ...


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
