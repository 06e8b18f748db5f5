"""``OneShotInvoker``: one forwarded platform event in, the agent's turns for it out.

For hosts that run a container per request (serverless functions, request/response agent
hosts) and cannot hold the socket: something else holds it and forwards each event as an
envelope ``{"event_type", "agent_id", "room_id", "payload", ...}``. The invoker keeps no room
state between calls. A ``message_created`` for the agent runs what the room owes it, through
the runtime's own per-room turn path (``RoomExecution``: claim, processing mark, the adapter's
turn, processed/failed settlement), oldest first, up to ``drain_cap`` messages::

    link = BandLink(agent_id, api_key, rest_url=...)  # only its REST client is used
    invoker = OneShotInvoker(link=link, adapter=MyAdapter(), agent_id=agent_id)
    await invoker.startup()
    result = await invoker.handle_event(envelope)  # {"status": "done", "message_id": ...}
    await invoker.shutdown()
"""

from __future__ import annotations

import enum
from typing import Any

from band.client.rest import path
from band.core.simple_adapter import SimpleAdapter
from band.core.wire import AgentMe, JsonObject
from band.platform.link import BandLink
from band.runtime.adapter_lifecycle import dispose_adapter, start_adapter
from band.runtime.composed import ExecutionContext
from band.runtime.rooms.actionable import actionable_pages
from band.runtime.rooms.execution import RoomExecution
from band.runtime.rooms.messages import inbound
from band.runtime.rooms.settlement import Delivery
from band.runtime.sessionconfig import SessionConfig
from band.runtime.trace import TurnRecorder, TurnTrace
from band_sdk_core import ClaimRegistry, RetryTracker, evaluate_delivery_event

__all__ = ["OneShotEnvelopeError", "OneShotInvoker", "OneShotStatus"]

DEFAULT_DRAIN_CAP = 50
DEFAULT_HISTORY_PAGE_CAP = 20


class OneShotStatus(enum.StrEnum):
    """``handle_event``'s ``status``: what the forwarded event led to."""

    #: not an event that runs the agent (participant or contact changes, a room added...)
    IGNORED = "ignored"
    #: the agent left the room (removed, deleted): the adapter dropped its state for it
    CLEANED_UP = "cleaned_up"
    #: the agent's own message
    SKIPPED_SELF = "skipped_self"
    #: the room owes the agent nothing (already handled by an earlier call)
    NO_PENDING = "no_pending"
    #: the message had been answered already; other owed messages may have run
    ALREADY_PROCESSED = "already_processed"
    #: the message's turn ran and was settled (``error`` says why when it failed)
    DONE = "done"
    #: the platform did not let the agent take the message (room stopped, mark refused)
    NOT_ACCEPTED = "not_accepted"


class OneShotEnvelopeError(ValueError):
    """The forwarded envelope lacks what its event needs (a room id, a message id...)."""


