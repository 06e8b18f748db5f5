"""Connection registry and fan-out of server pushes."""

from __future__ import annotations

import asyncio
import logging
from collections import deque
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
#: Bytes of frames a socket may have waiting (its peer not reading) before it is closed.
MAX_BEHIND = 16 << 20
#: The close code and reason of such a socket: 1013, try again later (clients reconnect).
BEHIND_CODE = 1013
BEHIND_REASON = "too far behind: pushes were not read"
#: Seconds a close waits for a socket's queued frames to be written.
CLOSE_WAIT_S = 10.0


def push_tail(topic: str, event: str, payload: JsonObject | msgspec.Struct | msgspec.Raw) -> bytes:
    """A push's frame after its join_ref (``,null,"topic","event",payload]``), the same for
    every socket: ``b"[" + _encode_ref(join_ref) + tail`` is ``encode_frame``'s frame."""
    return encode_frame(None, None, topic, event, payload)[_NULL_REF:]


class Connection:
    """One live WebSocket and the topics it joined (topic -> join_ref).

    Sends never wait: a frame is written at once when nothing is queued ahead of it and the
    transport has room, else queued for this socket's writer task. A push therefore costs the
    pusher the same whether the peer reads fast, slowly or not at all, and one stopped client
    (an agent suspended with Ctrl-Z, a laptop asleep) holds up neither the request that posted
    a message nor the other sockets of the room. A socket that falls :data:`MAX_BEHIND` bytes
    behind is closed with :data:`BEHIND_CODE`; its client reconnects and catches up.
    """

    def __init__(self, principal: Principal, ws: WebSocket) -> None:
        self.principal = principal
        self.ws = ws
        self.topics: dict[str, str | None] = {}
        self.closed = False
        offered = ws.scope.get("extensions") or {}
        #: the server's direct text send (``band.serving.ws``), else None: sends go through ASGI
        self._direct: DirectSendProtocol | None = offered.get(DIRECT_SEND, {}).get("protocol")
        #: frames waiting for the transport (in order), and their size in bytes
        self._behind: deque[bytes] = deque()
        self.behind_bytes = 0
        #: the task writing ``_behind`` out, while one runs
        self._writer: asyncio.Task[None] | None = None
        #: the task closing a socket that fell behind
        self._closing: asyncio.Task[None] | None = None

    def send(self, frame: Frame) -> None:
        """Send one Phoenix V2 frame; drop it silently when the socket is gone."""
        if not self.closed:  # a payload that cannot be encoded is our bug: raise
            self.send_encoded(encode_frame(*frame))

    def send_encoded(self, data: bytes) -> None:
        """Send one encoded V2 frame, in order with this socket's others, without waiting;
        drop it silently when the socket is gone."""
        if self.closed:
            return
        direct = self._direct
        if direct is not None and not self._behind and not direct.write_paused:
            try:  # nothing ahead of it and room in the buffer: written now
                sent = direct.write_text(data)
            except Exception:  # the transport went away under us
                sent = False
            self.closed = not sent
            return
        self._behind.append(data)
        self.behind_bytes += len(data)
        if self.behind_bytes > MAX_BEHIND:
            self._fell_behind()
        elif self._writer is None:
            self._writer = asyncio.create_task(self._drain(), name="band-dev-socket-writer")

    async def _drain(self) -> None:
        """Write the queued frames in order as the transport takes them (as uvicorn's ASGI
        send waits for the buffer to drain)."""
        direct, behind = self._direct, self._behind
        try:
            while behind and not self.closed:
                if direct is None:
                    data = behind.popleft()
                    self.behind_bytes -= len(data)
                    await self.ws.send_text(data.decode())
                    continue
                await direct.writable.wait()
                while behind and not direct.write_paused and not self.closed:
                    data = behind.popleft()
                    self.behind_bytes -= len(data)
                    self.closed = not direct.write_text(data)
        except Exception:  # the socket went away under us
            self.closed = True
        finally:
            self._writer = None

    def _fell_behind(self) -> None:
        """The peer stopped reading: drop what it has not taken and close its socket."""
        log.warning(
            "closing a socket of %s %s: it fell %d MiB behind (its client is not reading)",
            self.principal.kind,
            self.principal.id,
            self.behind_bytes >> 20,
        )
        self.closed = True
        self._behind.clear()
        self.behind_bytes = 0
        if self._writer is not None:
            self._writer.cancel()
        self._closing = asyncio.create_task(self.close(BEHIND_CODE, BEHIND_REASON))

    async def close(self, code: int = 1000, reason: str = "") -> None:
        """Close the socket once the frames sent before are written (waiting at most
        :data:`CLOSE_WAIT_S` for a peer that does not read)."""
        writer = self._writer
        if writer is not None and not self.closed:
            await asyncio.wait({writer}, timeout=CLOSE_WAIT_S)
        self.closed = True
        if self._direct is not None:  # a close frame now, behind what the transport holds
            self._direct.close_now(code, reason)
            return
        try:  # through ASGI, which waits for room in the buffer (or the connection's loss)
            await self.ws.close(code=code, reason=reason)
        except Exception:
            log.debug("socket of %s already closed", self.principal.id)


