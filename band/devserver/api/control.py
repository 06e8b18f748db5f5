"""Agent execution control: the local person stops / plays / interrupts an agent in a room.

``POST /api/v1/me/chats/{chat_id}/control`` with ``{"mode": "stop"|"play"|"interrupt",
"agent_id": ..., "reason"?: ...}`` (flat, or wrapped as ``{"control": {...}}``) pushes an
``agent.control`` event (spec 3.5) on ``agent_control:{agent_id}``. ``GET`` on the same path
lists the agents currently stopped in the room.

``POST /api/v1/me/agents/{agent_id}/control`` with ``{"mode": ..., "reason"?: ...}`` is the
agent-wide form for the agent's owner: one ``agent.control`` with ``scope: "agent"`` and
``room_id: null`` (the SDK fans it out to every room), and ``stop`` / ``play`` apply to every
room the agent is in at that moment. ``GET`` on it lists the rooms where the agent is stopped.

State is **in memory** on ``app.state.control`` (no migration): a set of stopped
``(agent_id, room_id)`` pairs. It resets when the server restarts, like a live execution would.
While a pair is stopped, the agent's processing marks in that room answer 204 (nothing to
process) and its message / event posts get 403 ``forbidden`` "agent execution is stopped in
this room" (spec 2.1). ``play`` clears the pair; ``interrupt`` only pushes the event.
"""

from __future__ import annotations

import uuid
from typing import Any

from starlette.responses import Response

from band.core.wire import JsonObject

from ..contract.bodies import ControlBody, RoomControlBody
from ..store.db import Store, StoreError
from . import writes
from .http import Ctx, data
from .operations import Operation, declare

STOPPED_MESSAGE = "agent execution is stopped in this room"


class ControlState:
    """Which agents are stopped in which rooms (in-memory, per app)."""

    def __init__(self) -> None:
        self.stopped: set[tuple[str, str]] = set()

    def is_stopped(self, agent_id: str, room_id: str) -> bool:
        """Whether ``agent_id``'s execution in ``room_id`` is stopped."""
        return (agent_id, room_id) in self.stopped


def state(ctx: Ctx) -> ControlState:
    """Return (creating on first use) the app's control state."""
    app_state = ctx.request.app.state
    current = getattr(app_state, "control", None)
    if not isinstance(current, ControlState):
        current = ControlState()
        app_state.control = current
    return current


def stopped(ctx: Ctx, room_id: str) -> bool:
    """Whether the calling agent is stopped in ``room_id``."""
    return ctx.principal.kind == "agent" and state(ctx).is_stopped(ctx.principal.id, room_id)


def refuse_if_stopped(ctx: Ctx, room_id: str) -> None:
    """Raise 403 ``forbidden`` when the calling agent is stopped in ``room_id``."""
    if stopped(ctx, room_id):
        raise StoreError(403, "forbidden", STOPPED_MESSAGE)


def control_payload(
    mode: str, agent_id: str, room_id: str | None, reason: str | None = None
) -> dict[str, Any]:
    """Build an ``agent.control`` payload (validated by band_sdk_core, spec 3.5)."""
    payload: dict[str, Any] = {
        "type": "agent.control",
        "mode": mode,
        "scope": "room" if room_id else "agent",
        "agent_id": agent_id,
        "room_id": room_id,
        "execution_id": None,
        "correlation_id": str(uuid.uuid4()),
    }
    if reason:
        payload["reason"] = reason
    return payload


async def control(ctx: Ctx) -> Response:
    """POST /me/chats/{chat_id}/control (stop, play or interrupt an agent in the room)."""
    rid = ctx.params["chat_id"]
    body = ctx.body(RoomControlBody)
    aid, mode, reason = body.agent_id, body.mode, body.reason
    await ctx.member_room(rid)
    parts = await ctx.db.run(Store.participants, rid)
    if not any(p.id == aid and p.type == "Agent" for p in parts):
        raise StoreError(
            422, "validation_error", "agent is not in this room", {"agent_id": ["not in room"]}
        )
    st = state(ctx)
    if mode == "stop":
        st.stopped.add((aid, rid))
    elif mode == "play":
        st.stopped.discard((aid, rid))
    payload = control_payload(mode, aid, rid, reason)
    await writes.push(ctx, f"agent_control:{aid}", "agent.control", payload)
    return data({**payload, "stopped": st.is_stopped(aid, rid)})


async def control_status(ctx: Ctx) -> Response:
    """GET /me/chats/{chat_id}/control (agents whose execution is stopped in the room)."""
    rid = ctx.params["chat_id"]
    await ctx.member_room(rid)
    ids = sorted(a for a, r in state(ctx).stopped if r == rid)
    return data({"room_id": rid, "stopped_agent_ids": ids})


async def _owned_agent(ctx: Ctx) -> str:
    """Return the path's agent id when the caller owns that agent, else 404."""
    aid: str = ctx.params["agent_id"]
    agent = await ctx.db.run(Store.agent, aid)
    if agent is None or agent.owner_id != ctx.principal.id:
        raise StoreError(404, "not_found", "agent not found")
    return aid


def _stopped_rooms(st: ControlState, aid: str) -> list[str]:
    return sorted(r for a, r in st.stopped if a == aid)


async def agent_control(ctx: Ctx) -> Response:
    """POST /me/agents/{agent_id}/control (stop, play or interrupt the agent in every room)."""
    aid = await _owned_agent(ctx)
    body = ctx.body(ControlBody)
    mode, reason = body.mode, body.reason
    st = state(ctx)
    if mode == "stop":
        st.stopped |= {(aid, rid) for rid in await ctx.db.agent_room_ids(aid)}
    elif mode == "play":
        st.stopped = {(a, r) for a, r in st.stopped if a != aid}
    payload = control_payload(mode, aid, None, reason)
    await writes.push(ctx, f"agent_control:{aid}", "agent.control", payload)
    return data({**payload, "stopped_room_ids": _stopped_rooms(st, aid)})


async def agent_control_status(ctx: Ctx) -> Response:
    """GET /me/agents/{agent_id}/control (rooms where the agent's execution is stopped)."""
    aid = await _owned_agent(ctx)
    return data({"agent_id": aid, "stopped_room_ids": _stopped_rooms(state(ctx), aid)})


C = "/api/v1/me/chats/{chat_id}/control"
G = "/api/v1/me/agents/{agent_id}/control"
routes = declare(
    Operation("POST", C, control, rule="control", answer=(200, JsonObject), body=RoomControlBody),
    Operation("GET", C, control_status, rule="read", answer=(200, JsonObject)),
    Operation(
        "POST", G, agent_control, rule="own_agent", answer=(200, JsonObject), body=ControlBody
    ),
    Operation("GET", G, agent_control_status, rule="own_agent", answer=(200, JsonObject)),
)