class OneShotInvoker:
    """Runs a ``SimpleAdapter`` for forwarded events, one call at a time, no socket.

    ``drain_cap`` bounds how many owed messages one call runs; ``history_page_cap`` is
    accepted for band-sdk's signature (the context a turn gets is bounded by
    ``SessionConfig.max_context_messages``, as for ``Agent``).
    """

    def __init__(
        self,
        *,
        link: BandLink,
        adapter: SimpleAdapter[Any],
        agent_id: str,
        drain_cap: int = DEFAULT_DRAIN_CAP,
        history_page_cap: int = DEFAULT_HISTORY_PAGE_CAP,
    ) -> None:
        if not isinstance(adapter, SimpleAdapter):
            raise TypeError(f"OneShotInvoker runs a SimpleAdapter, not {type(adapter).__name__}")
        if drain_cap < 1:
            raise ValueError("drain_cap must be at least 1")
        self._link = link
        self._adapter = adapter
        self._agent_id = agent_id
        self._drain_cap = drain_cap
        self._history_page_cap = history_page_cap
        self._config = SessionConfig()
        retries = RetryTracker(max(1, self._config.max_message_retries))
        self._delivery = Delivery(link.rest, ClaimRegistry(), retries)
        self._recorder = TurnRecorder(agent_id)
        self._agent_name = ""
        self._agent_description = ""
        self._started = False

    @property
    def link(self) -> BandLink:
        """The link whose REST client the invoker uses."""
        return self._link

    @property
    def agent_name(self) -> str:
        """The agent's name as the platform has it (after ``startup``)."""
        return self._agent_name

    @property
    def agent_description(self) -> str:
        """The agent's description as the platform has it (after ``startup``)."""
        return self._agent_description

    async def startup(self) -> None:
        """Read the agent's identity and start the adapter (as ``Agent.start`` does, without
        the socket); calling it again does nothing."""
        if self._started:
            return
        resp = await self._link.rest.request("GET", "/agent/me")
        me = resp.data_as(AgentMe) or AgentMe()
        self._agent_name = me.name or self._agent_id
        self._agent_description = me.description or ""
        await start_adapter(
            self._adapter,
            agent_name=self._agent_name,
            agent_description=self._agent_description,
            feature_flags=me.feature_flags,
        )
        self._started = True

    async def shutdown(self) -> None:
        """Let the adapter release what it holds; ``startup`` is needed again after."""
        if self._started:
            self._started = False
            await dispose_adapter(self._adapter)

    async def handle_event(self, body: JsonObject) -> dict[str, Any]:
        """Handle one forwarded envelope; ``{"status": OneShotStatus, ...}``.

        ``OneShotEnvelopeError`` when the envelope is incomplete; ``RuntimeError`` before
        ``startup()``.
        """
        if not self._started:
            raise RuntimeError("OneShotInvoker.startup() not called, or shut down")
        event_type = str(body.get("event_type") or "")
        raw = body.get("payload")
        payload = raw if isinstance(raw, dict) else {}
        room = body.get("room_id")
        try:
            decision = evaluate_delivery_event(
                event_type, room if isinstance(room, str) else None, payload, self._agent_id
            )
        except ValueError as exc:
            raise OneShotEnvelopeError(str(exc)) from exc
        kind = decision["decision"]
        if kind == "ignored":
            return {"status": OneShotStatus.IGNORED, "event_type": event_type}
        if kind == "cleanup":
            await self._adapter.on_cleanup(str(decision["room_id"]))
            return {"status": OneShotStatus.CLEANED_UP, "room_id": decision["room_id"]}
        if kind == "skip_self":
            return {"status": OneShotStatus.SKIPPED_SELF, "message_id": decision["message_id"]}
        return await self._run(str(decision["room_id"]), str(decision["message_id"]))

    async def _run(self, room_id: str, message_id: str) -> dict[str, Any]:
        """Run what the room owes the agent, as ``/next`` serves it; report on ``message_id``."""
        room = RoomExecution(
            # band-sdk's type of a preprocessor's ``ctx``
            ExecutionContext(
                room_id, agent_id=self._agent_id, rest=self._link.rest, config=self._config
            ),
            delivery=self._delivery,
            adapter=self._adapter,
            recorder=self._recorder,
        )
        before = {id(t) for t in self._recorder.recent()}
        await self._delivery.flush_room(room_id)  # marks an earlier call could not post
        ran: list[str] = []
        truncated = True
        for _ in range(self._drain_cap):
            served = await self._link.rest.request(
                "GET", path("/agent/chats/{}/messages/next", room_id)
            )
            item = inbound(served.data) if served.status_code == 200 else None
            if item is None:
                truncated = False
                break
            if item.row.id in ran:
                # /next serves again one that may not run here (failed for good, or its mark
                # pending): what came after it is in the actionable listing
                truncated = await self._run_listing(room, ran)
                break
            ran.append(str(item.row.id))
            # the room's own turn path: claim, processing mark, turn, settlement
            await room.pipeline.deliver(item)
            if room.stopped:
                truncated = False
                break
        traces = [t for t in self._recorder.recent() if id(t) not in before]
        result = self._status(message_id, traces)
        drained = [t.message_id for t in traces if t.message_id != message_id]
        if drained:
            result["drained"] = drained
        if truncated:
            result["drain_truncated"] = True
        return result

    async def _run_listing(self, room: RoomExecution, ran: list[str]) -> bool:
        """Run the room's actionable messages not run yet in this call, oldest first, within
        ``drain_cap`` in all (``ran`` grows); whether the cap cut it short."""
        async for items, _ in actionable_pages(self._link.rest, room.room_id):
            for item in items:
                mid = str(item.row.id)
                if mid in ran:
                    continue
                if len(ran) >= self._drain_cap:
                    return True
                ran.append(mid)
                await room.pipeline.deliver(item)
                if room.stopped:
                    return False
        return False

    @staticmethod
    def _status(message_id: str, traces: list[TurnTrace]) -> dict[str, Any]:
        mine = [t for t in traces if t.message_id == message_id]
        if not mine:
            status = OneShotStatus.ALREADY_PROCESSED if traces else OneShotStatus.NO_PENDING
            return {"status": status, "message_id": message_id}
        last = mine[-1]
        if last.outcome == "processed" and last.error is not None:
            return {"status": OneShotStatus.ALREADY_PROCESSED, "message_id": message_id}
        if last.outcome in ("processed", "failed"):
            result: dict[str, Any] = {"status": OneShotStatus.DONE, "message_id": message_id}
            if last.outcome == "failed":
                result["error"] = last.error
            return result
        return {
            "status": OneShotStatus.NOT_ACCEPTED,
            "message_id": message_id,
            "reason": last.error or last.outcome,
        }
