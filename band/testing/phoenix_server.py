"""``FakePhoenixServer``: a real loopback WebSocket server speaking Phoenix Channels V2.

Only the socket side of the platform, for tests of a client's connection handling: scripted
join outcomes per topic, heartbeat and leave replies, pushes that carry the topic's current
join_ref, server-side close or abort, a stalled reader, and refusal of every upgrade with
the platform's HTTP 409 ``connection_conflict``. No REST, no state, no delivery; for those
run the real local platform (``band.testing.LocalBand``).
"""

from __future__ import annotations

import asyncio
import enum
import json
import logging
from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from http import HTTPStatus
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import msgspec
from websockets.asyncio.server import ServerConnection, serve
from websockets.datastructures import Headers
from websockets.exceptions import ConnectionClosed
from websockets.http11 import Request, Response

from band.core.wire import ErrorBody, ErrorEnvelope, decode_frame

__all__ = ["ChannelMessage", "FakePhoenixServer", "JoinOutcome", "Upgrade", "fake_phoenix_server"]

log = logging.getLogger(__name__)

#: The body of the platform's refusal of a second connection (``on_conflict=reject``).
CONFLICT_BODY = msgspec.json.encode(
    ErrorEnvelope(
        error=ErrorBody(
            code="connection_conflict",
            message=(
                "An active connection already exists for this agent. "
                "Set on_conflict=supersede or omit on_conflict to take over."
            ),
        )
    )
).decode()


class JoinOutcome(enum.StrEnum):
    """The server's answer to one ``phx_join``."""

    OK = "ok"
    REJECTED = "rejected"


@dataclass(frozen=True)
class ChannelMessage:
    """One V2 frame: ``[join_ref, ref, topic, event, payload]``."""

    join_ref: str | None
    ref: str | None
    topic: str
    event: str
    payload: Any

    @classmethod
    def decode(cls, raw: str | bytes) -> ChannelMessage:
        """Parse a text frame (``msgspec.DecodeError`` when it is not a V2 frame)."""
        frame = decode_frame(raw)
        return cls(frame.join_ref_str, frame.ref_str, frame.topic, frame.event, frame.payload)

    def encode(self) -> str:
        """The frame as text (``json.dumps``' spacing, as this fake has always written it)."""
        return json.dumps([self.join_ref, self.ref, self.topic, self.event, self.payload])


@dataclass(frozen=True)
class Upgrade:
    """One WebSocket upgrade request received (accepted or refused)."""

    query: dict[str, str]
    headers: Headers

    @classmethod
    def from_request(cls, request: Request) -> Upgrade:
        """The query and headers of ``request``."""
        return cls(dict(parse_qsl(urlsplit(request.path).query)), request.headers)


