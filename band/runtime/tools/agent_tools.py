"""``AgentTools``: the platform tools bound to one room and one turn."""

from __future__ import annotations

import inspect
import logging
import time
from collections.abc import Awaitable, Callable, Coroutine, Mapping
from typing import TYPE_CHECKING, Any, Concatenate, ParamSpec, Protocol, TypeVar

from pydantic import BaseModel

from band.client.rest import RestClient, adopt_rest_client, path
from band.core import wire as w
from band.core.protocols import AgentToolsProtocol
from band.core.turn import AgentFailure, Turn, failure_event
from band.core.types import Capability, ToolParam

from . import ops
from . import registry as t
from .registry import TOOL_MODELS, ToolCallOutcome, run_tool, select_tools
from .spec import FORMATS, ToolSpec

if TYPE_CHECKING:
    from band.runtime.trace import TurnTrace

log = logging.getLogger("band.tools")

__all__ = ["AgentTools"]

R = TypeVar("R")
P = ParamSpec("P")


def _tool_method(
    spec: ToolSpec[Any, R], declared: Callable[Concatenate[Any, P], Awaitable[Any]]
) -> Callable[Concatenate[AgentTools, P], Coroutine[Any, Any, R]]:
    """The ``AgentTools`` method that runs ``spec`` with its arguments, declared once: the
    parameters and docstring of the ``AgentToolsProtocol`` method ``declared``."""
    signature = inspect.signature(declared)

    async def method(self: AgentTools, /, *args: P.args, **kwargs: P.kwargs) -> R:
        bound = signature.bind(self, *args, **kwargs)
        bound.apply_defaults()
        arguments = dict(bound.arguments)
        del arguments["self"]
        return await self._call(spec, **arguments)

    method.__name__ = declared.__name__
    method.__qualname__ = f"AgentTools.{declared.__name__}"
    method.__doc__ = declared.__doc__
    method.__signature__ = signature  # type: ignore[attr-defined]
    return method


class _RoomBinding(Protocol):
    """What ``AgentTools.from_context`` takes: an ``ExecutionContext`` (it makes the tools)."""

    def new_tools(self) -> AgentTools: ...


