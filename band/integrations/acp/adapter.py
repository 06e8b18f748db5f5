"""ACPClientAdapter: any ACP agent in Band rooms, one process per room, Band tools over MCP."""

from __future__ import annotations

import asyncio
import functools
import logging
import re
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, Unpack

from acp.schema import ClientCapabilities, HttpMcpServer, SseMcpServer

from band.core.exceptions import BandConfigError
from band.core.input_adapter import InputAdapter
from band.core.protocols import AgentToolsProtocol
from band.core.simple_adapter import FeatureKwargs
from band.core.types import AgentInput, Capability, Emit
from band.core.wire import JsonObject, JsonValue
from band.integrations.mcp.local_server import SERVER_NAME, LocalMCPServer, MCPToolRegistration
from band.runtime.tools import (
    TOOLS,
    BandToolError,
    InvalidToolArgumentsError,
    ToolCallOutcome,
    ToolContext,
    ToolSpec,
    select_tools,
)
from band.runtime.tools.constants import CHAT_ID_FIELD_NAME
from band.runtime.tools.custom import (
    CustomToolDef,
    custom_tool_spec,
    execute_custom_tool,
    get_custom_tool_name,
    is_failed_tool_output,
    reject_conflicting_tool_names,
)
from band.runtime.tools.definitions import filter_by_features
from band.runtime.tools.ops import load_participants
from band.workspaces import RoomWorkspaces, WorkspaceResolver, resolver_for

from .client import ACPClientProfile
from .config import (
    ACPClientAdapterConfig,
    ConfigResolver,
    PermissionResolver,
    SessionMcpServer,
)
from .mentions import has_mention_tokens, replace_uuid_mentions
from .rooms import ACPRooms, ACPSessionBusyError, TurnRequest
from .session_state import ACPClientSessionState

__all__ = [
    "ACPClientAdapter",
    "BandConfigError",
    "CustomToolDef",
]

SPAWN_PROCESS_REFUSED = "custom ACP transports cannot guarantee room process isolation"

log = logging.getLogger("band.acp")

#: How Gemini CLI titles an MCP tool call: ``<tool> (<server> MCP Server)``.
GEMINI_TITLE = re.compile(r"(?P<tool>\S+) \((?P<server>.+) MCP Server\)")

#: How far back the adapter reads a room's context for its session event and replay.
CONTEXT_PAGES = 10
CONTEXT_PAGE_SIZE = 100

TURN_RULES = (
    "Messages reach the room only through the Band tools. End every turn with exactly one of: "
    "band_send_message (your answer, mentioning whom it is for) or band_no_reply (when no "
    "answer is needed). Text you write outside a tool call is never posted to the room."
)