class FakePhoenixServer:
    """A loopback Phoenix Channels V2 server; build it with :func:`fake_phoenix_server`.

    Records ``upgrades`` (refused ones too), ``received`` frames, ``joined_topics`` and
    ``connection_count`` (accepted connections); ``url`` is its ``ws://127.0.0.1:<port>``.
    """

    def __init__(
        self, *, join_outcomes: Mapping[str, Sequence[JoinOutcome]], refuse_upgrades: bool
    ) -> None:
        self._outcomes = {topic: list(seq) for topic, seq in join_outcomes.items()}
        self._refuse = refuse_upgrades
        self.url = ""
        self.joined_topics: set[str] = set()
        self.received: list[ChannelMessage] = []
        self.upgrades: list[Upgrade] = []
        self.connection_count = 0
        self._connection: ServerConnection | None = None
        self._ready = asyncio.Event()
        # a client drops pushes whose join_ref is not the one it joined with: echo it
        self._join_refs: dict[str, str | None] = {}

    def _next_outcome(self, topic: str) -> JoinOutcome:
        """The next scripted outcome of ``topic`` (the last one repeats; unlisted: OK)."""
        seq = self._outcomes.get(topic)
        if not seq:
            return JoinOutcome.OK
        return seq.pop(0) if len(seq) > 1 else seq[0]

    def _process_request(self, connection: ServerConnection, request: Request) -> Response | None:
        self.upgrades.append(Upgrade.from_request(request))
        if self._refuse:
            return connection.respond(HTTPStatus.CONFLICT, CONFLICT_BODY)
        return None

    async def _send(self, connection: ServerConnection, message: ChannelMessage) -> None:
        await connection.send(message.encode())

    async def _reply(self, connection: ServerConnection, message: ChannelMessage, ok: bool) -> None:
        payload = (
            {"status": "ok", "response": {}}
            if ok
            else {"status": "error", "response": {"reason": "rejected by fake server"}}
        )
        reply = ChannelMessage(message.join_ref, message.ref, message.topic, "phx_reply", payload)
        await self._send(connection, reply)

    async def _handle(self, connection: ServerConnection, message: ChannelMessage) -> None:
        self.received.append(message)
        if message.event == "phx_join":
            outcome = self._next_outcome(message.topic)
            if outcome is JoinOutcome.OK:
                self.joined_topics.add(message.topic)
                self._join_refs[message.topic] = message.join_ref
            else:  # a refused (re)join leaves the topic unjoined, whatever came before
                self.joined_topics.discard(message.topic)
                self._join_refs.pop(message.topic, None)
            await self._reply(connection, message, outcome is JoinOutcome.OK)
        elif message.event == "phx_leave":
            self.joined_topics.discard(message.topic)
            self._join_refs.pop(message.topic, None)
            await self._reply(connection, message, True)
        elif message.topic == "phoenix":  # heartbeat
            await self._reply(connection, message, True)
        else:
            log.debug("fake Phoenix server ignores %s on %s", message.event, message.topic)

    async def _handler(self, connection: ServerConnection) -> None:
        self._connection = connection
        self.connection_count += 1
        self._ready.set()
        try:
            async for raw in connection:
                await self._handle(connection, ChannelMessage.decode(raw))
        except ConnectionClosed:  # a close or abort from either side ends the handler
            log.debug("fake Phoenix connection closed")

    async def _live(self) -> ServerConnection:
        await self._ready.wait()
        assert self._connection is not None
        return self._connection

    async def push(self, topic: str, event: str, payload: dict[str, Any]) -> None:
        """Send ``event`` on ``topic`` unprompted, with the topic's current join_ref."""
        message = ChannelMessage(self._join_refs.get(topic), None, topic, event, payload)
        await self._send(await self._live(), message)

    async def send_raw(self, text: str) -> None:
        """Send ``text`` as one frame, as it is (e.g. a malformed one)."""
        await (await self._live()).send(text)

    async def close_connection(self, *, code: int = 1000, reason: str = "") -> None:
        """Close the connection from the server with ``code``."""
        await (await self._live()).close(code=code, reason=reason)

    async def abort_connection(self) -> None:
        """Drop the connection without a close handshake (a network failure)."""
        (await self._live()).transport.abort()

    @contextmanager
    def stalled(self) -> Iterator[None]:
        """Stop reading from the client for the block (a slow peer: nothing is answered)."""
        assert self._connection is not None, "no client connected"
        transport = self._connection.transport
        transport.pause_reading()
        try:
            yield
        finally:
            transport.resume_reading()


@asynccontextmanager
async def fake_phoenix_server(
    *,
    join_outcomes: Mapping[str, Sequence[JoinOutcome]] | None = None,
    refuse_upgrades: bool = False,
) -> AsyncIterator[FakePhoenixServer]:
    """A started :class:`FakePhoenixServer` on a free 127.0.0.1 port.

    ``join_outcomes`` maps a topic to the outcomes of its successive joins;
    ``refuse_upgrades`` answers every upgrade with HTTP 409 ``connection_conflict``.
    """
    server = FakePhoenixServer(join_outcomes=join_outcomes or {}, refuse_upgrades=refuse_upgrades)
    async with serve(
        server._handler, "127.0.0.1", 0, process_request=server._process_request
    ) as ws_server:
        port = next(iter(ws_server.sockets)).getsockname()[1]
        server.url = f"ws://127.0.0.1:{port}"
        yield server
