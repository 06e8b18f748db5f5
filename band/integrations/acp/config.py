"""ACPClientAdapter settings and the requests its callbacks receive."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import TypeAlias

from acp.schema import (
    AcpMcpServer,
    HttpMcpServer,
    McpServerStdio,
    PermissionOption,
    SessionConfigOptionBoolean,
    SessionConfigOptionSelect,
    SseMcpServer,
    ToolCallUpdate,
)
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    NonNegativeFloat,
    PositiveFloat,
    PositiveInt,
    field_validator,
    model_validator,
)

__all__ = [
    "DEFAULT_MAX_LIVE_PROCESSES",
    "DEFAULT_TURN_TIMEOUT_S",
    "TURN_SETTLE_GRACE_S",
    "ACPClientAdapterConfig",
    "ACPConfigRequest",
    "ACPPermissionRequest",
    "ACPRetentionConfig",
    "ConfigResolver",
    "PermissionResolver",
    "SessionConfigOption",
    "SessionMcpServer",
]

DEFAULT_TURN_TIMEOUT_S = 300.0
#: Live agent processes at most: a coding agent takes a few hundred MB, so a thousand rooms
#: cannot each keep one.
DEFAULT_MAX_LIVE_PROCESSES = 16
#: How long leaving a room (or stopping the agent) lets its running turn end on its own.
TURN_SETTLE_GRACE_S = 10.0
#: The MCP server shapes ACP's session/new and session/load accept.
SessionMcpServer: TypeAlias = HttpMcpServer | SseMcpServer | AcpMcpServer | McpServerStdio
SessionConfigOption: TypeAlias = SessionConfigOptionSelect | SessionConfigOptionBoolean

_RETENTION_REFUSED = (
    "Idle retention is unavailable: ACP end_turn and loadSession do not establish "
    "whole-session inactivity or non-cancelling shutdown. Leave retention.idle_timeout_s unset."
)


class ACPRetentionConfig(BaseModel):
    """Room residency settings; ACP rooms keep their process until they stop or fail."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    idle_timeout_s: float | None = Field(default=None, gt=0, allow_inf_nan=False)
    #: Bounds one process start (spawn, initialize, authenticate, session setup).
    transition_timeout_s: float = Field(default=30.0, gt=0, allow_inf_nan=False)


class ACPClientAdapterConfig(BaseModel):
    """How to launch the ACP agent for each room, and what each session gets."""

    model_config = ConfigDict(frozen=True, extra="forbid", arbitrary_types_allowed=True)

    command: tuple[str, ...]
    env: dict[str, str] | None = None
    cwd: str | None = None
    mcp_servers: tuple[SessionMcpServer, ...] = ()
    inject_band_tools: bool = True
    auth_method: str | None = None
    custom_section: str = ""
    use_unstable_protocol: bool = False
    turn_timeout_s: PositiveFloat = DEFAULT_TURN_TIMEOUT_S
    turn_settle_timeout_s: NonNegativeFloat = Field(
        default=TURN_SETTLE_GRACE_S,
        description=(
            "Seconds leaving a room or stopping the agent lets the room's running turn end "
            "on its own before it is cancelled."
        ),
    )
    max_live_processes: PositiveInt = Field(
        default=DEFAULT_MAX_LIVE_PROCESSES,
        description=(
            "Agent processes alive at once. When a room needs one past it, the least recently "
            "used idle room's process is stopped; that room's session is loaded again on its "
            "next message."
        ),
    )
    new_session_on_refused_load: bool = Field(
        default=False,
        description=(
            "When the agent refuses to load the room's own session (Gemini CLI may have lost "
            "it), open a new session and give it the room's earlier messages as background "
            "instead of failing the turn. Off by default, as the seed says (the turn fails and "
            "so, while the agent keeps refusing, does every later one in the room)."
        ),
    )
    model: str | None = None
    reasoning_effort: str | None = None
    retention: ACPRetentionConfig = Field(default_factory=ACPRetentionConfig)

    @model_validator(mode="before")
    @classmethod
    def _no_tcp(cls, data: object) -> object:
        # one TCP endpoint is one shared process: it cannot give each room its own
        if isinstance(data, Mapping) and ("host" in data or "port" in data):
            raise ValueError("TCP ACP transport cannot guarantee room process isolation")
        return data

    @field_validator("command", mode="before")
    @classmethod
    def _one_string_is_one_argv(cls, value: object) -> object:
        if value is None:
            return ()
        if isinstance(value, str):
            return (value,) if value else ()
        return value

    @field_validator("command")
    @classmethod
    def _command_required(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        if not value or not value[0]:
            raise ValueError("ACP stdio transport requires a command")
        return value

    @field_validator("retention")
    @classmethod
    def _no_idle_retention(cls, value: ACPRetentionConfig) -> ACPRetentionConfig:
        if value.idle_timeout_s is not None:
            raise ValueError(_RETENTION_REFUSED)
        return value

    @model_validator(mode="before")
    @classmethod
    def _command_present(cls, data: object) -> object:
        # a missing command reads as "no command", not as pydantic's generic "Field required"
        if isinstance(data, Mapping) and "command" not in data:
            return {**data, "command": None}
        return data


@dataclass(frozen=True)
class ACPPermissionRequest:
    """One permission request of the ACP agent: what it wants to run and the offered options."""

    room_id: str
    session_id: str
    tool_call: ToolCallUpdate
    options: tuple[PermissionOption, ...]


@dataclass(frozen=True)
class ACPConfigRequest:
    """A session's advertised configuration catalog, for ``resolve_session_config``."""

    room_id: str
    session_id: str
    config_options: tuple[SessionConfigOption, ...]


#: Returns an offered option ID, or None to cancel the request.
PermissionResolver: TypeAlias = Callable[[ACPPermissionRequest], Awaitable[str | None]]
#: Returns option ID -> value to set (a None value skips that option).
ConfigResolver: TypeAlias = Callable[[ACPConfigRequest], Awaitable[Mapping[str, str | None]]]
