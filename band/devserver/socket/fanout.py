"""Connection registry and fan-out of server pushes."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import msgspec
from starlette.websockets import WebSocket

from band.core.wire import JsonObject, encode_frame
from band.serving.ws import DIRECT_SEND, DirectSendProtocol

from ..store.principal import Principal

log = logging.getLogger(__name__)
#: One outgoing V2 frame: (join_ref, ref, topic, event, payload); the payload a dict, a Struct
#: or already encoded JSON (``msgspec.Raw``).
Frame = tuple[str | None, str | None, str, str, Any]
#: a join_ref as JSON (``"3"``, ``null``): a push's frame is ``[`` + it + the push's tail
_encode_ref = msgspec.json.Encoder().encode
#: the bytes of a frame before its tail when the join_ref is null
_NULL_REF = len(b"[null")


def push_tail(topic: str, event: str, payload: JsonObject | msgspec.Struct | msgspec.Raw) -> bytes:
    """A push's frame after its join_ref (``,null,"topic","event",payload]``), the same for
    every socket: ``b"[" + _encode_ref(join_ref) + tail`` is ``encode_frame``'s frame."""
    return encode_frame(None, None, topic, event, payload)[_NULL_REF:]


class Connection:
    """One live WebSocket and the topics it joined (topic -> join_ref)."""

    def __init__(self, principal: Principal, ws: WebSocket) -> None:
        self.principal = principal
        self.ws = ws
        self.topics: dict[str, str | None] = {}
        self.closed = False
        self._lock = asyncio.Lock()
        offered = ws.scope.get("extensions") or {}
        #: the server's direct text send (``band.serving.ws``), else None: sends go through ASGI
        self._direct: DirectSendProtocol | None = offered.get(DIRECT_SEND, {}).get("protocol")
        #: sends waiting for the transport's buffer to drain: later ones queue behind them
        self._waiting = 0

    async def send(self, frame: Frame) -> None:
        """Send one Phoenix V2 frame; drop silently when the socket is gone."""
        if not self.closed:  # a payload that cannot be encoded is our bug: raise
            await self.send_encoded(encode_frame(*frame))

    async def send_encoded(self, data: bytes) -> None:
        """Send one encoded V2 frame, in order with this socket's others; drop it silently when
        the socket is gone."""
        if self.closed:
            return
        direct = self._direct
        if direct is None:
            await self._send_asgi(data)
        elif self._waiting or direct.write_paused:
            await self._send_drained(direct, data)
        else:  # nothing ahead of it and room in the buffer: written now, no await
            try:
                sent = direct.write_text(data)
            except Exception:  # the transport went away under us
                sent = False
            self.closed = not sent

    async def _send_drained(self, direct: DirectSendProtocol, data: bytes) -> None:
        """Wait (in turn) for the transport to take more, as uvicorn's ASGI send waits."""
        self._waiting += 1
        try:
            async with self._lock:
                await direct.writable.wait()
                try:
                    sent = direct.write_text(data)
                except Exception:  # the transport went away under us
                    sent = False
                if not sent:
                    self.closed = True
        finally:
            self._waiting -= 1

    async def _send_asgi(self, data: bytes) -> None:
        """Through Starlette and the server's ASGI send (a server without the direct send)."""
        async with self._lock:
            try:
                await self.ws.send_text(data.decode())
            except Exception:  # socket went away under us
                self.closed = True


#: A socket's subscription that was dropped: (connection, topic, join_ref).
Joined = tuple[Connection, str, str | None]


class Fanout:
    """Tracks connections and pushes events to joined topics."""

    def __init__(self) -> None:
        self.connections: set[Connection] = set()
        self.agents: dict[str, Connection] = {}
        #: live sockets of each principal (the per-key cap)
        self.per_principal: dict[str, int] = {}

    def sockets_of(self, pid: str) -> int:
        """How many live sockets ``pid`` holds."""
        return self.per_principal.get(pid, 0)

    def agent_connected(self, agent_id: str) -> Connection | None:
        """Return the live connection of ``agent_id``, if any."""
        conn = self.agents.get(agent_id)
        return conn if conn and not conn.closed else None

    def add(self, conn: Connection) -> None:
        """Register a connection."""
        if conn not in self.connections:
            pid = conn.principal.id
            self.per_principal[pid] = self.per_principal.get(pid, 0) + 1
        self.connections.add(conn)
        if conn.principal.kind == "agent":
            self.agents[conn.principal.id] = conn

    def remove(self, conn: Connection) -> None:
        """Forget a connection."""
        conn.closed = True
        if conn in self.connections:
            pid = conn.principal.id
            left = self.per_principal.get(pid, 1) - 1
            if left > 0:
                self.per_principal[pid] = left
            else:
                self.per_principal.pop(pid, None)
        self.connections.discard(conn)
        if self.agents.get(conn.principal.id) is conn:
            del self.agents[conn.principal.id]

    def leave_room(self, rid: str, pid: str | None = None) -> list[Joined]:
        """Unsubscribe ``pid``'s sockets (every socket when None) from room ``rid``'s topics.

        Synchronous on purpose: called right after the store drops the membership, before the
        caller awaits anything, so no push of the room can slip in between. Returns what was
        left as (connection, topic, join_ref).
        """
        topics = (f"chat_room:{rid}", f"room_participants:{rid}")
        left: list[Joined] = []
        for conn in self.connections:
            if pid is None or conn.principal.id == pid:
                left += [(conn, t, conn.topics.pop(t)) for t in topics if t in conn.topics]
        return left

    async def send_to(
        self, left: list[Joined], topic: str, event: str, payload: JsonObject | msgspec.Struct
    ) -> None:
        """Send one farewell ``event`` on ``topic`` to sockets that just left it."""
        for conn, joined, join_ref in left:
            if joined == topic:
                await conn.send((join_ref, None, topic, event, payload))

    async def disconnect(self, pid: str, code: int = 1008, reason: str = "agent deleted") -> None:
        """Close every socket of ``pid`` (a deleted agent): topics dropped before any await."""
        conns = [c for c in self.connections if c.principal.id == pid]
        for conn in conns:
            conn.topics.clear()
        for conn in conns:
            self.remove(conn)
            try:  # 1008 (policy violation): the SDK stops reconnecting a key that is gone
                await conn.ws.close(code=code, reason=reason)
            except Exception:
                log.debug("socket of %s already closed", pid)

    def online(self, pid: str) -> bool:
        """Whether a principal has a live connection."""
        return any(c.principal.id == pid and not c.closed for c in self.connections)

    async def push(
        self,
        topic: str,
        event: str,
        payload: JsonObject | msgspec.Struct | msgspec.Raw,
        *,
        agent_ids: frozenset[str] | None = None,
    ) -> None:
        """Send ``event`` to every socket joined to ``topic`` (agents filtered by ``agent_ids``;
        a ``Raw`` payload is its JSON, already encoded)."""
        tail: bytes | None = None  # the frame after its join_ref, encoded once for every socket
        for conn in list(self.connections):
            if topic not in conn.topics:
                continue
            if (
                agent_ids is not None
                and conn.principal.kind == "agent"
                and conn.principal.id not in agent_ids
            ):
                continue
            if tail is None:
                tail = push_tail(topic, event, payload)
            await conn.send_encoded(b"[" + _encode_ref(conn.topics[topic]) + tail)
        log.debug("pushed %s on %s", event, topic)
