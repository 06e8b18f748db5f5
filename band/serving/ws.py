"""uvicorn's sans-I/O WebSocket protocol with a direct text send for server pushes.

An ASGI ``websocket.send`` crosses Starlette's ``WebSocket``, its exception layer and uvicorn's
message dispatch, then websockets builds a ``Frame``, checks and serializes it through a
``BytesIO`` and queues it to be joined and written: some 25 Python calls and a bytes -> str ->
bytes round trip per frame. ``band dev`` sends 8 pushes per answered message, so that path is a
visible share of its CPU. :class:`DirectSendProtocol` is the same protocol (handshake, reads,
pings, closing, backpressure, permessage-deflate) that also offers the app
:meth:`~DirectSendProtocol.write_text` under the scope's ``extensions[DIRECT_SEND]``: one
unfragmented text frame written to the transport at once, bytes in, no message dict.

Select it with ``uvicorn.Config(ws=DirectSendProtocol)``; an app served by anything else finds
no such extension and sends through ASGI as before.
"""

from __future__ import annotations

import struct
from typing import Any

from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.http11 import Request
from websockets.protocol import OPEN

__all__ = ["DIRECT_SEND", "DirectSendProtocol"]

#: The scope's ``extensions`` key whose value holds the protocol (``{"protocol": it}``).
DIRECT_SEND = "band.websocket.direct_send"

#: FIN + text opcode: a whole text message in one frame (RFC 6455 section 5.2)
_FIN_TEXT = 0x81
#: headers of the unmasked server frames by payload length: 7-bit, 16-bit, 64-bit
_SHORT = tuple(bytes((_FIN_TEXT, n)) for n in range(126))
_PACK16 = struct.Struct("!BBH").pack
_PACK64 = struct.Struct("!BBQ").pack


class DirectSendProtocol(WebSocketsSansIOProtocol):
    """uvicorn's ``websockets-sansio`` protocol plus a direct text send (see the module)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        #: the transport asked us to stop writing (mirrors ``writable``, without a call)
        self.write_paused = False

    def handle_connect(self, event: Request) -> None:
        """Accept as uvicorn does, then offer the direct send to the app."""
        super().handle_connect(event)
        if self.response.status_code == 101:  # else refused: no scope, no app
            self.scope["extensions"][DIRECT_SEND] = {"protocol": self}

    def pause_writing(self) -> None:
        """The transport's buffer is over its high-water mark."""
        super().pause_writing()
        self.write_paused = True

    def resume_writing(self) -> None:
        """The transport's buffer drained below its low-water mark."""
        super().resume_writing()
        self.write_paused = False

    def connection_lost(self, exc: Exception | None) -> None:
        """As uvicorn: and writers waiting for the buffer to drain go on (to find it gone)."""
        super().connection_lost(exc)
        self.write_paused = False

    def close_now(self, code: int, reason: str) -> None:
        """Start the closing handshake without waiting for room in the buffer: the close frame
        goes behind what the transport holds, and a peer that has not answered it within
        ``close_timeout`` (one that stopped reading) has its connection cut."""
        if not self._open():
            return
        self.queue.put_nowait({"type": "websocket.disconnect", "code": code, "reason": reason})
        self.conn.send_close(code, reason)
        self.transport.write(b"".join(self.conn.data_to_send()))
        self.close_sent = True
        if self.read_paused:  # as uvicorn's close: the peer's answer must be read
            self.read_paused = False
            self.transport.resume_reading()
        self.close_timer = self.loop.call_later(self.close_timeout, self.transport.abort)

    def _open(self) -> bool:
        """Whether frames may still be written: accepted, not closing, not lost."""
        return not (
            self.disconnected
            or self.close_sent
            or not self.handshake_complete
            or self.initial_response is not None
            or self.conn.state is not OPEN
        )

    def write_text(self, data: bytes) -> bool:
        """Write ``data`` (UTF-8 JSON) as one text message now; False when the socket cannot
        carry it any more (lost, closing, or not open), where an ASGI send would have raised.

        The caller waits for ``writable`` first when :attr:`write_paused` (uvicorn's send
        waits the same way). The frame is the one websockets would write: without extensions
        it is built here; with one (permessage-deflate) or anything queued, websockets builds
        it, in order with the connection's other frames.
        """
        if not self._open():
            return False
        conn = self.conn
        if conn.extensions or conn.writes or conn.debug:
            conn.send_text(data)
            self.transport.write(b"".join(conn.data_to_send()))
            return True
        n = len(data)
        if n < 126:
            head = _SHORT[n]
        elif n < 65536:
            head = _PACK16(_FIN_TEXT, 126, n)
        else:
            head = _PACK64(_FIN_TEXT, 127, n)
        self.transport.write(head + data)
        return True
