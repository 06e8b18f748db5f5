"""pytest-benchmark: decoding one Phoenix frame, ``json.loads`` against the wire model's msgspec.

The frame is a ``message_created`` push as band dev sends it. Both sides end with the five
slots the client dispatches on (``PhoenixClient._dispatch``); compare the two rows of the
``wire: frame decode`` group (ratios only, nothing here asserts a time). ``make bench-wire``
runs it; its name keeps it out of ``make bench``, whose suite is band_sdk_core's operations.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from band.core.wire import decode_frame, encode_frame

_PAYLOAD = {
    "id": "6f1c2b1e-3f0a-4c55-9a52-0f6d2a9d1c11",
    "content": "@echo-bot how far along is the migration? " * 3,
    "message_type": "text",
    "sender_id": "0b7d6f0c-5a0e-4f1e-8d55-3c0d2b5f9e21",
    "sender_type": "User",
    "sender_name": "Ada Lovelace",
    "chat_room_id": "9e2a4c1d-7b3f-4e0a-bc12-5d6e7f8a9b0c",
    "thread_id": None,
    "inserted_at": "2026-12-05T05:00:00.123456Z",
    "updated_at": "2026-12-05T05:00:00.123456Z",
    "attachments": [],
    "metadata": {
        "mentions": [{"id": "a1", "handle": "echo-bot", "name": "Echo", "username": "echo-bot"}],
        "status": "sent",
    },
}
FRAME = encode_frame("3", None, "chat_room:9e2a4c1d", "message_created", _PAYLOAD)


def _json_decode(raw: bytes) -> tuple[Any, Any, Any, Any, Any]:
    join_ref, ref, topic, event, payload = json.loads(raw)
    return join_ref, ref, topic, event, payload if isinstance(payload, dict) else {}


def _msgspec_decode(raw: bytes) -> tuple[Any, Any, Any, Any, Any]:
    frame = decode_frame(raw)
    return frame.join_ref, frame.ref, frame.topic, frame.event, frame.body


DECODERS: dict[str, Callable[[bytes], tuple[Any, Any, Any, Any, Any]]] = {
    "json": _json_decode,
    "msgspec": _msgspec_decode,
}


@pytest.mark.parametrize("name", list(DECODERS))
def test_frame_decode(benchmark: Any, name: str, run_info: Any) -> None:
    decode = DECODERS[name]
    assert decode(FRAME) == _json_decode(FRAME)  # both read the same frame the same way
    benchmark.group = "wire: frame decode"
    benchmark.extra_info.update(
        run_info, operation="wire: frame decode", topic="wire", implementation=name
    )
    benchmark(decode, FRAME)