#: A socket's subscription that was dropped: (connection, topic, join_ref).
Joined = tuple[Connection, str, str | None]


class Fanout:
    """Tracks connections and pushes events to joined topics.

    Indexed by topic and by principal, so a push costs the sockets joined to its topic and a
    presence check the sockets of its principal, however many others are connected.
    """

    def __init__(self) -> None:
        self.connections: set[Connection] = set()
        self.agents: dict[str, Connection] = {}
        #: the sockets of each principal (the per-key cap, presence)
        self._of: dict[str, set[Connection]] = {}
        #: the sockets joined to each topic, in the order they joined
        self._joined: dict[str, dict[Connection, None]] = {}

    def sockets_of(self, pid: str) -> int:
        """How many live sockets ``pid`` holds."""
        return len(self._of.get(pid, ()))

    def agent_connected(self, agent_id: str) -> Connection | None:
        """Return the live connection of ``agent_id``, if any."""
        conn = self.agents.get(agent_id)
        return conn if conn and not conn.closed else None

    def add(self, conn: Connection) -> None:
        """Register a connection."""
        self.connections.add(conn)
        self._of.setdefault(conn.principal.id, set()).add(conn)
        if conn.principal.kind == "agent":
            self.agents[conn.principal.id] = conn

    def remove(self, conn: Connection) -> None:
        """Forget a connection (again: no-op)."""
        conn.closed = True
        self.connections.discard(conn)
        pid = conn.principal.id
        mine = self._of.get(pid)
        if mine is not None:
            mine.discard(conn)
            if not mine:
                del self._of[pid]
        for topic in conn.topics:
            self._unindex(conn, topic)
        if self.agents.get(pid) is conn:
            del self.agents[pid]

    def join(self, conn: Connection, topic: str, join_ref: str | None) -> None:
        """Subscribe ``conn`` to ``topic`` (a rejoin takes the new ``join_ref``)."""
        conn.topics[topic] = join_ref
        if conn in self.connections:
            self._joined.setdefault(topic, {})[conn] = None

    def leave(self, conn: Connection, topic: str) -> str | None:
        """Unsubscribe ``conn`` from ``topic``; the join_ref it had (None if not joined)."""
        self._unindex(conn, topic)
        return conn.topics.pop(topic, None)

    def _unindex(self, conn: Connection, topic: str) -> None:
        joined = self._joined.get(topic)
        if joined is not None:
            joined.pop(conn, None)
            if not joined:
                del self._joined[topic]

    def leave_room(self, rid: str, pid: str | None = None) -> list[Joined]:
        """Unsubscribe ``pid``'s sockets (every socket when None) from room ``rid``'s topics.

        Synchronous on purpose: called right after the store drops the membership, before the
        caller awaits anything, so no push of the room can slip in between. Returns what was
        left as (connection, topic, join_ref).
        """
        left: list[Joined] = []
        for topic in (f"chat_room:{rid}", f"room_participants:{rid}"):
            for conn in list(self._joined.get(topic, ())):
                if pid is None or conn.principal.id == pid:
                    left.append((conn, topic, self.leave(conn, topic)))
        return left

    async def send_to(
        self, left: list[Joined], topic: str, event: str, payload: JsonObject | msgspec.Struct
    ) -> None:
        """Send one farewell ``event`` on ``topic`` to sockets that just left it."""
        for conn, joined, join_ref in left:
            if joined == topic:
                conn.send((join_ref, None, topic, event, payload))

    async def disconnect(self, pid: str, code: int = 1008, reason: str = "agent deleted") -> None:
        """Close every socket of ``pid`` (a deleted agent): topics dropped before any await."""
        conns = list(self._of.get(pid, ()))
        for conn in conns:
            for topic in list(conn.topics):
                self.leave(conn, topic)
        for conn in conns:  # 1008 (policy violation): the SDK stops reconnecting a gone key
            await conn.close(code, reason)  # after what was sent it (the farewells) is written
            self.remove(conn)

    def online(self, pid: str) -> bool:
        """Whether a principal has a live connection."""
        return any(not c.closed for c in self._of.get(pid, ()))

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
        joined = self._joined.get(topic)
        if not joined:
            return
        tail: bytes | None = None  # the frame after its join_ref, encoded once for every socket
        for conn in list(joined):
            if (
                agent_ids is not None
                and conn.principal.kind == "agent"
                and conn.principal.id not in agent_ids
            ):
                continue
            if tail is None:
                tail = push_tail(topic, event, payload)
            conn.send_encoded(b"[" + _encode_ref(conn.topics[topic]) + tail)
        log.debug("pushed %s on %s", event, topic)
