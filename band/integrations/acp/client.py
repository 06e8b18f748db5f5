"""The ACP client side one room's agent process talks to: session updates and permissions."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from typing import Any, NoReturn, Protocol, runtime_checkable

from acp import Agent, RequestError
from acp.schema import (
    AgentMessageChunk,
    AgentPlanContentUpdate,
    AgentPlanRemovedUpdate,
    AgentPlanUpdate,
    AgentThoughtChunk,
    AllowedOutcome,
    AvailableCommandsUpdate,
    ConfigOptionUpdate,
    CurrentModeUpdate,
    DeniedOutcome,
    EnvVariable,
    PermissionOption,
    RequestPermissionResponse,
    SessionInfoUpdate,
    ToolCallProgress,
    ToolCallStart,
    ToolCallUpdate,
    UsageUpdate,
    UserMessageChunk,
)

from band.core.wire import JsonObject

from .config import ACPPermissionRequest, PermissionResolver
from .narration import TurnNarrator
from .permissions import select_allow_option_id

__all__ = [
    "ACPClientProfile",
    "LocalResourceRefusals",
    "RoomClient",
    "SessionUpdate",
    "default_permission_choice",
]

log = logging.getLogger("band.acp")

#: One ``session/update`` notification's update (acp's ``SessionNotification.update``).
SessionUpdate = (
    UserMessageChunk
    | AgentMessageChunk
    | AgentThoughtChunk
    | ToolCallStart
    | ToolCallProgress
    | AgentPlanUpdate
    | AgentPlanContentUpdate
    | AgentPlanRemovedUpdate
    | AvailableCommandsUpdate
    | CurrentModeUpdate
    | ConfigOptionUpdate
    | SessionInfoUpdate
    | UsageUpdate
)


@runtime_checkable
class ACPClientProfile(Protocol):
    """Answers one backend's ACP extension methods (names starting with ``_``)."""

    def forget_session(self, session_id: str) -> None:
        """The adapter closed ``session_id``: drop what was kept for it."""
        ...

    async def ext_method(self, method: str, params: JsonObject) -> JsonObject:
        """The answer to an extension request."""
        ...

    async def ext_notification(self, method: str, params: JsonObject) -> object:
        """Take an extension notification (what it returns is not posted to the room)."""
        ...


def default_permission_choice(options: Sequence[PermissionOption]) -> str | None:
    """Least privilege: the first ``allow_once``, else the first ``allow_always``, else cancel."""
    return select_allow_option_id(list(options))


class LocalResourceRefusals:
    """The fs and terminal requests, refused: the client advertises neither capability."""

    # refuse explicitly instead of answering null (what the SDK's protocol stubs would do).
    # (``**kwargs``: the request's ``_meta`` extras, as acp's ``Client`` declares them)
    async def read_text_file(
        self,
        session_id: str,
        path: str,
        line: int | None = None,
        limit: int | None = None,
        **kwargs: Any,
    ) -> NoReturn:
        raise RequestError.method_not_found("fs/read_text_file")

    async def write_text_file(
        self, session_id: str, path: str, content: str, **kwargs: Any
    ) -> NoReturn:
        raise RequestError.method_not_found("fs/write_text_file")

    async def create_terminal(
        self,
        session_id: str,
        command: str,
        args: list[str] | None = None,
        env: list[EnvVariable] | None = None,
        cwd: str | None = None,
        output_byte_limit: int | None = None,
        **kwargs: Any,
    ) -> NoReturn:
        raise RequestError.method_not_found("terminal/create")

    async def terminal_output(self, session_id: str, terminal_id: str, **kwargs: Any) -> NoReturn:
        raise RequestError.method_not_found("terminal/output")

    async def release_terminal(self, session_id: str, terminal_id: str, **kwargs: Any) -> NoReturn:
        raise RequestError.method_not_found("terminal/release")

    async def wait_for_terminal_exit(
        self, session_id: str, terminal_id: str, **kwargs: Any
    ) -> NoReturn:
        raise RequestError.method_not_found("terminal/wait_for_exit")

    async def kill_terminal(self, session_id: str, terminal_id: str, **kwargs: Any) -> NoReturn:
        raise RequestError.method_not_found("terminal/kill")


