"""``ClaudeSDKAdapter``: Claude Code through the Claude Agent SDK (claude-agent-sdk) in Band rooms.

Each room has one Claude session in its own Claude Code CLI process (``ClaudeSDKClient``),
kept between turns and resumed (``resume=``) after the process stopped or the agent
restarted: the session id is posted once as a ``task`` event, which the history converter
finds on the next session bootstrap. The Band tools reach Claude over the SDK's in-process
MCP server (``mcp__band__*``); Claude's native tools (Bash, Write, ...) follow
``permission_mode`` and, with ``approvals``, chat-based approvals (``/approve <token>``,
``/decline <token>``, ``/approvals``). At most ``max_live_processes`` CLI processes live at
once (the least recently used idle room's is stopped); a room's process stops when the agent
leaves it or stops. Needs the ``[claude-sdk]`` extra (imported with this module)::

    adapter = ClaudeSDKAdapter(
        ClaudeSDKAdapterConfig(
            model="sonnet",
            approvals=ClaudeApprovalOptions(mode="manual"),
            cli=ClaudeCLIOptions(cli_path="/path/to/claude"),
        )
    )
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any, ClassVar, Literal, Unpack

from pydantic import (
    Field,
    NonNegativeFloat,
    PositiveFloat,
    PositiveInt,
    field_validator,
    model_validator,
)

from band._extras import require

require("claude-sdk", "ClaudeSDKAdapter")  # an optional dependency: say how to get it

from claude_agent_sdk import (  # noqa: E402
    AssistantMessage,
    ClaudeAgentOptions,
    PermissionResultAllow,
    PermissionResultDeny,
    ResultMessage,
    SdkMcpTool,
    SystemMessage,
    TextBlock,
    ToolPermissionContext,
    ToolResultBlock,
    ToolUseBlock,
    UserMessage,
    create_sdk_mcp_server,
)
from claude_agent_sdk.types import SystemPromptPreset  # noqa: E402

from band.converters.claude_sdk import (  # noqa: E402
    SESSION_KEY,
    ClaudeSDKHistoryConverter,
    ClaudeSDKSessionState,
)
from band.core.protocols import AgentToolsProtocol  # noqa: E402
from band.core.simple_adapter import FeatureKwargs  # noqa: E402
from band.core.types import Emit, PlatformMessage  # noqa: E402
from band.integrations.claude_sdk.prompts import generate_claude_sdk_agent_prompt  # noqa: E402
from band.integrations.claude_sdk.sessions import (  # noqa: E402
    SETTLE_GRACE_S,
    ClaudeRoomSession,
    ClaudeSessionManager,
)
from band.runtime.tools.custom import CustomToolDef  # noqa: E402
from band.workspaces import WorkspaceResolver  # noqa: E402

from ._bandtools import BandToolSpec, FrameworkConfig, NativeToolEvents  # noqa: E402
from ._base import FrameworkAdapterBase  # noqa: E402
from ._model import empty_usage  # noqa: E402

__all__ = [
    "ClaudeApprovalOptions",
    "ClaudeCLIOptions",
    "ClaudePermissionMode",
    "ClaudeSDKAdapter",
    "ClaudeSDKAdapterConfig",
    "ClaudeSDKHistoryConverter",
    "ClaudeSDKSessionState",
]

log = logging.getLogger("band.adapters.claude_sdk")

#: The in-process MCP server's name: Claude sees the Band tools as ``mcp__band__<name>``.
MCP_SERVER = "band"
MCP_PREFIX = f"mcp__{MCP_SERVER}__"
#: The task event that names a room's Claude session (found again on a session bootstrap).
SESSION_EVENT = "Claude session"
#: Claude Code's lookup of deferred tool definitions (Band's among them): never gated.
TOOL_SEARCH = "ToolSearch"
#: CLI flags the adapter sets itself, or that would unhook the Band tools or its gating.
RESERVED_CLI_FLAGS = frozenset(
    {
        "add-dir",
        "allowedTools",
        "allowed-tools",
        "append-system-prompt",
        "disallowedTools",
        "disallowed-tools",
        "mcp-config",
        "model",
        "output-format",
        "input-format",
        "permission-mode",
        "permission-prompt-tool",
        "resume",
        "continue",
        "session-id",
        "system-prompt",
        "system-prompt-file",
        "settings",
        "setting-sources",
        "strict-mcp-config",
        "tools",
        "print",
        "dangerously-skip-permissions",
        "allow-dangerously-skip-permissions",
        "fork-session",
        "verbose",
    }
)
#: How long the end of an interrupted response is waited for before its CLI is replaced.
DRAIN_TIMEOUT_S = 10.0
#: Live CLI processes by default (as the ACP adapter's ``max_live_processes``).
DEFAULT_MAX_LIVE_PROCESSES = 16
#: The tool whose repeats the adapter collapses, and for how long (band-sdk's default window:
#: long enough for a CLI's retry, short enough that a deliberate resend minutes later posts).
SEND_MESSAGE = "band_send_message"
DEDUP_TTL_S = 30.0
#: How many recent sends a room remembers for that.
DEDUP_MAX_ENTRIES = 64


class ClaudePermissionMode(StrEnum):
    """Claude Code's permission modes (the SDK's ``PermissionMode`` values)."""

    DEFAULT = "default"
    ACCEPT_EDITS = "acceptEdits"
    PLAN = "plan"
    BYPASS_PERMISSIONS = "bypassPermissions"
    DONT_ASK = "dontAsk"
    AUTO = "auto"


class ClaudeCLIOptions(FrameworkConfig):
    """How the Claude Code CLI process is started (``cli_path``: the ``claude`` executable,
    e.g. npm's ``@anthropic-ai/claude-code``; ``env``: variables for the CLI only;
    ``extra_args``: more flags by bare name, the adapter's own refused)."""

    cli_path: str | None = None
    plugin_dirs: tuple[str, ...] = ()
    add_dirs: tuple[str, ...] = ()
    env: dict[str, str] = Field(default_factory=dict)
    extra_args: dict[str, str | None] = Field(default_factory=dict)

    @field_validator("extra_args")
    @classmethod
    def _own_flags_refused(cls, extra_args: dict[str, str | None]) -> dict[str, str | None]:
        if dashed := sorted(flag for flag in extra_args if flag.startswith("-")):
            raise ValueError(f"extra_args keys are bare flag names: {dashed}")
        if reserved := sorted(RESERVED_CLI_FLAGS.intersection(extra_args)):
            raise ValueError(f"extra_args may not set adapter-owned CLI flags: {reserved}")
        return extra_args


class ClaudeApprovalOptions(FrameworkConfig):
    """Chat-based approval of Claude's native tool calls (Band's tools are never gated).

    ``mode`` ``"manual"`` asks the room (``/approve <token>``, ``/decline <token>``);
    ``"auto_accept"``/``"auto_decline"`` decide at once (announced when
    ``text_notifications``). A manual request waits ``wait_timeout_s``, then
    ``timeout_decision`` applies; ``authorized_senders`` None lets any participant decide.
    """

    mode: Literal["manual", "auto_accept", "auto_decline"]
    text_notifications: bool = True
    wait_timeout_s: PositiveFloat = 300.0
    timeout_decision: Literal["accept", "decline"] = "decline"
    max_pending_per_room: PositiveInt = 50
    authorized_senders: frozenset[str] | None = None


class ClaudeSDKAdapterConfig(FrameworkConfig):
    """Settings of :class:`ClaudeSDKAdapter` (band-sdk 6.0.1's fields, and
    ``max_live_processes`` as the ACP adapter has it)."""

    model: str | None = None
    fallback_model: str | None = None
    retention: Any = None  # band-sdk's residency settings: idle retention is off either way
    custom_section: str | None = None
    max_thinking_tokens: PositiveInt | None = None
    effort: str | None = None
    permission_mode: ClaudePermissionMode = ClaudePermissionMode.ACCEPT_EDITS
    cwd: Path | None = None
    setting_sources: tuple[str, ...] = ()
    turn_timeout_s: PositiveFloat | None = None
    turn_settle_timeout_s: NonNegativeFloat = SETTLE_GRACE_S
    send_message_dedup_ttl_seconds: NonNegativeFloat = DEDUP_TTL_S
    cli: ClaudeCLIOptions = Field(default_factory=ClaudeCLIOptions)
    approvals: ClaudeApprovalOptions | None = None
    max_live_processes: PositiveInt = DEFAULT_MAX_LIVE_PROCESSES

    @model_validator(mode="after")
    def _approvals_can_decide(self) -> ClaudeSDKAdapterConfig:
        if self.approvals is None:
            return self
        if self.permission_mode == ClaudePermissionMode.DONT_ASK:
            raise ValueError(
                "permission_mode='dontAsk' denies tool calls without asking approvals; "
                "set approvals=None"
            )
        if self.turn_timeout_s is not None and self.approvals.wait_timeout_s >= self.turn_timeout_s:
            raise ValueError("approvals.wait_timeout_s must be less than turn_timeout_s")
        return self


@dataclass
class _Approval:
    """A native tool call waiting for the room's decision."""

    token: str
    summary: str
    decision: asyncio.Future[bool]


def _send_key(arguments: Mapping[str, Any]) -> tuple[str, frozenset[str]] | None:
    """What makes two ``band_send_message`` calls the same: the content and the mentioned
    handles (in any order, strings or ``{"handle"|"id": ...}``); None for malformed ones."""
    content, mentions = arguments.get("content"), arguments.get("mentions") or []
    if not isinstance(content, str) or not isinstance(mentions, list):
        return None
    names = {
        m if isinstance(m, str) else str(m.get("handle") or m.get("id") or "")
        for m in mentions
        if isinstance(m, str | dict)
    }
    return content, frozenset(n for n in names if n)


@dataclass
class _Sends:
    """A room's recent ``band_send_message`` calls: an identical one within the window gets
    the first one's result and posts nothing (the CLI or its MCP transport may re-issue a call,
    even after the turn ended). A failed call is forgotten, so its retry posts."""

    recent: dict[tuple[str, frozenset[str]], tuple[float, asyncio.Future[Any]]] = field(
        default_factory=dict
    )

    async def once(
        self, arguments: Mapping[str, Any], ttl: float, send: Callable[[], Awaitable[Any]]
    ) -> Any:
        """``send()``'s result, shared by the identical calls of the last ``ttl`` seconds."""
        now = time.monotonic()
        for stale in [k for k, (at, _) in self.recent.items() if now - at >= ttl]:
            del self.recent[stale]
        key = _send_key(arguments)
        if key is None:
            return await send()
        earlier = self.recent.get(key)
        if earlier is not None:
            log.warning("a repeated band_send_message within %ss was not posted again", ttl)
            return await asyncio.shield(earlier[1])
        sending = asyncio.ensure_future(send())
        self.recent[key] = (now, sending)
        while len(self.recent) > DEDUP_MAX_ENTRIES:  # the oldest go first
            del self.recent[next(iter(self.recent))]
        try:
            result = await asyncio.shield(sending)
        except Exception:
            self.recent.pop(key, None)
            raise
        if isinstance(result, dict) and result.get("is_error"):
            self.recent.pop(key, None)  # nothing was posted
        return result


@dataclass
class _Room:
    """What the adapter keeps of a room beside its Claude session (the session manager's):
    the turn the session serves now, its pending approvals, the session id it announced."""

    room_id: str
    tools: AgentToolsProtocol | None = None
    msg: PlatformMessage | None = None
    run: asyncio.Task[None] | None = None
    waiting: asyncio.Event = field(default_factory=asyncio.Event)
    approvals: dict[str, _Approval] = field(default_factory=dict)
    used: float = field(default_factory=time.monotonic)
    announced: str | None = None
    sends: _Sends = field(default_factory=_Sends)


@dataclass(frozen=True)
class _ResolverWorkspaces:
    """A ``workspace_for_room`` resolver as the session manager's workspaces."""

    resolve: WorkspaceResolver

    def claim(self, room_id: str) -> Path:
        path = Path(self.resolve(room_id))
        path.mkdir(parents=True, exist_ok=True)
        return path

    def release(self, room_id: str) -> None:
        """The room's directory stays (its files are the room's work)."""


class ClaudeSDKAdapter(FrameworkAdapterBase[ClaudeSDKSessionState]):
    """Runs each room's turns in the room's Claude Code session."""

    PROVIDER = "claude_sdk"
    SUPPORTED_EMIT: ClassVar[frozenset[Emit]] = frozenset(
        {Emit.TOOL_CALLS, Emit.THOUGHTS, Emit.USAGE}
    )

    def __init__(
        self,
        config: ClaudeSDKAdapterConfig | None = None,
        *,
        history_converter: ClaudeSDKHistoryConverter | None = None,
        additional_tools: Sequence[CustomToolDef] | None = None,
        workspace_for_room: WorkspaceResolver | None = None,
        **features: Unpack[FeatureKwargs],
    ) -> None:
        super().__init__(
            history_converter=history_converter or ClaudeSDKHistoryConverter(), **features
        )
        self.config = config or ClaudeSDKAdapterConfig()
        if self.config.cwd is not None and workspace_for_room is not None:
            raise ValueError("config.cwd and workspace_for_room are mutually exclusive")
        self._workspace_for_room = workspace_for_room
        self._take_custom_tools(additional_tools)
        self._rooms: dict[str, _Room] = {}
        self._system_prompt: SystemPromptPreset | None = None
        self._sessions: ClaudeSessionManager | None = None
        #: tool use id -> name of the native tool calls whose results are still to come
        self._native_names: dict[str, str] = {}

    async def on_started(self, agent_name: str, agent_description: str) -> None:
        """Render the system prompt Claude's own is extended with."""
        await super().on_started(agent_name, agent_description)
        self._system_prompt = generate_claude_sdk_agent_prompt(
            agent_name, agent_description, self.config.custom_section, self.features
        )

    @property
    def sessions(self) -> ClaudeSessionManager:
        """The rooms' Claude sessions (a new manager after :meth:`cleanup_all`)."""
        if self._sessions is None:
            workspaces = None
            if self._workspace_for_room is not None:
                workspaces = _ResolverWorkspaces(self._workspace_for_room)
            self._sessions = ClaudeSessionManager(
                self._base_options(),
                can_use_tool_factory=lambda session, _: self._can_use_tool(
                    self._room(session.room_id)
                ),
                mcp_servers_factory=lambda room_id: {
                    MCP_SERVER: self._mcp_server(self._room(room_id))
                },
                workspaces=workspaces,
                settle_grace_s=self.config.turn_settle_timeout_s,
            )
        return self._sessions

    def _room(self, room_id: str) -> _Room:
        room = self._rooms.get(room_id)
        if room is None:
            room = self._rooms[room_id] = _Room(room_id)
        return room

    # -- a turn

    async def on_message(
        self,
        msg: PlatformMessage,
        tools: AgentToolsProtocol,
        history: ClaudeSDKSessionState,
        participants_msg: str | None,
        contacts_msg: str | None,
        *,
        is_session_bootstrap: bool,
        room_id: str,
    ) -> None:
        """One turn: an approval command, or the message to the room's Claude session."""
        room = self._room(room_id)
        session = self.sessions.room(room_id)
        if is_session_bootstrap:
            session.adopt(history.session_id)
        room.used = time.monotonic()
        command = _command(msg.content)
        if command is not None:
            await self._command(room, tools, msg, *command)
            return
        if room.run is not None and not room.run.done():
            # a run parked on an approval: this message waits for it, then is answered
            await self._follow(room, tools, msg)
            if not room.run.done():
                return  # parked again: the turn was detached
        room.tools, room.msg = tools, msg
        notes = [f"[System]: {n}" for n in (participants_msg, contacts_msg) if n]
        prompt = "\n\n".join([*notes, msg.format_for_llm()])
        if is_session_bootstrap and session.session_id is None and history.lines:
            earlier = "\n".join(history.lines[-50:])
            prompt = f"[Earlier in this room]\n{earlier}\n\n{prompt}"
        room.waiting.clear()
        room.run = asyncio.create_task(self._run(room, session, prompt))
        await self._until_done_or_parked(room, tools)

    async def _until_done_or_parked(self, room: _Room, tools: AgentToolsProtocol) -> None:
        """Wait for the run; when it parks on an approval the turn is detached (the room's
        next message, the decision, carries it on)."""
        run = room.run
        assert run is not None
        parked = asyncio.ensure_future(room.waiting.wait())
        try:
            done, _ = await asyncio.wait({run, parked}, return_when=asyncio.FIRST_COMPLETED)
        except asyncio.CancelledError:
            run.cancel()
            await self._interrupt(room.room_id)
            raise
        finally:
            parked.cancel()
        if run in done:
            run.result()  # its failure is the turn's
            return
        tools.turn.detach()  # parked on a human decision: the decision's turn goes on

    async def _follow(self, room: _Room, tools: AgentToolsProtocol, msg: PlatformMessage) -> None:
        """A turn that arrives while a run waits: it takes the run over, then waits."""
        room.tools, room.msg = tools, msg
        room.waiting.clear()
        await self._until_done_or_parked(room, tools)

    async def _run(self, room: _Room, session: ClaudeRoomSession, prompt: str) -> None:
        """Send the prompt in the room's session and read the response until its result
        (after the end of an interrupted one: a CLI that does not end it is replaced)."""
        usage = empty_usage()
        try:
            if not await session.settled(DRAIN_TIMEOUT_S):
                log.warning("room %s: the interrupted Claude response did not end", room.room_id)
                await session.release("the interrupted response did not end")
            text = ""
            answered = False
            async with session.using(prepare=lambda: self._make_room_for(room)) as client:
                with session.listening() as stream:
                    await client.query(prompt)
                    async for message in stream.until_result():
                        answered = answered or isinstance(message, ResultMessage)
                        text = await self._message(room, session, message, usage) or text
            if not answered:
                raise RuntimeError("the Claude Code CLI stopped before its answer")
            if room.msg is not None and room.tools is not None:
                await self._close(room.tools, room.msg, text.strip())
        except (_TurnFailed, asyncio.CancelledError):
            raise
        except Exception:
            log.exception("room %s: the Claude session failed", room.room_id)
            if room.tools is not None:
                await self._send_failure(room.tools)
            # a broken CLI: stopped now; the next turn starts one and resumes the conversation
            await session.release("the Claude session failed")
            raise
        finally:
            if room.tools is not None:
                await self._send_usage(room.tools, usage)

    async def _message(
        self, room: _Room, session: ClaudeRoomSession, message: Any, usage: dict[str, int]
    ) -> str:
        """One message of the response: its events, the session it names, its usage; the
        text it carries (the closing text so far)."""
        tools = room.tools
        assert tools is not None
        if isinstance(message, SystemMessage) and message.subtype == "init":
            sid = message.data.get("session_id")
            if isinstance(sid, str):
                await self._session(room, session, tools, sid)
        elif isinstance(message, AssistantMessage):
            return await self._assistant(tools, message)
        elif isinstance(message, UserMessage):
            await self._results(tools, message)
        elif isinstance(message, ResultMessage):
            await self._session(room, session, tools, message.session_id)
            _add(usage, message.usage or {})
            if message.is_error:
                status = message.api_error_status
                code = str(status) if status else message.subtype
                log.error("room %s: Claude turn failed: %s", room.room_id, message.errors)
                await self._send_failure(tools, code)
                raise _TurnFailed(code)
            if isinstance(message.result, str) and message.result.strip():
                return message.result
        return ""

    async def _assistant(self, tools: AgentToolsProtocol, message: AssistantMessage) -> str:
        """An assistant message: native tool calls' events, thoughts; its text."""
        texts = []
        for block in message.content:
            if isinstance(block, TextBlock):
                texts.append(block.text)
            elif isinstance(block, ToolUseBlock) and not block.name.startswith(MCP_PREFIX):
                self._native_names[block.id] = block.name
                await NativeToolEvents(tools, self.features).called(
                    block.name, block.input, block.id
                )
        text = "\n".join(texts).strip()
        if (
            text
            and Emit.THOUGHTS in self.features.emit
            and message.content[-1:]
            and any(isinstance(b, ToolUseBlock) for b in message.content)
        ):
            with contextlib.suppress(Exception):
                await tools.send_event(text, "thought")
        return text

    async def _results(self, tools: AgentToolsProtocol, message: UserMessage) -> None:
        """Native tool results' events (the Band tools post their own)."""
        if not isinstance(message.content, list):
            return
        for block in message.content:
            if isinstance(block, ToolResultBlock):
                content = block.content
                if isinstance(content, list):
                    content = "\n".join(
                        str(c.get("text", "")) for c in content if isinstance(c, dict)
                    )
                name = self._native_names.pop(block.tool_use_id, None)
                if name is not None:
                    await NativeToolEvents(tools, self.features).finished(
                        name, content or "", block.tool_use_id, ok=not block.is_error
                    )

    async def _session(
        self, room: _Room, session: ClaudeRoomSession, tools: AgentToolsProtocol, session_id: str
    ) -> None:
        """Note the room's session; a new one is posted once as the session event."""
        session.session_id = session_id
        if session_id != room.announced:
            room.announced = session_id
            with contextlib.suppress(Exception):
                await tools.send_event(
                    SESSION_EVENT, "task", {SESSION_KEY: session_id, "room_id": room.room_id}
                )

    # -- approvals

    async def _command(
        self, room: _Room, tools: AgentToolsProtocol, msg: PlatformMessage, word: str, arg: str
    ) -> None:
        """``/approve``, ``/decline``, ``/approvals``: answered here, never sent to Claude."""
        tools.turn.settle()  # the adapter answers a command itself
        if word == "approvals":
            pending = ", ".join(f"`{a.token}` ({a.summary})" for a in room.approvals.values())
            await tools.send_notice(pending or "No approvals pending.", [msg.sender_id])
            return
        approvals = self.config.approvals
        allowed = approvals is None or approvals.authorized_senders is None
        if not allowed and approvals is not None:
            allowed = msg.sender_id in (approvals.authorized_senders or frozenset())
        if not allowed:
            await tools.send_notice(
                "You are not allowed to approve or decline tool use here.", [msg.sender_id]
            )
            return
        approval = room.approvals.pop(arg, None)
        if approval is None:
            known = ", ".join(f"`{t}`" for t in room.approvals) or "none"
            await tools.send_notice(
                f"No pending approval `{arg}` (pending: {known}).", [msg.sender_id]
            )
            return
        accepted = word == "approve"
        if not approval.decision.done():
            approval.decision.set_result(accepted)
        decision = "approved" if accepted else "declined"
        await tools.send_notice(f"Approval `{approval.token}`: {decision}.", [msg.sender_id])
        if room.run is not None and not room.run.done():
            await self._follow(room, tools, msg)

    def _can_use_tool(self, room: _Room) -> Any:
        """The SDK's permission callback for the room's native tool calls."""

        async def can_use_tool(
            name: str, tool_input: dict[str, Any], context: ToolPermissionContext
        ) -> PermissionResultAllow | PermissionResultDeny:
            if name.startswith(MCP_PREFIX) or name == TOOL_SEARCH:
                return PermissionResultAllow()
            approvals = self.config.approvals
            if approvals is None:
                return PermissionResultAllow()
            summary = _summary(name, tool_input)
            tools = room.tools
            if approvals.mode != "manual":
                accept = approvals.mode == "auto_accept"
                if approvals.text_notifications and tools is not None:
                    decision = "approved" if accept else "declined"
                    await tools.send_notice(f"{summary}: {decision} by policy.")
                return _decision(accept)
            while len(room.approvals) >= approvals.max_pending_per_room:
                oldest = room.approvals.pop(next(iter(room.approvals)))
                if not oldest.decision.done():
                    oldest.decision.set_result(False)
            token = secrets.token_hex(3)
            future: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
            room.approvals[token] = _Approval(token, summary, future)
            if tools is not None:
                mention = [room.msg.sender_id] if room.msg is not None else None
                await tools.send_notice(
                    f"Approval needed: {summary}. Reply `/approve {token}` or "
                    f"`/decline {token}` (`/approvals` lists what is pending).",
                    mention,
                )
            room.waiting.set()
            try:
                accept = await asyncio.wait_for(asyncio.shield(future), approvals.wait_timeout_s)
            except TimeoutError:
                accept = approvals.timeout_decision == "accept"
                room.approvals.pop(token, None)
                if room.tools is not None:
                    await room.tools.send_notice(
                        f"Approval `{token}` timed out: {'approved' if accept else 'declined'}."
                    )
            return _decision(accept)

        return can_use_tool

    # -- the CLI processes

    async def _make_room_for(self, room: _Room) -> None:
        """Before the room's CLI starts: over ``max_live_processes``, stop the least recently
        used idle room's (its session stays resumable)."""
        sessions = self.sessions
        live = [r for r in sessions.get_active_rooms() if r != room.room_id]
        while len(live) >= self.config.max_live_processes:
            idle = [r for r in live if (run := self._room(r).run) is None or run.done()]
            if not idle:
                break  # every process is busy: one more runs over the limit for a while
            victim = min(idle, key=lambda r: self._room(r).used)
            if (session := sessions.session(victim)) is not None:
                await session.release("over max_live_processes")
            live.remove(victim)

    def _base_options(self) -> ClaudeAgentOptions:
        """The CLI's options every room shares (the session manager adds the room's Band MCP
        server, working directory, session and permission callback)."""
        cfg, cli = self.config, self.config.cli
        options: dict[str, Any] = {
            "system_prompt": self._system_prompt
            or generate_claude_sdk_agent_prompt(self.agent_name, self.agent_description),
            "permission_mode": str(cfg.permission_mode),
            "model": cfg.model,
            "fallback_model": cfg.fallback_model,
            "cwd": str(cfg.cwd) if cfg.cwd is not None else None,
            "setting_sources": list(cfg.setting_sources),
            "cli_path": cli.cli_path,
            "add_dirs": list(cli.add_dirs),
            "env": dict(cli.env),
            "extra_args": dict(cli.extra_args),
        }
        if cfg.max_thinking_tokens is not None:
            options["max_thinking_tokens"] = cfg.max_thinking_tokens
        if cfg.effort is not None:
            options["effort"] = cfg.effort
        if cli.plugin_dirs:
            options["plugins"] = [{"type": "local", "path": p} for p in cli.plugin_dirs]
        return ClaudeAgentOptions(**options)

    def _mcp_server(self, room: _Room) -> Any:
        """The in-process MCP server of the Band tools, each call on the room's current turn."""
        tools = room.tools
        assert tools is not None
        return create_sdk_mcp_server(
            MCP_SERVER, tools=[self._mcp_tool(room, s) for s in self._band_specs(tools)]
        )

    def _mcp_tool(self, room: _Room, spec: BandToolSpec) -> SdkMcpTool[Any]:
        async def handler(arguments: dict[str, Any]) -> dict[str, Any]:
            tools = room.tools
            if tools is None:
                return {
                    "content": [{"type": "text", "text": "Error: no Band turn"}],
                    "is_error": True,
                }

            async def call() -> dict[str, Any]:
                run = await self._run_band_tool(tools, spec.name, arguments, _call_id())
                return {"content": [{"type": "text", "text": run.output}], "is_error": not run.ok}

            ttl = self.config.send_message_dedup_ttl_seconds
            if spec.name == SEND_MESSAGE and ttl > 0:
                result: dict[str, Any] = await room.sends.once(arguments, ttl, call)
                return result
            return await call()

        return SdkMcpTool(spec.name, spec.description, spec.parameters, handler)

    async def _interrupt(self, room_id: str) -> None:
        """Tell Claude to stop the room's response (its end is read before the next turn)."""
        session = self._sessions.session(room_id) if self._sessions is not None else None
        if session is not None and session.client is not None:
            with contextlib.suppress(Exception):
                await session.client.interrupt()

    async def on_interrupt(self, room_id: str, mode: str) -> None:
        """The runtime cancels the turn; Claude is told to stop the response too."""
        room = self._rooms.get(room_id)
        if room is not None and room.run is not None and not room.run.done():
            room.run.cancel()
            await self._interrupt(room_id)

    async def on_cleanup(self, room_id: str) -> None:
        """The agent left the room: its run is cancelled and its CLI process stopped."""
        room = self._rooms.pop(room_id, None)
        if room is not None and room.run is not None and not room.run.done():
            room.run.cancel()
            with contextlib.suppress(BaseException):
                await room.run
        if self._sessions is not None:
            await self._sessions.cleanup_session(room_id)

    async def cleanup_all(self) -> None:
        """The agent stops: every room's CLI process is stopped."""
        for room_id in list(self._rooms):
            await self.on_cleanup(room_id)
        sessions, self._sessions = self._sessions, None
        if sessions is not None:
            await sessions.stop()

    @property
    def live_processes(self) -> int:
        """CLI processes running now."""
        return self._sessions.get_session_count() if self._sessions is not None else 0


class _TurnFailed(Exception):
    """Claude's result reported an error (already reported to the room)."""


def _command(content: str) -> tuple[str, str] | None:
    """``/approve <token>``, ``/decline <token>`` or ``/approvals`` (mentions stripped)."""
    words = [w for w in content.split() if not w.startswith("@")]
    if not words or words[0] not in ("/approve", "/decline", "/approvals"):
        return None
    return words[0][1:], (words[1].strip("`") if len(words) > 1 else "")


def _decision(accept: bool) -> PermissionResultAllow | PermissionResultDeny:
    if accept:
        return PermissionResultAllow()
    return PermissionResultDeny(message="The room declined this tool call.")


def _summary(name: str, tool_input: Mapping[str, Any]) -> str:
    """A short description of a native tool call for the room."""
    detail = tool_input.get("command") or tool_input.get("file_path") or ""
    text = f"{name} {detail}".strip()
    return text if len(text) <= 200 else text[:200] + "..."


def _add(usage: dict[str, int], counts: Mapping[str, Any]) -> None:
    for key, name in (
        ("input_tokens", "input_tokens"),
        ("output_tokens", "output_tokens"),
        ("cache_read_tokens", "cache_read_input_tokens"),
        ("cache_write_tokens", "cache_creation_input_tokens"),
    ):
        value = counts.get(name)
        usage[key] += value if isinstance(value, int) else 0


def _call_id() -> str:
    return f"call_{secrets.token_hex(12)}"