class AgentTools:
    """Band's platform tools for one room; tool methods record their effect on ``turn``.

    Every ``band_<name>`` tool is the method ``<name>``; a method that only runs its tool is
    made by ``_tool_method`` from the ``AgentToolsProtocol`` declaration. Methods validate
    their arguments like the tool call does (``InvalidToolArgumentsError``) and raise on
    failure; ``execute_tool_call`` turns failures into error strings for the model.
    """

    def __init__(
        self,
        room_id: str,
        rest: RestClient,
        participants: list[w.JsonObject] | None = None,
        *,
        hub_room_id: str | None = None,
        agent_id: str | None = None,
    ) -> None:
        self.room_id = room_id
        # band-sdk passes band_rest's AsyncRestClient here: ours speaks for it
        if type(rest) is not RestClient:  # (the runtime's own, every turn: no call for it)
            rest = adopt_rest_client(rest)
        self.rest = rest
        self.hub_room_id = hub_room_id
        self.turn = Turn()
        #: the running turn's trace (the runtime sets it): each tool call is recorded there
        self.trace: TurnTrace | None = None
        cached = list(map(dict, participants)) if participants is not None else None
        self._ctx = ops.ToolContext(rest, room_id, agent_id, cached)

    def __repr__(self) -> str:
        return f"AgentTools(room_id={self.room_id!r}, agent_id={self.agent_id!r})"

    @classmethod
    def from_context(cls, ctx: _RoomBinding, *, bind_scope: bool = True) -> AgentTools:
        """New tools for the room of ``ctx`` (an ``ExecutionContext``), with a fresh turn.

        ``bind_scope`` is accepted for band-sdk compatibility; the tools always belong to
        the context's room.
        """
        tools = ctx.new_tools()
        if not isinstance(tools, cls):
            raise TypeError(f"not an ExecutionContext: {type(ctx).__name__}")
        return tools

    # --- the protocol's plain members ---------------------------------------------------------

    @property
    def agent_id(self) -> str | None:
        """This agent's ID, or None when the tools are not bound to one."""
        return self._ctx.agent_id

    @property
    def participants(self) -> list[w.JsonObject]:
        """A copy of the cached room participants (refreshed by ``get_participants``)."""
        return [dict(p) for p in self._ctx.participants or []]

    def set_participants(self, participants: list[w.JsonObject]) -> None:
        """Replace the cached participants (the runtime calls this when the room changes)."""
        self._ctx.participants = [dict(p) for p in participants]

    @property
    def tool_models(self) -> dict[str, type[BaseModel]]:
        """Each platform tool's input model, by tool name."""
        return dict(TOOL_MODELS)

    def available_mention_handles(self) -> list[str]:
        """The handle of each cached participant other than this agent, as stored."""
        return [
            str(p["handle"])
            for p in self._ctx.participants or []
            if p.get("handle") and p.get("id") != self.agent_id
        ]

    @property
    def is_hub_room(self) -> bool:
        """True when bound to the agent's contact hub room."""
        return self.hub_room_id is not None and self.room_id == self.hub_room_id

    @property
    def context(self) -> ops.ToolContext:
        """The binding the tool functions run against (shared with band-mcp's tools)."""
        return self._ctx

    @property
    def posted(self) -> tuple[str, ...]:
        """Texts of the messages posted through these tools, answered or not."""
        return tuple(self._ctx.posted)

    async def _call(self, spec: ToolSpec[Any, R], **arguments: w.JsonValue) -> R:
        """Validate and run one tool; record its effect only when it returns; its typed result."""
        start = time.monotonic()
        try:
            value = await spec.run(self._ctx, spec.validate(arguments))
        except BaseException as exc:
            self._traced(spec.name, arguments, start, type(exc).__name__)
            raise
        if self.trace is not None:  # (``_traced`` inline: every tool call comes here)
            self.trace.tool(spec.name, arguments, start)
        self.turn.record(spec.effect)
        return spec.result(value)

    def _traced(
        self, name: str, arguments: Mapping[str, Any], start: float, error: str | None = None
    ) -> None:
        """Record a tool call that began at monotonic ``start`` on the running turn's trace."""
        if self.trace is not None:
            self.trace.tool(name, arguments, start, error=error)

    # --- chat ---------------------------------------------------------------------------------

    async def send_message(
        self,
        content: str,
        mentions: list[str] | list[dict[str, str]] | None = None,
        *,
        attachment_ids: list[str] | None = None,
    ) -> w.MessageSentResponse:
        """Post a message mentioning ``mentions``; it is the turn's reply."""
        return await self._call(
            t.SEND_MESSAGE,
            content=content,
            mentions=list(mentions or []),
            attachment_ids=attachment_ids,
        )

    async def send_notice(
        self, content: str, mentions: list[str] | list[dict[str, str]] | None = None
    ) -> w.MessageSentResponse:
        """Post a message the adapter wrote itself; it records nothing on the turn."""
        args = t.SEND_MESSAGE.validate({"content": content, "mentions": list(mentions or [])})
        posted = await ops.post_message(self._ctx, args.content, args.mentions)
        return t.SEND_MESSAGE.result(posted)

    async def send_event(
        self, content: str, message_type: str, metadata: w.JsonObject | None = None
    ) -> w.EventCreatedResponse:
        """Post an event of any type (``tool_call``, ``tool_result``, ``thought``, ...)."""
        # any message_type an adapter narrates, not only the ones the model is offered
        start = time.monotonic()
        arguments = {"content": content, "message_type": message_type, "metadata": metadata}
        try:
            result = await ops.post_event(self._ctx, content, message_type, metadata)
        except BaseException as exc:
            self._traced(t.SEND_EVENT.name, arguments, start, type(exc).__name__)
            raise
        self._traced(t.SEND_EVENT.name, arguments, start)
        self.turn.record(t.SEND_EVENT.effect)
        return t.SEND_EVENT.result(result)

    no_reply = _tool_method(t.NO_REPLY, AgentToolsProtocol.no_reply)

    async def send_failure(self, failure: AgentFailure) -> w.EventCreatedResponse | w.JsonObject:
        """Post ``failure`` as an ``error`` event and note it on the turn; never raises.

        When the event cannot be posted the turn is left as it was, so the runtime still
        reports the turn itself; the result is then ``{"ok": False, "error": <reason>}``.
        """
        content, meta = failure_event(failure)
        try:
            posted = await ops.post_event(self._ctx, content, "error", meta)
        except Exception as exc:  # reporting a failure must not become a second failure
            log.warning(
                "could not post the failure of %s to room %s",
                failure.provider,
                self.room_id,
                exc_info=True,
            )
            return {"ok": False, "error": str(exc)}
        self.turn.note_reported()
        return t.SEND_EVENT.result(posted)

    add_participant = _tool_method(t.ADD_PARTICIPANT, AgentToolsProtocol.add_participant)
    remove_participant = _tool_method(t.REMOVE_PARTICIPANT, AgentToolsProtocol.remove_participant)
    get_participants = _tool_method(t.GET_PARTICIPANTS, AgentToolsProtocol.get_participants)
    lookup_peers = _tool_method(t.LOOKUP_PEERS, AgentToolsProtocol.lookup_peers)
    create_chatroom = _tool_method(t.CREATE_CHATROOM, AgentToolsProtocol.create_chatroom)

    async def fetch_room_context(
        self, *, room_id: str, page: int = 1, page_size: int = 50
    ) -> w.JsonObject:
        """A page of another room's agent context: ``{"data": [message, ...], "meta": {...}}``."""
        if page < 1:
            raise ValueError("page must be at least 1")
        if not 1 <= page_size <= 100:
            raise ValueError("page_size must be between 1 and 100")
        url = path("/agent/chats/{}/context", room_id)
        resp = await self.rest.request("GET", url, params={"page": page, "page_size": page_size})
        body = ops.body_of(resp)
        rows = list(body.get("data") or [])
        # the required ``metadata`` first; ``meta`` is the deprecated twin (band-sdk's order)
        meta = body.get("metadata") or body.get("meta")
        if not isinstance(meta, dict):
            total = len(rows)
            meta = {"page": page, "page_size": page_size, "total_count": total}
            meta["total_pages"] = 1 if rows else 0
        return {"data": rows, "meta": dict(meta)}

    # --- contacts -----------------------------------------------------------------------------

    list_contacts = _tool_method(t.LIST_CONTACTS, AgentToolsProtocol.list_contacts)
    add_contact = _tool_method(t.ADD_CONTACT, AgentToolsProtocol.add_contact)
    remove_contact = _tool_method(t.REMOVE_CONTACT, AgentToolsProtocol.remove_contact)
    list_contact_requests = _tool_method(
        t.LIST_CONTACT_REQUESTS, AgentToolsProtocol.list_contact_requests
    )
    respond_contact_request = _tool_method(
        t.RESPOND_CONTACT_REQUEST, AgentToolsProtocol.respond_contact_request
    )

    # --- memory -------------------------------------------------------------------------------

    list_memories = _tool_method(t.LIST_MEMORIES, AgentToolsProtocol.list_memories)
    store_memory = _tool_method(t.STORE_MEMORY, AgentToolsProtocol.store_memory)
    get_memory = _tool_method(t.GET_MEMORY, AgentToolsProtocol.get_memory)
    supersede_memory = _tool_method(t.SUPERSEDE_MEMORY, AgentToolsProtocol.supersede_memory)
    archive_memory = _tool_method(t.ARCHIVE_MEMORY, AgentToolsProtocol.archive_memory)

    # --- files --------------------------------------------------------------------------------

    list_room_files = _tool_method(t.LIST_ROOM_FILES, AgentToolsProtocol.list_room_files)
    read_room_file = _tool_method(t.READ_ROOM_FILE, AgentToolsProtocol.read_room_file)

    async def send_room_file(
        self, content: str, filename: str, caption: str = "", mentions: list[str] | None = None
    ) -> w.JsonObject:
        """Share ``content`` as the file ``filename``; the message it rides on is the reply."""
        return await self._call(
            t.SEND_ROOM_FILE,
            content=content,
            filename=filename,
            caption=caption,
            mentions=list(mentions or []),
        )

    # --- tasks --------------------------------------------------------------------------------

    list_tasks = _tool_method(t.LIST_TASKS, AgentToolsProtocol.list_tasks)
    create_task = _tool_method(t.CREATE_TASK, AgentToolsProtocol.create_task)
    get_task = _tool_method(t.GET_TASK, AgentToolsProtocol.get_task)
    update_task = _tool_method(t.UPDATE_TASK, AgentToolsProtocol.update_task)
    get_task_history = _tool_method(t.GET_TASK_HISTORY, AgentToolsProtocol.get_task_history)
    get_board = _tool_method(t.GET_BOARD, AgentToolsProtocol.get_board)
    set_board = _tool_method(t.SET_BOARD, AgentToolsProtocol.set_board)

    # --- schemas and dispatch -----------------------------------------------------------------

    def _specs(self, capabilities: frozenset[Capability] | None) -> list[ToolSpec[Any, Any]]:
        return select_tools(capabilities, hub_room=self.is_hub_room)

    def get_tool_schemas(
        self, format: str, *, capabilities: frozenset[Capability] | None = None
    ) -> list[w.JsonObject] | list[ToolParam]:
        """Tool definitions in ``"openai"`` or ``"anthropic"`` format."""
        if format not in FORMATS:
            raise ValueError(f"Invalid format: {format}. Must be 'openai' or 'anthropic'")
        return [s.schema(format) for s in self._specs(capabilities)]

    def get_anthropic_tool_schemas(
        self, *, capabilities: frozenset[Capability] | None = None
    ) -> list[ToolParam]:
        """Tool definitions as Anthropic ``ToolParam`` dicts."""
        return [s.anthropic_schema() for s in self._specs(capabilities)]

    def get_openai_tool_schemas(
        self, *, capabilities: frozenset[Capability] | None = None
    ) -> list[w.JsonObject]:
        """Tool definitions as OpenAI function tools."""
        return [s.schema("openai") for s in self._specs(capabilities)]

    async def execute_tool_call(
        self, tool_name: str, arguments: Mapping[str, w.JsonValue]
    ) -> w.JsonValue:
        """Run a tool by name; failures come back as error strings."""
        return (await self.execute_tool_call_structured(tool_name, arguments)).value

    async def execute_tool_call_structured(
        self, tool_name: str, arguments: Mapping[str, w.JsonValue]
    ) -> ToolCallOutcome:
        """Run a tool by name; ``ok`` says whether it succeeded (and its effect was recorded)."""
        start = time.monotonic()
        outcome = await run_tool(self._ctx, tool_name, arguments)
        self._traced(tool_name, arguments, start, None if outcome.ok else str(outcome.value)[:200])
        if outcome.ok:
            self.turn.record_tool(tool_name)
        return outcome
