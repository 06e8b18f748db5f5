"""The push path's private core helpers (band_sdk_core._push), against every implementation."""

from __future__ import annotations

import copy
from types import ModuleType
from typing import Any

import pytest
from bandtest.core_cases import MESSAGE, VALID_PAYLOADS
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from band_sdk_core import evaluate_delivery_event, validate_event_payload

FUZZ = settings(
    max_examples=300,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)


def old_split(buf: bytes, pos: int, is_open: bool) -> tuple[list[str], int, int, int]:
    """The Phoenix client's frame loop before the core took it (band 863973e), as the oracle:
    the same frames taken, stopping where and why it stopped."""
    texts: list[str] = []
    end = len(buf)
    while end - pos >= 2:
        first, second = buf[pos], buf[pos + 1]
        size, head = second & 0x7F, 2
        if size == 126:
            size, head = int.from_bytes(buf[pos + 2 : pos + 4], "big"), 4
        elif size == 127:
            size, head = int.from_bytes(buf[pos + 2 : pos + 10], "big"), 10
        stop = pos + head + size
        plain = is_open and not second & 0x80
        if first == 0x81 and plain:
            if end - pos < head or stop > end:
                break
            try:
                text = str(buf[pos + head : stop], "utf-8")
            except UnicodeDecodeError:
                return texts, 2, pos, pos
            pos = stop
            texts.append(text)
        elif first in (0x88, 0x89, 0x8A) and plain and size < 126:
            if stop > end:
                break
            return texts, 1, pos, stop
        else:
            return texts, 2, pos, pos
    return texts, 0, pos, pos


def frame(first: int, payload: bytes, *, width: int = 0, masked: bool = False) -> bytes:
    """One frame as a server writes it (``width``: force a 16 or 64-bit length)."""
    size = len(payload)
    mask = 0x80 if masked else 0
    if width == 64 or size > 0xFFFF:
        head = bytes([first, mask | 127]) + size.to_bytes(8, "big")
    elif width == 16 or size >= 126:
        head = bytes([first, mask | 126]) + size.to_bytes(2, "big")
    else:
        head = bytes([first, mask | size])
    return head + payload


def test_codes(push_impl: ModuleType) -> None:
    assert (push_impl.WAIT, push_impl.CONTROL, push_impl.HAND_OVER) == (0, 1, 2)


def test_text_frames_of_every_length_encoding(push_impl: ModuleType) -> None:
    split = push_impl.split_frames
    short, mid, big = "é" * 10, "x" * 300, "y" * 70_000
    buf = frame(0x81, short.encode()) + frame(0x81, mid.encode()) + frame(0x81, big.encode())
    assert split(buf, 0, True) == ([short, mid, big], 0, len(buf), len(buf))
    # a 16 and a 64-bit length for a short frame are still read (websockets takes them too)
    buf = frame(0x81, b"ab", width=16) + frame(0x81, b"cd", width=64)
    assert split(buf, 0, True) == (["ab", "cd"], 0, len(buf), len(buf))
    assert split(b"", 0, True) == ([], 0, 0, 0)
    one = frame(0x81, b"hi")
    assert split(b"\x00" + one, 1, True) == (["hi"], 0, 5, 5)


def test_cut_frames_wait(push_impl: ModuleType) -> None:
    split = push_impl.split_frames
    whole = frame(0x81, b"first") + frame(0x81, ("z" * 200).encode())
    first_end = 7
    for cut in range(len(whole)):
        texts, stop, at, after = split(whole[:cut], 0, True)
        assert stop == 0 and at == after
        assert (texts, at) == ((["first"], first_end) if cut >= first_end else ([], 0))


def test_control_frames_stop_the_scan(push_impl: ModuleType) -> None:
    split = push_impl.split_frames
    ping = frame(0x89, b"p")
    buf = frame(0x81, b"a") + ping + frame(0x81, b"b")
    assert split(buf, 0, True) == (["a"], 1, 3, 6)
    assert split(buf, 6, True) == (["b"], 0, 9, 9)
    for first in (0x88, 0x8A):
        assert split(frame(first, b""), 0, True) == ([], 1, 0, 2)
    # cut short: wait; a control frame with a 16-bit length is websockets' to refuse
    assert split(ping[:2], 0, True) == ([], 0, 0, 0)
    assert split(frame(0x89, b"x" * 130), 0, True) == ([], 2, 0, 0)


@pytest.mark.parametrize(
    "odd",
    [
        frame(0x01, b"frag"),  # a fragment
        frame(0x82, b"\x00\x01"),  # binary
        frame(0xC1, b"x"),  # an extension bit
        frame(0x81, b"x", masked=True),  # masked
        frame(0x81, b"\xff\xfe"),  # not UTF-8
        frame(0x81, b"\xed\xa0\x80"),  # a surrogate is not UTF-8 either
    ],
)
def test_odd_frames_are_handed_over(push_impl: ModuleType, odd: bytes) -> None:
    buf = frame(0x81, b"ok") + odd + frame(0x81, b"after")
    assert push_impl.split_frames(buf, 0, True) == (["ok"], 2, 4, 4)