class ACPClientAdapter(InputAdapter):
    """Bridges Band rooms to the ACP agent that ``config.command`` launches, one per room."""

    SUPPORTED_EMIT = frozenset({Emit.TOOL_CALLS, Emit.THOUGHTS, Emit.TASK_EVENTS})
    SUPPORTED_CAPABILITIES = frozenset(
        {Capability.MEMORY, Capability.CONTACTS, Capability.TASKS, Capability.FILES}
    )

    def __init__(
        self,
        config: ACPClientAdapterConfig,
        *,
        additional_tools: Sequence[CustomToolDef] | None = None,
        workspace_for_room: WorkspaceResolver | None = None,
        profile: ACPClientProfile | None = None,
        resolve_session_config: ConfigResolver | None = None,
        resolve_permission: PermissionResolver | None = None,
        client_capabilities: ClientCapabilities | None = None,
        spawn_process: object = None,
        **features: Unpack[FeatureKwargs],
    ) -> None:
        """``profile`` answers the agent's extension methods; ``client_capabilities`` is what
        ``initialize`` advertises (fs and terminal off by default); ``spawn_process`` must stay
        None: one process per room needs the adapter's own stdio launcher."""
        super().__init__(**features)
        if spawn_process is not None:
            raise ValueError(SPAWN_PROCESS_REFUSED)
        if resolve_session_config is not None and (
            config.model is not None or config.reasoning_effort is not None
        ):
            raise ValueError(
                "set either model/reasoning_effort or resolve_session_config, not both"
            )
        self.config = config
        self._custom = self._register_custom(additional_tools or ())
        self._workspaces = RoomWorkspaces(resolver_for(config.cwd, workspace_for_room))
        self._mcp = self._new_mcp_server()
        self._room_tools: dict[str, AgentToolsProtocol] = {}
        self._looked_up: set[str] = set()
        self._stopped = False
        self.rooms = ACPRooms(
            config,
            workspaces=self._workspaces,
            servers_for=self._servers_for,
            resolve_permission=resolve_permission,
            resolve_session_config=resolve_session_config,
            emit=self._emit_kinds(),
            canonical=self._canonical,
            profile=profile,
            client_capabilities=client_capabilities,
        )

    def _emit_kinds(self) -> frozenset[str]:
        return frozenset(str(e.value) for e in self.features.emit)

    @property
    def _band_tools(self) -> dict[str, ToolSpec[Any, Any]]:
        """The Band tools served: chat, contacts (always, as band-sdk 6.0.1), and the
        capabilities' groups, narrowed by the features' category and tool filters."""
        specs = select_tools(self.capabilities | {Capability.CONTACTS})
        # in band-sdk 6.0.1's order: categories, then include_tools, then exclude_tools
        return {s.name: s for s in filter_by_features(specs, self.features)}

    # -- tools ---------------------------------------------------------------------------------

    @staticmethod
    def _register_custom(tools: Sequence[CustomToolDef]) -> dict[str, CustomToolDef]:
        names = [get_custom_tool_name(model) for model, _ in tools]
        reject_conflicting_tool_names(names)
        return dict(zip(names, tools, strict=True))

    def _tool_specs(self) -> list[ToolSpec[Any, Any]]:
        """What the MCP server lists: the Band tools served, then the custom tools."""
        custom = [custom_tool_spec(tool) for tool in self._custom.values()]
        return [*self._band_tools.values(), *custom]

    def _new_mcp_server(self) -> LocalMCPServer:
        """The room-bound ``band`` server of this adapter's tools, on any free port."""
        return LocalMCPServer(
            SERVER_NAME, self._registrations, port_min=0, port_max=0, room_bound=True
        )

    def _registrations(self) -> list[MCPToolRegistration]:
        """The served tools (read at each listing: they settle when the agent starts)."""
        return [
            MCPToolRegistration(
                spec.name,
                spec.description,
                spec.input_model,
                functools.partial(self._execute, spec.name),
                room_from_connection=True,
            )
            for spec in self._tool_specs()
        ]

    async def _execute(self, name: str, arguments: dict[str, Any]) -> ToolCallOutcome:
        room_id = arguments.pop(CHAT_ID_FIELD_NAME)
        return await self._call_tool(room_id, name, arguments)

    def _canonical(self, name: str) -> str:
        """Strip an MCP server prefix (``mcp__band__x``, ``band-x``, ``band.x``) or Gemini CLI's
        title suffix (``x (band MCP Server)``) off our tools."""
        own = self._band_tools.keys() | self._custom.keys() | TOOLS.keys()
        if name in own:
            return name
        titled = GEMINI_TITLE.fullmatch(name)
        if titled and titled["tool"] in own and titled["server"] == SERVER_NAME:
            return titled["tool"]
        for sep in ("__", "-", ".", "/", ":"):
            head, _, tail = name.rpartition(sep)
            if head and tail in own and SERVER_NAME in head:
                return tail
        return name

    async def _call_tool(self, room_id: str, name: str, arguments: JsonObject) -> ToolCallOutcome:
        tools = self._room_tools.get(room_id)
        if tools is None:
            return ToolCallOutcome(None, False, "No turn is running in this room")
        if name in self._custom:
            return await self._call_custom(tools, name, arguments)
        if name not in self._band_tools:
            return ToolCallOutcome(None, False, f"Unknown tool: {name}")
        try:
            outcome: ToolCallOutcome = await tools.execute_tool_call_structured(name, arguments)
        except BandToolError as exc:  # a typed refusal (e.g. a missing file) is the model's
            return ToolCallOutcome(None, False, str(exc))
        return outcome

    async def _call_custom(
        self, tools: AgentToolsProtocol, name: str, arguments: JsonObject
    ) -> ToolCallOutcome:
        try:  # records the handler's declared effect on success only
            value = await execute_custom_tool(self._custom[name], arguments, turn=tools.turn)
        except InvalidToolArgumentsError as exc:
            return ToolCallOutcome(None, False, str(exc))
        except Exception as exc:
            return ToolCallOutcome(None, False, f"Error executing {name}: {exc}")
        if is_failed_tool_output(value):
            return ToolCallOutcome(value, False, str(value))
        return ToolCallOutcome(value, True)

    async def _servers_for(self, room_id: str, transport: str) -> list[SessionMcpServer]:
        servers: list[SessionMcpServer] = []
        if self.config.inject_band_tools:
            if self._stopped:
                raise RuntimeError("the adapter was stopped")
            await self._mcp.start()
            url = self._mcp.room_url(room_id, transport)
            if transport == "sse":
                servers.append(SseMcpServer(type="sse", name=SERVER_NAME, url=url, headers=[]))
            else:
                servers.append(HttpMcpServer(type="http", name=SERVER_NAME, url=url, headers=[]))
        return [*servers, *self.config.mcp_servers]

    # -- context -------------------------------------------------------------------------------

    def system_context(self, room_id: str, sender_name: str, sender_id: str) -> str:
        """What a new session is told first: who it is, the room rules, and ``custom_section``."""
        lines = [
            "[System Context]",
            f"You are {self.agent_name or 'Agent'}: {self.agent_description or 'An AI assistant'}",
        ]
        if self.config.custom_section:
            lines += ["", self.config.custom_section]
        lines += ["", "## Room Context", "You are connected to a Band chat room.", TURN_RULES, ""]
        if not self.config.inject_band_tools:
            # an external Band MCP server is not bound to a room: the agent must name it
            lines.append(f"Current chat_id: {room_id}")
        lines += [f"Current requester name: {sender_name}", f"Current requester id: {sender_id}"]
        return "\n".join(lines)

    async def _room_history(self, tools: AgentToolsProtocol, room_id: str) -> list[JsonObject]:
        rows: list[JsonObject] = []
        for page in range(1, CONTEXT_PAGES + 1):
            try:
                body = await tools.fetch_room_context(
                    room_id=room_id, page=page, page_size=CONTEXT_PAGE_SIZE
                )
            except Exception:
                log.warning("room %s: could not read the room context", room_id, exc_info=True)
                break
            data = body.get("data") if isinstance(body, dict) else None
            rows.extend(data or [])
            meta = (
                (body.get("metadata") or body.get("meta") or {}) if isinstance(body, dict) else {}
            )
            if not data or not meta.get("has_more"):
                break
        return rows

    @staticmethod
    def _before(rows: list[JsonObject], message_id: str | None) -> list[JsonObject]:
        """The rows before ``message_id`` (all of them when it is not among them)."""
        ids = [r.get("id") for r in rows]
        return rows[: ids.index(message_id)] if message_id in ids else rows

    @staticmethod
    def last_session_id(rows: Sequence[Mapping[str, JsonValue]], room_id: str) -> str | None:
        """The session named by the room's last ``ACP client session`` event."""
        return ACPClientSessionState.from_history(rows, room_id).room_to_session.get(room_id)

    @staticmethod
    def replay_lines(rows: Sequence[Mapping[str, JsonValue]]) -> list[str]:
        """The room's earlier text messages as ``[sender]: content`` lines."""
        return ACPClientSessionState.from_history(rows, "").replay_messages

    @staticmethod
    def _mention_rewriter(tools: AgentToolsProtocol) -> Callable[[str], Awaitable[str]]:
        """Rewrites the platform's ``@[[<id>]]`` tokens to ``@handle`` (as band-sdk 6.0.1 does);
        the room's participants are read at most once per turn."""
        people: list[JsonObject] = list(tools.participants)
        refreshed = False

        async def readable(text: str) -> str:
            nonlocal people, refreshed
            if not has_mention_tokens(text):
                return text
            out = replace_uuid_mentions(text, people)
            if has_mention_tokens(out) and not refreshed:
                # the cache may be empty or predate an arrival: read the room once
                refreshed = True
                ctx = getattr(tools, "context", None)
                try:
                    if isinstance(ctx, ToolContext):
                        people = await load_participants(ctx)
                    else:
                        # typed results (band-sdk's and ours) or plain dicts (test doubles)
                        # Any: doubles of the protocol may answer dicts, not ChatParticipant
                        rows: list[Any] = list(await tools.get_participants())
                        people = [
                            p.model_dump() if hasattr(p, "model_dump") else dict(p) for p in rows
                        ]
                except Exception:
                    log.warning("could not read the room's participants", exc_info=True)
                out = replace_uuid_mentions(text, people)
            return out

        return readable

    # -- lifecycle and turns -------------------------------------------------------------------

    async def on_started(self, agent_name: str, agent_description: str) -> None:
        """Remember who the agent is (for the system context) and the negotiated emit kinds."""
        await super().on_started(agent_name, agent_description)
        self.rooms.emit = self._emit_kinds()
        if self._mcp.closed:  # started again after a stop: serve Band tools on a new server
            self._mcp = self._new_mcp_server()
            self._looked_up.clear()
        self._stopped = False

    async def on_input(self, inp: AgentInput) -> None:
        """Prompt the room's ACP session with the message; the turn posts through its tools."""
        msg, tools, room_id = inp.msg, inp.tools, inp.room_id
        if self._stopped:
            raise RuntimeError("the ACP client adapter was stopped")
        sender_name = msg.sender_name or msg.sender_id or "Unknown"
        sender_id = msg.sender_id or "unknown"
        readable = self._mention_rewriter(tools)
        text = await readable(msg.format_for_llm())
        rows: list[JsonObject] | None = None

        async def load_history() -> list[JsonObject]:
            # read here, not from ``history``: the runtime's copy is one page, and the session
            # event to resume from is the room's latest
            nonlocal rows
            if rows is None:
                rows = await self._room_history(tools, room_id)
            return rows

        resume: str | None = None
        if room_id not in self._looked_up:
            # first message since start: the room's last session event names its session
            self._looked_up.add(room_id)
            state = self.rooms.rooms.get(room_id)
            if state is None or state.session_id is None:
                # the whole history: a message run again after a restart (its turn failed)
                # may be the room's first, its session event posted after it
                resume = self.last_session_id(await load_history(), room_id)

        async def replay() -> list[str]:
            lines = self.replay_lines(self._before(await load_history(), msg.id))
            return [await readable(line) for line in lines]

        request = TurnRequest(
            message=text,
            system_context=self.system_context(room_id, sender_name, sender_id),
            updates=[u for u in (inp.participants_msg, inp.contacts_msg) if u],
            resume_session_id=resume,
            replay=replay,
        )
        self._room_tools[room_id] = tools
        try:
            await self.rooms.run_turn(room_id, tools, request)
        except ACPSessionBusyError:
            log.info("room %s: ACP session busy; the message stays pending", room_id)
            raise

    async def stop_turn(self, room_id: str) -> None:
        """Stop the room's running turn: ``session/cancel``, waiting at most 5 s."""
        await self.rooms.stop_turn(room_id)

    async def on_interrupt(self, room_id: str, mode: str) -> None:
        """The platform interrupted or stopped the room's turn: cancel the agent's prompt."""
        await self.stop_turn(room_id)

    async def on_cleanup(self, room_id: str) -> None:
        """The room is gone: stop its process and unbind its MCP URL."""
        await self.rooms.close_room(room_id)
        self._mcp.unbind(room_id)
        self._room_tools.pop(room_id, None)
        self._looked_up.discard(room_id)

    async def cleanup_all(self) -> None:
        """Stop every room's process, then the MCP server."""
        self._stopped = True
        await self.rooms.close_all()
        await self._mcp.stop()

    async def stop(self) -> None:
        """Adapter shutdown."""
        await self.cleanup_all()

    @property
    def mcp_server(self) -> LocalMCPServer:
        """The local Band MCP server (started on the first session that needs it)."""
        return self._mcp

    async def wait_idle(self) -> None:
        """Wait until no room runs a turn (for orderly shutdowns and tests)."""
        while any(r.running for r in self.rooms.rooms.values()):
            await asyncio.sleep(0.01)
