# cython: annotation_typing=False
"""The socket push path's pure steps: a received buffer's WebSocket frames, a push's check.

Private helpers of band's Phoenix client and runtime (not band-sdk-core's API): the pure
implementation and, compiled with _push_c.pxd, the compiled twin _push_c.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING or __name__ != "band_sdk_core._push_c":
    from ._payload_py import validate_event_payload
else:  # the compiled twin calls the compiled validator
    from ._payload_c import validate_event_payload

__all__ = ["CONTROL", "HAND_OVER", "WAIT", "room_message", "split_frames", "validate_push"]

#: what stopped :func:`split_frames`: the frame at ``at`` is not whole yet (or none is left)
WAIT = 0
#: a whole ping, pong or close frame lies at ``buf[at:after]``
CONTROL = 1
#: from ``at`` on, the frames are not plain text or control frames (or not UTF-8)
HAND_OVER = 2

#: The first byte of an unfragmented text frame without extension bits (FIN, opcode 1).
_TEXT_FIN = 0x81
#: The first bytes of a close, ping and pong frame (control frames are never fragmented).
_CLOSE_FIN = 0x88
_PONG_FIN = 0x8A


def _length(buf: bytes, start: int, stop: int) -> int:
    """The big-endian number in ``buf[start:stop]`` (``int.from_bytes`` of a slice that the
    end of ``buf`` may cut short)."""
    value = 0
    stop = min(stop, len(buf))
    while start < stop:
        value = value * 256 + buf[start]
        start += 1
    return value


def split_frames(buf: bytes, pos: int, is_open: bool) -> tuple[list[str], int, int, int]:
    """The whole text frames of ``buf`` from ``pos``, decoded, up to the first other frame.

    Returns ``(texts, stop, at, after)``: ``stop`` says why the scan ended at ``at``
    (:data:`WAIT`, :data:`CONTROL` with the control frame at ``buf[at:after]``, or
    :data:`HAND_OVER`). A frame is taken only when it is plain (``is_open``, and unmasked as
    a server's frames are); a text frame that is not UTF-8 is handed over.
    """
    texts: list[str] = []
    end = len(buf)
    while end - pos >= 2:
        first = buf[pos]
        second = buf[pos + 1]
        size = second & 0x7F
        head = 2
        if size == 126:
            head = 4
            size = _length(buf, pos + 2, pos + 4)
        elif size == 127:
            head = 10
            size = _length(buf, pos + 2, pos + 10)
        # a server's frames are never masked (bit 0x80 of the second byte): websockets
        # refuses one that is, as it refuses extension bits or a frame after a close
        plain = is_open and not second & 0x80
        if first == _TEXT_FIN and plain:
            if end - pos < head:
                break
            left = end - pos - head  # (unsigned when compiled: compared with the unsigned size)
            if size > left:
                break
            stop = pos + head + size
            try:
                text = buf[pos + head : stop].decode("utf-8")
            except UnicodeDecodeError:
                return texts, HAND_OVER, pos, pos
            texts.append(text)
            pos = stop
        elif _CLOSE_FIN <= first <= _PONG_FIN and plain and size < 126:
            stop = pos + head + size
            if stop > end:
                break
            return texts, CONTROL, pos, stop
        else:
            return texts, HAND_OVER, pos, pos
    return texts, WAIT, pos, pos


def validate_push(event: str, payload: Any) -> dict[str, Any]:
    """A push's normalised payload (``validate_event_payload``; ``{}`` for an ``event_created``
    payload that is not an object); ValueError or TypeError when it is invalid."""
    result = validate_event_payload(event, payload)
    return result if type(result) is dict else {}


def room_message(event: str, payload: Any, room_id: str, agent_id: str) -> dict[str, Any] | None:
    """A room push's validated message when it is one to answer, else None.

    The push is validated as :func:`validate_push` does (raising alike); then only a
    ``message_created`` that ``evaluate_delivery_event(event, room_id, message, agent_id)``
    would call an ``invocation`` is returned: one not sent by the agent itself. That
    evaluation of the validated message needs no second conversion and validation (both
    give the message back unchanged), and ``room_id`` (non-empty) is the room.
    """
    if type(room_id) is not str or not room_id or type(agent_id) is not str:
        raise TypeError("room_id must be a non-empty str and agent_id a str")
    message = validate_push(event, payload)
    if event != "message_created":
        return None
    if message["sender_type"] == "Agent" and message["sender_id"] == agent_id:
        return None  # the agent's own message coming back: skip_self
    return message