def test_nothing_is_taken_once_not_open(push_impl: ModuleType) -> None:
    buf = frame(0x81, b"a") + frame(0x89, b"")
    assert push_impl.split_frames(buf, 0, False) == ([], 2, 0, 0)


FIRSTS = st.sampled_from([0x81, 0x81, 0x81, 0x88, 0x89, 0x8A, 0x01, 0x80, 0x82, 0xC1, 0x91])
PAYLOADS = st.text(max_size=140).map(str.encode) | st.binary(max_size=140)
FRAMES = st.lists(
    st.tuples(FIRSTS, PAYLOADS, st.sampled_from([0, 0, 0, 16, 64]), st.booleans()),
    max_size=6,
).map(lambda fs: b"".join(frame(f, p, width=w, masked=m and f != 0x81) for f, p, w, m in fs))


@FUZZ
@given(
    buf=FRAMES | st.binary(max_size=40),
    cut=st.integers(0, 2000),
    pos=st.integers(0, 12),
    is_open=st.booleans(),
)
def test_split_matches_the_client_loop_it_replaced(
    push_impl: ModuleType, buf: bytes, cut: int, pos: int, is_open: bool
) -> None:
    buf = buf[: max(cut, len(buf) - cut)]  # often whole, often cut anywhere
    pos = min(pos, len(buf))
    assert push_impl.split_frames(buf, pos, is_open) == old_split(buf, pos, is_open)


# --- validation -------------------------------------------------------------------------------


def outcome(call: Any) -> tuple[str, Any]:
    """A call's result or its error (type and text), to compare two calls."""
    try:
        return "ok", call()
    except (ValueError, TypeError) as error:
        return type(error).__name__, (str(error), getattr(error, "issues", None))


JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**64), 2**65) | st.floats() | st.text(max_size=5),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=4), children, max_size=3)
    ),
    max_leaves=8,
)
FIELDS = sorted({key for payload in VALID_PAYLOADS.values() for key in payload} | {"metadata"})
EVENTS = [*sorted(VALID_PAYLOADS), "event_created", "no_such_event"]


@st.composite
def pushes(draw: st.DrawFn) -> tuple[str, Any]:
    """An event name and a payload: a valid one with fields changed, or anything."""
    event = draw(st.sampled_from(EVENTS))
    changes = draw(st.dictionaries(st.sampled_from(FIELDS), JSONISH, max_size=3))
    if draw(st.booleans()):
        return event, {**VALID_PAYLOADS.get(event, MESSAGE), **changes}
    return event, draw(JSONISH)


def expected_push(event: str, payload: Any) -> Any:
    result = validate_event_payload(event, payload)
    return result if isinstance(result, dict) else {}


@FUZZ
@given(push=pushes())
def test_validate_push_is_the_validator(push_impl: ModuleType, push: tuple[str, Any]) -> None:
    event, payload = push
    before = copy.deepcopy(payload)
    got = outcome(lambda: push_impl.validate_push(event, payload))
    assert got == outcome(lambda: expected_push(event, before))
    assert repr(payload) == repr(before)


def expected_room_message(event: str, payload: Any, room_id: str, agent_id: str) -> Any:
    """What the runtime's room handler did before the core took it (band 863973e)."""
    message = expected_push(event, payload)
    if event != "message_created":
        return None
    decision = evaluate_delivery_event(event, room_id, message, agent_id)
    return message if decision["decision"] == "invocation" else None


@FUZZ
@given(
    push=pushes(),
    own=st.booleans(),
    sender=st.sampled_from(["Agent", "User", "agent"]),
    agent_id=st.sampled_from(["a1", "u1", ""]),
)
def test_room_message_is_validation_then_delivery(
    push_impl: ModuleType, push: tuple[str, Any], own: bool, sender: str, agent_id: str
) -> None:
    event, payload = push
    if own and isinstance(payload, dict):
        payload = {**payload, "sender_type": sender, "sender_id": agent_id}
    before = copy.deepcopy(payload)
    got = outcome(lambda: push_impl.room_message(event, payload, "room-1", agent_id))
    assert got == outcome(lambda: expected_room_message(event, before, "room-1", agent_id))


def test_room_message_decisions(push_impl: ModuleType) -> None:
    room_message = push_impl.room_message
    message = room_message("message_created", dict(MESSAGE), "r", "a1")
    assert message == validate_event_payload("message_created", MESSAGE)
    own = {**MESSAGE, "sender_type": "Agent", "sender_id": "a1"}
    assert room_message("message_created", own, "r", "a1") is None
    assert room_message("message_created", own, "r", "a2") is not None
    assert room_message("message_updated", dict(MESSAGE), "r", "a1") is None
    with pytest.raises(ValueError, match=r"required field `id` is missing"):
        room_message("message_updated", {}, "r", "a1")
    for room_id, agent_id in (("", "a1"), (None, "a1"), ("r", None)):
        with pytest.raises(TypeError, match="room_id must be a non-empty str and agent_id a str"):
            room_message("message_created", dict(MESSAGE), room_id, agent_id)
