"""band-sdk's ``WebSocketClient`` on our Phoenix client: channels joined with async callbacks
that receive typed payloads (``band.client.streaming``)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import asdict
from types import TracebackType
from typing import Any

from band.client.phoenix import PhoenixClient, PhoenixError, SessionEndedError
from band.client.streaming.errors import WebSocketDisconnectReason, WebSocketUpgradeError
from band.client.streaming.wire import PAYLOAD_TYPES, SupersedePayload, WireEvent, payload_of
from band.core.types import ConflictPolicy
from band.core.wire import JsonObject
from band_sdk_core import AgentTopicKind, SessionPolicy, chat_room_topic, room_participants_topic

__all__ = ["WebSocketClient"]

log = logging.getLogger("band.client.websocket")

#: An async callback receiving one typed payload (a dict on the tasks channel).
Callback = Callable[[Any], Awaitable[None]]


async def _ignore(_: object) -> None:
    """The default ``on_room_deleted``: nothing to do."""


class WebSocketClient:
    """One agent's (or person's) socket: ``async with`` connects, each ``join_*`` subscribes a
    channel's events to async callbacks, ``run_forever`` waits until the session ends.

    A refused upgrade (``conflict_policy=REJECT`` while another connection lives, say) raises
    WebSocketUpgradeError on entry; other failures to connect raise SessionEndedError.
    Invalid pushes are dropped and counted (``validation_error_count``); a ``supersede`` on the
    control channel ends the session and is kept as ``last_disconnect_reason``.
    """

    def __init__(
        self,
        ws_url: str,
        api_key: str,
        agent_id: str | None = None,
        on_reconnect: Callable[[], Awaitable[None]] | None = None,
        on_disconnect: Callable[[Exception | None], Awaitable[None]] | None = None,
        session_policy: SessionPolicy | None = None,
        conflict_policy: ConflictPolicy = ConflictPolicy.SUPERSEDE,
    ) -> None:
        self.ws_url = ws_url
        self.api_key = api_key
        self.agent_id = agent_id
        self.client: PhoenixClient | None = None
        self._on_reconnect = on_reconnect
        self._on_disconnect = on_disconnect
        self._policy = session_policy
        self._conflict_policy = ConflictPolicy(conflict_policy)
        self._invalid = 0
        self._last_reason: WebSocketDisconnectReason | None = None
        self._ended: asyncio.Event | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    def __repr__(self) -> str:  # never the key
        return f"WebSocketClient(ws_url={self.ws_url!r}, agent_id={self.agent_id!r})"

    # --- state --------------------------------------------------------------------------------

    @property
    def validation_error_count(self) -> int:
        """Pushes dropped because their payload did not validate."""
        return self._invalid

    def reset_validation_error_count(self) -> int:
        """Set the count of dropped pushes back to 0; return what it was."""
        count, self._invalid = self._invalid, 0
        return count

    @property
    def last_disconnect_reason(self) -> WebSocketDisconnectReason | None:
        """Why the platform last ended the session for good (a supersede), if it did."""
        return self._last_reason

    @property
    def transport_ended(self) -> bool:
        """True once the session ended for good (superseded, given up, or closed)."""
        return self._ended is not None and self._ended.is_set()

    @property
    def joined_topics(self) -> frozenset[str]:
        """The topics joined on the open socket."""
        return frozenset(self.client.topics) if self.client is not None else frozenset()

    # --- connect and close --------------------------------------------------------------------

    async def __aenter__(self) -> WebSocketClient:
        self._ended = asyncio.Event()
        params = {"agent_id": self.agent_id} if self.agent_id else None
        reject = self._conflict_policy is ConflictPolicy.REJECT
        self.client = PhoenixClient(
            self.ws_url,
            api_key=self.api_key,
            params=params,
            initial_params={"on_conflict": "reject"} if reject else None,
            policy=self._policy,
            on_connected=self._connected,
            on_dead=self._dead,
        )
        try:
            await self.client.connect()
        except SessionEndedError as exc:
            await self.client.close()
            refusal = self.client.last_refusal
            upgrade = WebSocketUpgradeError.from_exception(refusal) if refusal else None
            if upgrade is not None:  # refused with an error envelope: band-sdk's error
                raise upgrade from exc
            raise
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self.client is not None:
            await self.client.close()
        for task in list(self._tasks):
            task.cancel()
        if self._ended is not None:
            self._ended.set()

    async def run_forever(self, *, install_signal_handlers: bool = True) -> None:
        """Wait until the session ends (superseded, given up, or the client closed); with
        ``install_signal_handlers``, SIGINT/SIGTERM close the client."""
        client = self._require_client()
        ended = self._ended
        assert ended is not None  # set by __aenter__, as client is
        loop = asyncio.get_running_loop()
        installed: list[signal.Signals] = []
        if install_signal_handlers:
            for sig in (signal.SIGINT, signal.SIGTERM):
                with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                    loop.add_signal_handler(sig, ended.set)
                    installed.append(sig)
        try:
            await ended.wait()
        finally:
            for sig in installed:
                loop.remove_signal_handler(sig)
            await client.close()

    async def _connected(self, reconnected: bool, failed: list[str]) -> None:
        if reconnected and self._on_reconnect is not None:
            await self._on_reconnect()

    async def _dead(self, reason: str) -> None:
        if self._ended is not None:
            self._ended.set()
        if self._on_disconnect is not None:
            await self._on_disconnect(PhoenixError(reason))

    def _require_client(self) -> PhoenixClient:
        if self.client is None:
            raise RuntimeError("WebSocketClient is not connected: use `async with` first")
        return self.client

    # --- pushes -------------------------------------------------------------------------------

    def _dispatcher(self, handlers: Mapping[str, Callback]) -> Callable[[str, JsonObject], None]:
        """A push handler: each event with a callback gets its typed payload, in a task."""

        def on_push(event: str, payload: JsonObject) -> None:
            callback = handlers.get(event)
            if callback is None:
                if event != WireEvent.EVENT_CREATED:
                    log.debug("no callback for %s push", event)
                return
            typed: Any = payload
            if event in PAYLOAD_TYPES:
                try:
                    typed = payload_of(event, payload)
                except (ValueError, TypeError) as exc:
                    self._invalid += 1
                    log.warning("dropping invalid %s push: %s", event, exc)
                    return
            if isinstance(typed, SupersedePayload):
                self._superseded(typed)
            task = asyncio.ensure_future(self._call(event, callback, typed))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

        return on_push

    async def _call(self, event: str, callback: Callback, payload: Any) -> None:
        try:
            await callback(payload)
        except Exception:
            log.exception("the %s callback failed", event)

    def _superseded(self, push: SupersedePayload) -> None:
        """Keep why, and end the session as the platform asked (the runtime does the same)."""
        self._last_reason = WebSocketDisconnectReason(**asdict(push))
        self._require_client().supersede(
            retryable=push.retryable,
            retry_after_s=float(push.retry_after) if push.retry_after is not None else None,
        )

    async def _join(self, topic: str, handlers: Mapping[WireEvent, Callback]) -> None:
        table = {event.value: callback for event, callback in handlers.items()}
        await self._require_client().join(topic, self._dispatcher(table))

    async def _leave(self, topic: str) -> None:
        await self._require_client().leave(topic)

    # --- channels -----------------------------------------------------------------------------

    async def join_agent_control_channel(
        self, agent_id: str, on_supersede: Callback, on_control: Callback | None = None
    ) -> None:
        """``supersede`` (the session is over) and, with ``on_control``, ``agent.control``."""
        handlers = {WireEvent.SUPERSEDE: on_supersede}
        if on_control is not None:
            handlers[WireEvent.AGENT_CONTROL] = on_control
        await self._join(AgentTopicKind.Control.topic(agent_id), handlers)

    async def join_agent_rooms_channel(
        self, agent_id: str, on_room_added: Callback, on_room_removed: Callback
    ) -> None:
        """The agent was added to or removed from a room."""
        handlers = {WireEvent.ROOM_ADDED: on_room_added, WireEvent.ROOM_REMOVED: on_room_removed}
        await self._join(AgentTopicKind.Rooms.topic(agent_id), handlers)

    async def join_chat_room_channel(
        self,
        chat_room_id: str,
        on_message_created: Callback,
        on_message_updated: Callback | None = None,
    ) -> None:
        """A room's new messages and, with ``on_message_updated``, their delivery changes."""
        handlers = {WireEvent.MESSAGE_CREATED: on_message_created}
        if on_message_updated is not None:
            handlers[WireEvent.MESSAGE_UPDATED] = on_message_updated
        await self._join(chat_room_topic(chat_room_id), handlers)

    async def join_user_rooms_channel(
        self, user_id: str, on_room_added: Callback, on_room_removed: Callback
    ) -> None:
        """A person was added to or removed from a room."""
        handlers = {WireEvent.ROOM_ADDED: on_room_added, WireEvent.ROOM_REMOVED: on_room_removed}
        await self._join(f"user_rooms:{user_id}", handlers)

    async def join_room_participants_channel(
        self,
        chat_room_id: str,
        on_participant_added: Callback,
        on_participant_removed: Callback,
        on_room_deleted: Callback = _ignore,
    ) -> None:
        """Participants joining and leaving a room, and its deletion."""
        handlers = {
            WireEvent.PARTICIPANT_ADDED: on_participant_added,
            WireEvent.PARTICIPANT_REMOVED: on_participant_removed,
            WireEvent.ROOM_DELETED: on_room_deleted,
        }
        await self._join(room_participants_topic(chat_room_id), handlers)

    async def join_tasks_channel(
        self, user_id: str, on_task_created: Callback, on_task_updated: Callback
    ) -> None:
        """A person's task rows, as dicts."""
        handlers = {
            WireEvent.TASK_CREATED: on_task_created,
            WireEvent.TASK_UPDATED: on_task_updated,
        }
        await self._join(f"tasks:{user_id}", handlers)

    async def join_agent_contacts_channel(
        self,
        agent_id: str,
        on_contact_request_received: Callback,
        on_contact_request_updated: Callback,
        on_contact_added: Callback,
        on_contact_removed: Callback,
    ) -> None:
        """The agent's contact requests and contacts."""
        handlers = {
            WireEvent.CONTACT_REQUEST_RECEIVED: on_contact_request_received,
            WireEvent.CONTACT_REQUEST_UPDATED: on_contact_request_updated,
            WireEvent.CONTACT_ADDED: on_contact_added,
            WireEvent.CONTACT_REMOVED: on_contact_removed,
        }
        await self._join(AgentTopicKind.Contacts.topic(agent_id), handlers)

    # leaving: the topic's pushes stop; a topic not joined is a no-op

    async def leave_agent_control_channel(self, agent_id: str) -> None:
        await self._leave(AgentTopicKind.Control.topic(agent_id))

    async def leave_agent_rooms_channel(self, agent_id: str) -> None:
        await self._leave(AgentTopicKind.Rooms.topic(agent_id))

    async def leave_chat_room_channel(self, chat_room_id: str) -> None:
        await self._leave(chat_room_topic(chat_room_id))

    async def leave_user_rooms_channel(self, user_id: str) -> None:
        await self._leave(f"user_rooms:{user_id}")

    async def leave_room_participants_channel(self, chat_room_id: str) -> None:
        await self._leave(room_participants_topic(chat_room_id))

    async def leave_tasks_channel(self, user_id: str) -> None:
        await self._leave(f"tasks:{user_id}")

    async def leave_agent_contacts_channel(self, agent_id: str) -> None:
        await self._leave(AgentTopicKind.Contacts.topic(agent_id))