class RoomClient(LocalResourceRefusals):
    """Answers one room's agent: updates go to the running turn's narrator, none while loading."""

    def __init__(
        self,
        room_id: str,
        resolver: PermissionResolver | None = None,
        profile: ACPClientProfile | None = None,
    ) -> None:
        self.room_id = room_id
        self._resolver = resolver
        self.profile = profile
        self.narrator: TurnNarrator | None = None
        #: a resolver error raised during the current turn; it is the turn's failure
        self.resolver_error: Exception | None = None
        self._cancelled = asyncio.Event()

    def cancel_permissions(self) -> None:
        """The turn is being cancelled: answer pending permission requests ``cancelled``."""
        self._cancelled.set()

    def start_turn(self, narrator: TurnNarrator) -> None:
        """Route updates to ``narrator`` and arm a fresh cancellation for the new turn."""
        self.narrator, self.resolver_error = narrator, None
        self._cancelled = asyncio.Event()

    async def _resolve(self, request: ACPPermissionRequest) -> str | None:
        """The resolver's choice, or None once the turn is cancelled while it decides."""
        assert self._resolver is not None
        cancelled = self._cancelled
        if cancelled.is_set():
            return None
        decide = asyncio.ensure_future(self._resolver(request))
        stop = asyncio.ensure_future(cancelled.wait())
        try:
            await asyncio.wait({decide, stop}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            stop.cancel()
        if not decide.done():  # the turn was cancelled first
            decide.cancel()
            return None
        return decide.result()

    async def session_update(self, session_id: str, update: SessionUpdate, **kwargs: Any) -> None:
        """Feed the running turn; updates outside a turn (a session/load replay) are dropped."""
        narrator = self.narrator
        if narrator is None or narrator.session_id != session_id:
            return
        narrator.feed(update)  # before any await: keeps wire order
        await narrator.drain()

    async def request_permission(
        self,
        session_id: str,
        tool_call: ToolCallUpdate,
        options: list[PermissionOption],
        **kwargs: Any,
    ) -> RequestPermissionResponse:
        """Pick an offered option (resolver or least-privilege default), or cancel."""
        offered = tuple(options)
        if self._cancelled.is_set():  # a cancelled turn grants nothing more
            choice = None
        elif self._resolver is None:
            choice = default_permission_choice(offered)
        else:
            request = ACPPermissionRequest(self.room_id, session_id, tool_call, offered)
            try:
                choice = await self._resolve(request)
                if choice is not None and choice not in {o.option_id for o in offered}:
                    raise ValueError(
                        f'ACP permission resolver selected unavailable option "{choice}".'
                    )
            except Exception as exc:
                self.resolver_error = exc
                raise
        narrator = self.narrator
        if narrator is not None and narrator.session_id != session_id:
            narrator = None
        if choice is not None:
            if narrator is not None:  # the request may be the first sight of the call
                narrator.permission_requested(tool_call)
            return RequestPermissionResponse(
                outcome=AllowedOutcome(outcome="selected", option_id=choice)
            )
        if narrator is not None:
            narrator.permission_cancelled(tool_call)
            await narrator.drain()
        return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))

    async def ext_method(self, method: str, params: JsonObject) -> JsonObject:
        if self.profile is not None:
            return dict(await self.profile.ext_method(method, params))
        log.debug("room %s: ACP extension request %s ignored", self.room_id, method)
        return {}

    async def ext_notification(self, method: str, params: JsonObject) -> None:
        if self.profile is not None:
            await self.profile.ext_notification(method, params)
            return
        log.debug("room %s: ACP extension notification %s ignored", self.room_id, method)

    def on_connect(self, conn: Agent) -> None:
        """Nothing to keep: the room process holds the connection."""
